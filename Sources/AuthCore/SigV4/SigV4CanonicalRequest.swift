/// SigV4's pieces of a canonical request (the builder is ``CanonicalRequest``): the signed-header
/// list of a presigned URL and the header policy.
enum SigV4CanonicalRequest {
    /// The signed-header list alone (for presigned URLs), with the first problem in the headers.
    static func signedHeaderList(_ headers: [HTTPHeader], problem: inout CanonicalHeaderProblem?) -> [UInt8] {
        let fields = HTTPHeader.utf8Counts(headers)
        let policy = SigV4HeaderPolicy(signer: .none)
        let (list, found) = CanonicalHeaders.withTable(headers, fieldBytes: fields.both, policy: policy, signer: .none)
        { table, found in
            (
                // The names' word stores may reach up to seven bytes past the list: scratch bytes of
                // the line after the last name (`:` and its value, perhaps a token's). The array gets
                // exactly the list; the block the stores went to is wiped.
                [UInt8](writing: fields.names &+ headers.count &+ 1, holdsSecret: true) { out in
                    _ = table.writeNames(into: &out)
                }, found
            )
        }
        if problem == nil { problem = found }
        return list
    }
}

/// SigV4's header policy: every field is signed but `Authorization` and `X-Amz-Date` (the signer
/// writes the date) and, when the signer adds them, `X-Amz-Security-Token` and
/// `X-Amz-Content-SHA256`; values are trimmed ("trimall"); `Host` is required.
struct SigV4HeaderPolicy: CanonicalHeaderPolicy {
    static var valueForm: CanonicalHeaderValueForm { .trimmedAll }
    static var requiresHost: Bool { true }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        ("x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "")
    }

    let replacesToken: Bool
    let dropsContentHash: Bool

    init(signer: SignerHeaderValues) {
        replacesToken = signer.replacesToken
        dropsContentHash = signer.contentHash != nil
    }

    @inline(__always)
    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        switch count {
        case 10: !asciiEqual(name, 10, "x-amz-date")
        case 13: !asciiEqual(name, 13, "authorization")
        case 20:
            !((replacesToken && asciiEqual(name, 20, "x-amz-security-token"))
                || (dropsContentHash && asciiEqual(name, 20, "x-amz-content-sha256")))
        default: true
        }
    }
}
