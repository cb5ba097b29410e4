import AuthCore

/// `sigv4`: AWS Signature Version 4 (vectors.md conventions), header and query modes.
struct SigV4VectorKind: VectorKind {
    let name = "sigv4"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["canonical_request", "string_to_sign", "signature", "authorization", "signed_uri"])
        let method = try c.string("request.method")
        let uri = try c.string("request.uri")
        let headers = try c.requestHeaders()
        let body = try c.requestBody()
        let credentials = try c.credentials()
        let region = try c.string("region")
        let service = try c.string("service")
        let time: Timestamp
        let timestamp = try c.string("timestamp")
        do { time = try Timestamp(amzDate: timestamp) } catch { throw .invalid("timestamp", error.reason) }
        let mode = try c.optionalString("options.mode") ?? "header"
        guard mode == "header" || mode == "query" else { throw .invalid("options.mode", "expected header or query") }
        let options = SigV4Options(
            doubleURIEncode: try c.optionalBool("options.double_uri_encode") ?? true,
            normalizePath: try c.optionalBool("options.normalize_path") ?? true,
            addContentSHA256Header: try c.optionalBool("options.content_sha256_header") ?? false,
            omitSessionToken: try c.optionalBool("options.omit_session_token") ?? false)
        let payload: SigV4Payload
        switch try c.optionalString("options.payload_hash") ?? "hash" {
        case "hash": payload = .bytes(body)
        case "unsigned": payload = .unsigned
        case let hex: payload = .precomputedHash(hex)
        }
        let request = SigV4Request(method: method, target: uri, headers: headers, payload: payload)
        let signature: SigV4Signature = try c.evaluating("request", withCode: true) {
            let signer = try SigV4Signer(
                credentials: credentials, region: region, service: service, options: options, keyCache: SigningKeyCache(capacity: 4))
            if mode == "query" {
                return try signer.presign(request, at: time, expires: try c.integer("options.expires"), keepingCanonicalRequest: true)
            }
            return try signer.sign(request, at: time, keepingCanonicalRequest: true)
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "canonical_request": try c.checkText(path, expected: expected, got: signature.canonicalRequest ?? "(not kept)")
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
