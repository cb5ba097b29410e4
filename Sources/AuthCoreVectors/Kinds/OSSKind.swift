import AuthCore

/// `oss`: Alibaba Cloud OSS V1 and V4 signatures, header and URL modes (vectors.md conventions).
struct OSSVectorKind: VectorKind {
    let name = "oss"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "string_to_sign", "canonical_request", "signature", "authorization", "signed_uri",
        ])
        let versionText = try c.string("version")
        guard let version = OSSSigner.Version(rawValue: versionText) else {
            throw .invalid("version", "expected v1 or v4")
        }
        let mode = try c.string("options.mode")
        guard mode == "header" || mode == "query" else { throw .invalid("options.mode", "expected header or query") }
        var request = OSSRequest(
            method: try c.string("request.method"),
            target: try c.string("request.uri"),
            headers: try c.requestHeaders(),
            bucket: try c.optionalString("request.bucket"),
            key: try c.string("request.key")
        )
        if case .array(let names)? = c.value("options.additional_headers") {
            request.additionalHeaders = names.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        let credentials = try c.credentials()
        let region = version == .v4 ? try c.string("region") : try c.optionalString("region")
        let timestamp = try c.string("timestamp")
        let signature: OSSSignature = try c.evaluating("request", withCode: true) {
            let signer = try OSSSigner(
                credentials: credentials,
                version: version,
                region: region,
                keyCache: SigningKeyCache(capacity: 2)
            )
            switch (version, mode) {
            case (.v1, "header"):
                return try signer.sign(request, at: try Timestamp(rfc1123: timestamp), keepingCanonicalRequest: true)
            case (.v1, _):
                guard let epoch = Int64(timestamp) else {
                    throw CaseFailure.invalid("timestamp", "expected epoch seconds")
                }
                return try signer.presignV1(request, expiresAt: Timestamp(secondsSince1970: epoch))
            case (.v4, "header"):
                return try signer.sign(request, at: try Timestamp(amzDate: timestamp), keepingCanonicalRequest: true)
            default:
                return try signer.presign(
                    request,
                    at: try Timestamp(amzDate: timestamp),
                    expires: try c.integer("options.expires"),
                    keepingCanonicalRequest: true
                )
            }
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "string_to_sign": try c.checkText(path, expected: expected, got: signature.stringToSign)
            case "canonical_request":
                try c.checkText(path, expected: expected, got: signature.canonicalRequest ?? "(none for v1)")
            case "signature": try c.checkText(path, expected: expected, got: signature.signature)
            case "authorization":
                try c.checkText(path, expected: expected, got: signature.authorization ?? "(none in URL mode)")
            default: try c.checkSignedURI(path, expected: expected, got: signature.signedURI ?? "(none in header mode)")
            }
        }
    }
}
