import AuthCore

/// `aliyun-rpc`: Alibaba Cloud RPC signature 1.0 over a given parameter set (vectors.md).
struct AliyunRPCVectorKind: VectorKind {
    let name = "aliyun-rpc"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["canonicalized_query", "string_to_sign", "signature"])
        let method = try c.string("method")
        guard case .object(let members)? = c.value("parameters") else {
            throw .invalid("parameters", "expected an object of strings")
        }
        var parameters: [(key: String, value: String)] = []
        for key in members.keys.sorted() {
            guard case .string(let value)? = members[key] else {
                throw .invalid("parameters.\(key)", "expected a string")
            }
            parameters.append((key, value))
        }
        let secret = try c.string("access_key_secret")
        let signature: AliyunRPCSignature = try c.evaluating("parameters", withCode: true) {
            // Only the secret signs; the id travels as the AccessKeyId parameter.
            let id = parameters.first { $0.key == "AccessKeyId" }?.value ?? "vector"
            return try AliyunRPCSigner(credentials: Credentials(accessKeyId: id, secretAccessKey: secret)).sign(
                method: method,
                parameters: parameters
            )
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "canonicalized_query": try c.checkText(path, expected: expected, got: signature.canonicalizedQuery)
            case "string_to_sign": try c.checkText(path, expected: expected, got: signature.stringToSign)
            default: try c.checkText(path, expected: expected, got: signature.signature)
            }
        }
    }
}

/// `aliyun-acs3`: Alibaba Cloud `ACS3-HMAC-SHA256` (vectors.md). The request's `x-acs-date`,
/// `x-acs-signature-nonce` and `x-acs-security-token` become the signer's time, nonce and session
/// token, and a given `x-acs-content-sha256` its precomputed payload hash: the signer writes those
/// headers itself.
struct AliyunACS3VectorKind: VectorKind {
    let name = "aliyun-acs3"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "canonical_request", "string_to_sign", "signature", "authorization",
        ])
        var headers = try c.requestHeaders()
        func take(_ name: String) -> String? {
            guard let index = headers.firstIndex(where: { equalIgnoringASCIICase($0.name.utf8, name.utf8) }) else {
                return nil
            }
            return headers.remove(at: index).value
        }
        guard let dateText = take("x-acs-date") else { throw .missing("request.headers: x-acs-date") }
        guard let nonce = take("x-acs-signature-nonce") else {
            throw .missing("request.headers: x-acs-signature-nonce")
        }
        let token = take("x-acs-security-token")
        let body = try c.requestBody()
        let payload: SigV4Payload = take("x-acs-content-sha256").map { .precomputedHash($0) } ?? .bytes(body)
        let id = try c.string("credentials.access_key_id")
        let secret = try c.string("credentials.access_key_secret")
        let request = SigV4Request(
            method: try c.string("request.method"),
            target: try c.string("request.uri"),
            headers: headers,
            payload: payload
        )
        let signature: AliyunACS3Signature = try c.evaluating("request", withCode: true) {
            let time = try Timestamp(iso8601: dateText)
            let credentials = try Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token)
            return try AliyunACS3Signer(credentials: credentials).sign(
                request,
                at: time,
                nonce: nonce,
                keepingCanonicalRequest: true
            )
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "canonical_request":
                try c.checkText(path, expected: expected, got: signature.canonicalRequest ?? "(not kept)")
            case "string_to_sign": try c.checkText(path, expected: expected, got: signature.stringToSign)
            case "signature": try c.checkText(path, expected: expected, got: signature.signature)
            default: try c.checkText(path, expected: expected, got: signature.authorization)
            }
        }
    }
}
