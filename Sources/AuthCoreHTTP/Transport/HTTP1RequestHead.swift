import AuthCore

/// The one writer of a request head: a request's line and header block as sent — what the caller
/// gave, each field checked by HTTP's one rule (`HTTPHeader.validate`), plus `Host`
/// (unless given: a signer may have signed it), `Content-Length`, and `Connection: close` when the
/// transport keeps no connections. A plain
/// `http` request through a proxy names its target in absolute form and carries the proxy's
/// credentials (RFC 9112 §3.2.2); an `https` one goes through a tunnel (whose `CONNECT` head this
/// writes too), so its head is the origin's.
struct HTTP1RequestHead: Sendable {
    /// The head without its final empty line.
    let fields: [UInt8]
    /// The proxy whose `Proxy-Authorization` is written after the fields, from wiping storage.
    let proxy: HTTPProxy?

    /// The head of a `CONNECT` request for a tunnel to `authority` through `proxy` (RFC 9110
    /// §9.3.6; `Host` is the authority, RFC 9112 §3.2.3).
    init(connectTo authority: String, through proxy: HTTPProxy) {
        fields = Array("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n".utf8)
        self.proxy = proxy
    }

    /// The most bytes of head and body sent as one write: a TLS record's plaintext (RFC 8446
    /// §5.1), so that write is one record, all sent or none (a failed `SSL_write` reports no part).
    static let coalescedMessageLimit = 16 << 10

    /// Writes the head — the fields, the proxy's credentials, the empty line — and then `body`, the
    /// request's in-memory body (empty when there is none or it is streamed). `wroteAnything` says
    /// whether any byte went out (a failure before the first one cannot have reached the server).
    ///
    /// Without proxy credentials, when head and body together take at most
    /// ``coalescedMessageLimit`` bytes, the body goes out in the head's write, copied with it into
    /// wiping storage (the body may be a secret): a typical API request leaves as one segment (one
    /// TLS record), so the server does not wake for the head alone and then wait again for its
    /// body. A larger body, or a head with proxy credentials, is written on its own after the head.
    func write(
        to connection: HTTP1Connection,
        body: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        wroteAnything: inout Bool
    ) throws(AuthCoreError) {
        let blankLine: StaticString = "\r\n"
        if let authorization = proxy?.authorization {
            var line = SecureBytes(Array("Proxy-Authorization: ".utf8))
            authorization.withUnsafeBytes { line.append(contentsOf: $0) }
            line.append(contentsOf: Array("\r\n\r\n".utf8))
            try fields.withUnsafeBytesTyped { (raw) throws(AuthCoreError) in
                try connection.write(raw, wroteAnything: &wroteAnything)
            }
            try line.withUnsafeBytes { (raw) throws(AuthCoreError) in
                try connection.write(raw, wroteAnything: &wroteAnything)
            }
        } else if fields.count + blankLine.utf8CodeUnitCount + body.count <= Self.coalescedMessageLimit {
            var message = SecureBytes(reservingCapacity: fields.count + blankLine.utf8CodeUnitCount + body.count)
            fields.withUnsafeBytes { message.append(contentsOf: $0) }
            blankLine.withUTF8Buffer { message.append(contentsOf: UnsafeRawBufferPointer($0)) }
            message.append(contentsOf: body)
            try message.withUnsafeBytes { (raw) throws(AuthCoreError) in
                try connection.write(raw, wroteAnything: &wroteAnything)
            }
            return
        } else {
            var head = fields
            blankLine.withUTF8Buffer { head.append(contentsOf: $0) }
            try head.withUnsafeBytesTyped { (raw) throws(AuthCoreError) in
                try connection.write(raw, wroteAnything: &wroteAnything)
            }
        }
        if !body.isEmpty { try connection.write(body, wroteAnything: &wroteAnything) }
    }

    /// - Throws: `AuthCoreError.Code.malformedRequest` for a method that is not a token, a field
    ///   with a control character other than HTAB, more than one `Host`, a `Content-Length` that disagrees with the
    ///   body, or a field the
    ///   transport owns (`Connection`, `Transfer-Encoding`).
    init(_ request: HTTPRequest, proxy: HTTPProxy?, keepAlive: Bool) throws(AuthCoreError) {
        do { try HTTPHeader(request.method, "").validate() } catch {
            throw AuthCoreError(.malformedRequest, "method '\(request.method)' is not an HTTP token")
        }
        guard request.method != "CONNECT" else {
            throw AuthCoreError(.malformedRequest, "method CONNECT is the transport's own (for proxies)")
        }
        // The length sent: of the body, of a streamed body when known; nil for a chunked one.
        let bodyLength = request.body.count
        guard (bodyLength ?? 0) >= 0 else {
            throw AuthCoreError(.malformedRequest, "a streamed body's length cannot be negative")
        }
        let absoluteForm = proxy != nil && request.url.scheme == "http"
        self.proxy = absoluteForm ? proxy : nil
        var text = "\(request.method) \(absoluteForm ? request.url.absoluteString : request.url.target) HTTP/1.1\r\n"
        if request.headers.first(named: "host") == nil { text += "Host: \(request.url.hostHeader)\r\n" }
        var lengthGiven = false
        var hostGiven = false
        for header in request.headers {
            try header.validate()
            switch header.name.asciiLowercased {  // a validated token: ASCII
            case "host":
                guard !hostGiven else { throw AuthCoreError(.malformedRequest, "more than one Host header") }
                // Through a proxy the target names the host: a different Host would let the proxy
                // check one host and the origin serve another.
                guard !absoluteForm || header.value == request.url.hostHeader else {
                    throw AuthCoreError(
                        .malformedRequest,
                        "a Host header other than the URL's cannot go through a proxy"
                    )
                }
                hostGiven = true
            case "connection", "transfer-encoding", "proxy-authorization":
                throw AuthCoreError(.malformedRequest, "header '\(header.name)' is set by the transport")
            case "content-length":
                guard let length = bodyLength, header.value == String(length) else {
                    throw AuthCoreError(
                        .malformedRequest,
                        "Content-Length \(header.value) does not match the body's length"
                    )
                }
                lengthGiven = true
            default: break
            }
            text += "\(header.name): \(header.value)\r\n"
        }
        if let length = bodyLength {
            if !lengthGiven
                && (length > 0 || request.body.isStream || ["PUT", "POST", "PATCH"].contains(request.method))
            {
                text += "Content-Length: \(length)\r\n"
            }
        } else {
            text += "Transfer-Encoding: chunked\r\n"
        }
        if !keepAlive { text += "Connection: close\r\n" }  // HTTP/1.1 connections persist unless one side says so
        fields = Array(text.utf8)
    }
}
