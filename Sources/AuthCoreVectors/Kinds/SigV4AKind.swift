import AuthCore

/// `sigv4a`: AWS SigV4a (`AWS4-ECDSA-P256-SHA256`, vectors.md), header and query modes. ECDSA
/// signatures are randomized: the runner signs, then checks that its signature verifies under the
/// expected public key for the expected string to sign, and that the key it derived is that key.
///
/// Three more expectations, for vectors from another signer (awscrt; an addition to vectors.md):
/// - `signature`: that signer's signature (hex DER), which must verify under the key the runner
///   derived, for the string to sign the runner built;
/// - `authorization` (header mode): equal to the runner's up to `Signature=`, whose value must be the
///   runner's own signature;
/// - `signed_uri` (query mode): the same path; the `X-Amz-*` parameters the signers add equal byte
///   for byte (the runner's `X-Amz-Signature` exactly once, its own signature); the request's own
///   parameters compared canonically (decoded, then encoded as in the canonical query), since one
///   signer may send them as they came and another canonical.
struct SigV4AVectorKind: VectorKind {
    let name = "sigv4a"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "canonical_request", "string_to_sign", "public_key", "verifies", "signature", "authorization", "signed_uri",
        ])
        let (request, time, mode, options) = try c.sigV4Inputs()
        let credentials = try c.credentials()
        let regionSet = Array(try c.string("region_set").utf8).split(
            separator: UInt8(ascii: ","),
            omittingEmptySubsequences: false
        )
        .map { String(decoding: $0, as: UTF8.self) }
        let service = try c.string("service")
        let (signer, signature): (SigV4ASigner, SigV4ASignature) = try c.evaluating("request", withCode: true) {
            let signer = try SigV4ASigner(
                credentials: credentials,
                regionSet: regionSet,
                service: service,
                options: options,
                keyCache: SigV4AKeyCache(capacity: 1)
            )
            if mode == "query" {
                return (
                    signer,
                    try signer.presign(
                        request,
                        at: time,
                        expires: try c.integer("options.expires"),
                        keepingCanonicalRequest: true
                    )
                )
            }
            return (signer, try signer.sign(request, at: time, keepingCanonicalRequest: true))
        }
        // A signature must verify under the expected key (or, without one, the derived key) for the
        // expected string to sign (or, without one, the string the signer signed).
        var publicKey = signer.key.publicKey
        if c.has("expect.public_key") {
            publicKey = try [0x04] + c.hexBytes("expect.public_key.x") + c.hexBytes("expect.public_key.y")
        }
        var message = signature.stringToSignBytes
        if c.has("expect.string_to_sign") { message = Array(try c.string("expect.string_to_sign").utf8) }
        func checkVerifies(_ path: String, _ candidate: [UInt8], _ shown: String) throws(CaseFailure) {
            let valid: Bool = try c.evaluating(path) {
                try SigV4AKey.isValidSignature(candidate, for: message, publicKey: publicKey)
            }
            guard valid else { throw .mismatch(path, expected: "a signature that verifies", got: shown) }
        }
        for field in fields {
            let path = "expect.\(field)"
            switch field {
            case "canonical_request":
                try c.checkText(path, expected: try c.string(path), got: signature.canonicalRequest ?? "(not kept)")
            case "string_to_sign": try c.checkText(path, expected: try c.string(path), got: signature.stringToSign)
            case "public_key":
                let x = try c.hexBytes("expect.public_key.x")
                let y = try c.hexBytes("expect.public_key.y")
                try c.checkText("expect.public_key.x", expected: Hex.encode(x), got: Hex.encode(signer.key.publicKeyX))
                try c.checkText("expect.public_key.y", expected: Hex.encode(y), got: Hex.encode(signer.key.publicKeyY))
            case "verifies":
                guard case .bool(true) = c.value(path) else { throw .invalid(path, "expected true") }
                try checkVerifies(path, signature.signatureBytes, signature.signature)
            case "signature":
                // Under the runner's own key and string to sign, whatever else the case expects.
                let peer = try c.hexBytes(path)
                let valid: Bool = try c.evaluating(path) {
                    try SigV4AKey.isValidSignature(
                        peer,
                        for: signature.stringToSignBytes,
                        publicKey: signer.key.publicKey
                    )
                }
                guard valid else {
                    throw .mismatch(
                        path,
                        expected: "a signature that verifies under the runner's key",
                        got: try c.string(path)
                    )
                }
            case "authorization":
                guard mode == "header" else { throw .invalid(path, "only in header mode") }
                let expected = try c.string(path)
                let got = signature.authorization ?? ""
                guard let (expectedHead, _) = Self.splitSignature(expected),
                    let (head, value) = Self.splitSignature(got), head == expectedHead,
                    value == signature.signature
                else { throw .mismatch(path, expected: expected, got: got) }
            default:
                guard mode == "query" else { throw .invalid(path, "only in query mode") }
                let expected = try c.string(path)
                let got = signature.signedURI ?? ""
                let (expectedParts, gotParts) = (Self.presignedParts(expected), Self.presignedParts(got))
                guard expectedParts.signatures.count == 1, gotParts.signatures == [Array(signature.signature.utf8)],
                    expectedParts.path == gotParts.path, expectedParts.own == gotParts.own,
                    expectedParts.request == gotParts.request
                else { throw .mismatch(path, expected: expected, got: got) }
            }
        }
    }

    /// An `Authorization` value split after its one `Signature=`: the text up to it and the value.
    static func splitSignature(_ authorization: String) -> (head: [UInt8], value: String)? {
        let bytes = Array(authorization.utf8)
        let label = Array("Signature=".utf8)
        let found = bytes.ranges(of: label)
        guard found.count == 1, let range = found.first else { return nil }
        return (Array(bytes[..<range.upperBound]), String(decoding: bytes[range.upperBound...], as: UTF8.self))
    }

    /// A presigned target's path; the signer's `X-Amz-*` parameters but the signature, sorted; the
    /// request's own parameters as a canonical query; the `X-Amz-Signature` values.
    static func presignedParts(
        _ uri: String
    ) -> (path: [UInt8], own: [[UInt8]], request: [UInt8], signatures: [[UInt8]]) {
        let target = RequestTarget(uri)
        let signatureKey = Array("X-Amz-Signature=".utf8)
        let ownPrefix = Array("X-Amz-".utf8)
        var own: [[UInt8]] = []
        var request: [[UInt8]] = []
        var signatures: [[UInt8]] = []
        for pair in Array(target.query.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map(
            Array.init
        ) {
            if pair.starts(with: signatureKey) {
                signatures.append(Array(pair.dropFirst(signatureKey.count)))
            } else if pair.starts(with: ownPrefix) {
                own.append(pair)
            } else {
                request.append(pair)
            }
        }
        let canonical = CanonicalQuery.reencoded(
            String(decoding: Array(request.joined(separator: [UInt8(ascii: "&")])), as: UTF8.self)
        )
        return (Array(target.path.utf8), own.sorted { $0.lexicographicallyPrecedes($1) }, canonical, signatures)
    }
}
