import AuthCore

/// `sigv4a`: AWS SigV4a (`AWS4-ECDSA-P256-SHA256`, vectors.md), header and query modes. ECDSA
/// signatures are randomized: the runner signs, then checks that its signature verifies under the
/// expected public key for the expected string to sign, and that the key it derived is that key.
///
/// Three more expectations, for vectors from another signer (awscrt; an addition to vectors.md):
/// - `signature`: that signer's signature (hex DER), which must verify under the key (`public_key`,
///   or the one the runner derived) for the string to sign (`string_to_sign`, or the runner's own);
/// - `authorization` (header mode): equal to the runner's but for the `Signature=` value;
/// - `signed_uri` (query mode): the same path, and the same parameters but `X-Amz-Signature`, each
///   key and value compared canonically (decoded, then encoded as in the canonical query).
struct SigV4AVectorKind: VectorKind {
    let name = "sigv4a"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "canonical_request", "string_to_sign", "public_key", "verifies", "signature", "authorization", "signed_uri",
        ])
        let (request, time, mode, options) = try c.sigV4Inputs()
        let credentials = try c.credentials()
        let regionSet = Array(try c.string("region_set").utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let service = try c.string("service")
        let (signer, signature): (SigV4ASigner, SigV4ASignature) = try c.evaluating("request", withCode: true) {
            let signer = try SigV4ASigner(
                credentials: credentials, regionSet: regionSet, service: service, options: options, keyCache: SigV4AKeyCache(capacity: 1))
            if mode == "query" {
                return (signer, try signer.presign(request, at: time, expires: try c.integer("options.expires"), keepingCanonicalRequest: true))
            }
            return (signer, try signer.sign(request, at: time, keepingCanonicalRequest: true))
        }
        // A signature must verify under the expected key (or, without one, the derived key) for the
        // expected string to sign (or, without one, the string the signer signed).
        var publicKey = signer.key.publicKey
        if c.has("expect.public_key") { publicKey = try [0x04] + c.hexBytes("expect.public_key.x") + c.hexBytes("expect.public_key.y") }
        var message = signature.stringToSignBytes
        if c.has("expect.string_to_sign") { message = Array(try c.string("expect.string_to_sign").utf8) }
        func checkVerifies(_ path: String, _ candidate: [UInt8], _ shown: String) throws(CaseFailure) {
            let valid: Bool = try c.evaluating(path) { try SigV4AKey.isValidSignature(candidate, for: message, publicKey: publicKey) }
            guard valid else { throw .mismatch(path, expected: "a signature that verifies", got: shown) }
        }
        for field in fields {
            let path = "expect.\(field)"
            switch field {
            case "canonical_request": try c.checkText(path, expected: try c.string(path), got: signature.canonicalRequest ?? "(not kept)")
            case "string_to_sign": try c.checkText(path, expected: try c.string(path), got: signature.stringToSign)
            case "public_key":
                let x = try c.hexBytes("expect.public_key.x")
                let y = try c.hexBytes("expect.public_key.y")
                try c.checkText("expect.public_key.x", expected: Hex.encode(x), got: Hex.encode(signer.key.publicKeyX))
                try c.checkText("expect.public_key.y", expected: Hex.encode(y), got: Hex.encode(signer.key.publicKeyY))
            case "verifies":
                guard case .bool(true) = c.value(path) else { throw .invalid(path, "expected true") }
                try checkVerifies(path, signature.signatureBytes, signature.signature)
            case "signature": try checkVerifies(path, try c.hexBytes(path), try c.string(path))
            case "authorization":
                guard mode == "header" else { throw .invalid(path, "only in header mode") }
                let expected = try c.string(path)
                try c.checkText(path, expected: Self.withoutSignature(expected), got: Self.withoutSignature(signature.authorization ?? ""))
            default:
                guard mode == "query" else { throw .invalid(path, "only in query mode") }
                let expected = try c.string(path)
                let got = signature.signedURI ?? ""
                guard Self.canonicalURI(expected) == Self.canonicalURI(got) else { throw .mismatch(path, expected: expected, got: got) }
            }
        }
    }

    /// An `Authorization` value up to and including `Signature=`.
    static func withoutSignature(_ authorization: String) -> String {
        let bytes = Array(authorization.utf8)
        guard let label = bytes.firstRange(of: Array("Signature=".utf8)) else { return authorization }
        return String(decoding: bytes[..<label.upperBound], as: UTF8.self)
    }

    /// A presigned target's path, and its canonical query without `X-Amz-Signature`.
    static func canonicalURI(_ uri: String) -> [[UInt8]] {
        let target = RequestTarget(uri)
        let signature = Array("X-Amz-Signature".utf8)
        return [Array(target.path.utf8), CanonicalQuery.reencoded(target.query, excluding: { $0.elementsEqual(signature) })]
    }
}
