import AuthCore

/// Reading the shared `request` / `credentials` objects of the `sigv4` and `oss` kinds.
extension VectorCase {
    func requestHeaders() throws(CaseFailure) -> [HTTPHeader] {
        guard let value = value("request.headers") else { throw .missing("request.headers") }
        guard case .array(let items) = value else {
            throw .invalid("request.headers", "expected an array of [name, value]")
        }
        var headers: [HTTPHeader] = []
        for (index, item) in items.enumerated() {
            guard case .array(let pair) = item, pair.count == 2, case .string(let name) = pair[0],
                case .string(let v) = pair[1]
            else { throw .invalid("request.headers[\(index)]", "expected [name, value]") }
            headers.append(HTTPHeader(name, v))
        }
        return headers
    }

    func requestBody() throws(CaseFailure) -> [UInt8] {
        if has("request.body_hex") { return try hexBytes("request.body_hex") }
        if has("request.body") { return Array(try string("request.body").utf8) }
        return []
    }

    /// The `sigv4` and `sigv4a` kinds' request, signing time, mode (`header` or `query`) and options.
    func sigV4Inputs() throws(CaseFailure) -> (
        request: SigV4Request, time: Timestamp, mode: String, options: SigV4Options
    ) {
        let method = try string("request.method")
        let uri = try string("request.uri")
        let headers = try requestHeaders()
        let body = try requestBody()
        let timestamp = try string("timestamp")
        let time: Timestamp
        do { time = try Timestamp(amzDate: timestamp) } catch { throw .invalid("timestamp", error.reason) }
        let mode = try optionalString("options.mode") ?? "header"
        guard mode == "header" || mode == "query" else { throw .invalid("options.mode", "expected header or query") }
        let options = SigV4Options(
            doubleURIEncode: try optionalBool("options.double_uri_encode") ?? true,
            normalizePath: try optionalBool("options.normalize_path") ?? true,
            addContentSHA256Header: try optionalBool("options.content_sha256_header") ?? false,
            omitSessionToken: try optionalBool("options.omit_session_token") ?? false
        )
        let payload: SigV4Payload
        switch try optionalString("options.payload_hash") ?? "hash" {
        case "hash": payload = .bytes(body)
        case "unsigned": payload = .unsigned
        case let hex: payload = .precomputedHash(hex)
        }
        return (SigV4Request(method: method, target: uri, headers: headers, payload: payload), time, mode, options)
    }

    func credentials() throws(CaseFailure) -> Credentials {
        let id = try string("credentials.access_key_id")
        let secret = try string("credentials.secret_access_key")
        let token = try optionalString("credentials.session_token")
        do { return try Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token) } catch {
            throw .invalid("credentials", error.reason)
        }
    }

    /// Compares a signed URI exactly, falling back to path + order-insensitive parameters (vectors.md
    /// `sigv4` convention 5 allows either).
    func checkSignedURI(_ field: String, expected: String, got: String) throws(CaseFailure) {
        if expected == got { return }
        func split(_ uri: String) -> ([UInt8], [[UInt8]]) {
            let target = RequestTarget(uri)
            let pairs =
                target.query.isEmpty ? [] : Array(target.query.utf8).split(separator: UInt8(ascii: "&")).map(Array.init)
            return (Array(target.path.utf8), pairs.sorted { $0.lexicographicallyPrecedes($1) })
        }
        let (ep, eq) = split(expected)
        let (gp, gq) = split(got)
        guard ep == gp, eq == gq else { throw .mismatch(field, expected: expected, got: got) }
    }
}
