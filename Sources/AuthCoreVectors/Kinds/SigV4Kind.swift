import AuthCore

/// `sigv4`: AWS Signature Version 4 (vectors.md conventions), header and query modes.
struct SigV4VectorKind: VectorKind {
    let name = "sigv4"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "canonical_request", "string_to_sign", "signature", "authorization", "signed_uri",
        ])
        let (request, time, mode, options) = try c.sigV4Inputs()
        let credentials = try c.credentials()
        let region = try c.string("region")
        let service = try c.string("service")
        let signature: SigV4Signature = try c.evaluating("request", withCode: true) {
            let signer = try SigV4Signer(
                credentials: credentials,
                region: region,
                service: service,
                options: options,
                keyCache: SigningKeyCache(capacity: 4)
            )
            if mode == "query" {
                return try signer.presign(
                    request,
                    at: time,
                    expires: try c.integer("options.expires"),
                    keepingCanonicalRequest: true
                )
            }
            return try signer.sign(request, at: time, keepingCanonicalRequest: true)
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "canonical_request":
                try c.checkText(path, expected: expected, got: signature.canonicalRequest ?? "(not kept)")
            case "string_to_sign": try c.checkText(path, expected: expected, got: signature.stringToSign)
            case "signature": try c.checkText(path, expected: expected, got: signature.signature)
            case "authorization":
                guard mode == "header" else { throw .invalid(path, "only in header mode") }
                try c.checkText(path, expected: expected, got: signature.authorization ?? "")
            default:
                guard mode == "query" else { throw .invalid(path, "only in query mode") }
                try c.checkSignedURI(path, expected: expected, got: signature.signedURI ?? "")
            }
        }
    }
}
