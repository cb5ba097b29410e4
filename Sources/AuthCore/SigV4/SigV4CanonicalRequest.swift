/// Builds a SigV4 canonical request on bytes, in one output buffer with no per-header strings.
///
/// "Create a canonical request for Signature Version 4" (AWS General Reference):
///
/// ```
/// METHOD \n CanonicalURI \n CanonicalQueryString \n (lowercase(name):trimall(value) \n)* \n SignedHeaders \n HashedPayload
/// ```
///
/// The request is built in temporary (stack) memory and handed to a closure; header problems are
/// found while canonicalising (validation costs no extra pass). The pieces come from the signing
/// toolkit (`Signing/`): ``CanonicalQuery``, ``CanonicalHeaders`` under ``SigV4HeaderPolicy``.
package enum SigV4CanonicalRequest {
    /// Builds the canonical request in temporary (stack) memory and passes it to `body`, with the
    /// range of the signed-header list inside it and the first problem found in the headers.
    ///
    /// - Parameters:
    ///   - rawQuery: the query string of the request line: copied as it is when already canonical
    ///     (the common case, no allocation), else canonicalised. Ignored with `canonicalQuery`.
    ///   - canonicalQuery: an already canonical query (presigned URLs add their parameters first).
    package static func withCanonicalRequest<R>(
        method: String, path: String, rawQuery: String, canonicalQuery canonical: [UInt8]? = nil, headers: [HTTPHeader],
        signerHeaders: SignerHeaderValues, options: SigV4Options, payloadHash: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer, Range<Int>, CanonicalHeaderProblem?) -> R
    ) -> R {
        var query: [UInt8] = []
        var copiesRawQuery = false
        var targetProblem: CanonicalHeaderProblem?
        if let canonical {
            query = canonical
        } else if rawQuery.utf8.withContiguousStorageIfAvailable(CanonicalQuery.isAlreadyCanonical) ?? false {
            copiesRawQuery = true  // only unreserved, `=` and `&`: no control characters
        } else if !rawQuery.isEmpty {
            if CanonicalQuery.containsControlByte(rawQuery) { targetProblem = .controlCharactersInTarget }
            query = CanonicalQuery.fromRawQuery(rawQuery)
        }
        let rawQueryCount = copiesRawQuery ? rawQuery.utf8.count : 0
        let fields = HTTPHeader.utf8Counts(headers)
        // A session token is a secret: stack copies of a canonical request that holds one (the
        // signer's, or a token header the caller set) are wiped.
        let holdsSecret = signerHeaders.holdsSecret || headers.contains { $0.hasName("x-amz-security-token") }
        let policy = SigV4HeaderPolicy(signer: signerHeaders)
        // The output: method, the path (tripled at most by encoding), the query, the lines (at most
        // the table's bytes), the signed-header list (at most the names again, with `;`), the
        // payload hash, and the five newlines.
        let lines = CanonicalHeaders.lineBytes(fieldBytes: fields.both, fieldCount: headers.count, signer: signerHeaders)
        let capacity = method.utf8.count &+ 3 &* Swift.max(path.utf8.count, 1) &+ query.count &+ rawQueryCount &+ 2 &* lines
            &+ payloadHash.count &+ 8
        return CanonicalHeaders.withTable(
            headers, fieldBytes: fields.both, policy: policy, signer: signerHeaders, wipes: holdsSecret, outputCapacity: capacity
        ) { table, headerProblem, out in
            var problem = targetProblem
            out.write(method)
            out.writeByte(UInt8(ascii: "\n"))
            let pathWasCanonical = SigV4CanonicalURI.writeCanonicalURI(
                path: path, normalize: options.normalizePath, doubleEncode: options.doubleURIEncode, into: &out)
            if !pathWasCanonical, problem == nil, CanonicalQuery.containsControlByte(path) { problem = .controlCharactersInTarget }
            out.writeByte(UInt8(ascii: "\n"))
            if copiesRawQuery { out.write(rawQuery) } else { out.write(query) }
            out.writeByte(UInt8(ascii: "\n"))
            if problem == nil { problem = headerProblem }
            table.writeLines(into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            let signed = table.writeNames(into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            out.write(payloadHash)
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out.buffer[..<out.position])), signed, problem)
        }
    }

    /// The signed-header list alone (for presigned URLs), with the first problem in the headers.
    static func signedHeaderList(_ headers: [HTTPHeader], problem: inout CanonicalHeaderProblem?) -> [UInt8] {
        let fields = HTTPHeader.utf8Counts(headers)
        let policy = SigV4HeaderPolicy(signer: .none)
        let (list, found) = CanonicalHeaders.withTable(headers, fieldBytes: fields.both, policy: policy, signer: .none) { table, found in
            ([UInt8](unsafeUninitializedCapacity: fields.names &+ headers.count &+ 1) { buffer, initialized in
                var out = OutputCursor(buffer: buffer)
                _ = table.writeNames(into: &out)
                initialized = out.position
            }, found)
        }
        if problem == nil { problem = found }
        return list
    }
}

/// SigV4's header policy: every field is signed but `Authorization` and `X-Amz-Date` (the signer
/// writes the date) and, when the signer adds them, `X-Amz-Security-Token` and
/// `X-Amz-Content-SHA256`; values are trimmed ("trimall"); `Host` is required.
struct SigV4HeaderPolicy: CanonicalHeaderPolicy {
    static var trimsValues: Bool { true }
    static var requiresHost: Bool { true }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString) {
        ("x-amz-date", "x-amz-security-token", "x-amz-content-sha256")
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
