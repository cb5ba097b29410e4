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
    /// When the whole message takes at most ``coalescedMessageLimit`` bytes, it goes out in one
    /// write, copied into wiping storage (the proxy's credentials and the body may be secrets): a
    /// typical API request, proxied or not, leaves as one segment (one TLS record), so the server
    /// does not wake for the head alone and then wait again for its body. A larger message is
    /// written head, then body (from where it is: a large body is not copied).
    func write(
        to connection: HTTP1Connection,
        body: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        wroteAnything: inout Bool
    ) throws(AuthCoreError) {
        let authorization = proxy?.authorization
        let lineEnd = Self.lineEnd
        let credentialsCount =
            authorization.map { Self.credentialsLabel.utf8CodeUnitCount + $0.count + lineEnd.utf8CodeUnitCount } ?? 0
        let headCount = fields.count + credentialsCount + lineEnd.utf8CodeUnitCount
        let bodyInHeadWrite = headCount + body.count <= Self.coalescedMessageLimit
        var message = SecureBytes(reservingCapacity: bodyInHeadWrite ? headCount + body.count : headCount)
        fields.withUnsafeBytes { message.append(contentsOf: $0) }
        if let authorization {
            Self.credentialsLabel.withUTF8Buffer { message.append(contentsOf: UnsafeRawBufferPointer($0)) }
            authorization.withUnsafeBytes { message.append(contentsOf: $0) }
            lineEnd.withUTF8Buffer { message.append(contentsOf: UnsafeRawBufferPointer($0)) }
        }
        lineEnd.withUTF8Buffer { message.append(contentsOf: UnsafeRawBufferPointer($0)) }
        if bodyInHeadWrite { message.append(contentsOf: body) }
        try message.withUnsafeBytes { (raw) throws(AuthCoreError) in
            try connection.write(raw, wroteAnything: &wroteAnything)
        }
        if !bodyInHeadWrite, !body.isEmpty { try connection.write(body, wroteAnything: &wroteAnything) }
    }

    /// RFC 9110 §11.7.2's field, written with the proxy's credentials from their wiping storage.
    private static let credentialsLabel: StaticString = "Proxy-Authorization: "
    /// A field's end, and the empty line that ends the head.
    private static let lineEnd: StaticString = "\r\n"

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
