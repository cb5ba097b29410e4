public import AuthCore

/// An HTTP request as the clients send it.
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method.
    public var method: String
    /// The absolute URL.
    public var url: RequestURL
    /// Header fields, in order.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]
    /// A body that carries a secret (the `PASSWORD` of `USER_PASSWORD_AUTH`): kept in wiping
    /// storage and sent instead of ``body`` when set. The clients set it only for a transport whose
    /// ``HTTPTransport/sendsSecretBodies`` is true (which reads the body to send through
    /// ``withBodyBytes(_:)`` and ``bodyCount``); any other gets the same bytes in ``body``.
    public var secretBody: SecureBytes?
    /// Whether a successful answer carries secrets (a secret key): ``HTTP1Transport`` and
    /// ``URLSessionTransport`` then deliver its body in ``HTTPResponse/secretBody``, in wiping
    /// storage, and leave ``HTTPResponse/body`` empty.
    public var answerCarriesSecrets = false
    /// Redirects: refused unless the caller opts in for an unsigned request (``NetworkPolicy``).
    public var redirects: RedirectPolicy
    /// The most response-body bytes accepted, enforced while receiving; a larger `Content-Length`
    /// is refused before the body is read.
    public var maximumResponseBytes: Int
    /// Whether plain `http` to a host that is not loopback may be used (off by default).
    public var allowsInsecureHTTP: Bool
    /// A body sent as it is produced (a file, an aws-chunked upload), in constant memory, instead of
    /// ``body`` (which must then be empty). ``HTTP1Transport`` sends it; other transports refuse it.
    public var bodyStream: HTTPBodyStream?
    /// Where the body of a 2xx answer goes as it arrives (a file, a consumer) instead of
    /// ``HTTPResponse/body``, still capped by ``maximumResponseBytes``. ``HTTP1Transport`` honours
    /// it; other transports refuse it.
    public var responseSink: HTTPResponseSink?

    /// A request.
    public init(
        method: String, url: RequestURL, headers: [HTTPHeader] = [], body: [UInt8] = [], redirects: RedirectPolicy = .refuse,
        maximumResponseBytes: Int = NetworkPolicy.defaultMaximumResponseBytes, allowsInsecureHTTP: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.redirects = redirects
        self.maximumResponseBytes = maximumResponseBytes
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// The number of body bytes to send: of ``secretBody`` when it is set, else of ``body``.
    public var bodyCount: Int { secretBody?.count ?? body.count }

    /// Calls `work` with the body to send: ``secretBody`` when it is set, else ``body``.
    ///
    /// - Warning: Do not escape the pointer from the closure.
    public func withBodyBytes<R, E: Error>(_ work: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if let secretBody { return try secretBody.withUnsafeBytes(work) }
        return try body.withUnsafeBytesTyped(work)
    }

    /// Method, origin, header names and body size: bodies carry passwords and tokens, URLs can carry
    /// tokens in their query, and credential headers are redacted.
    public var description: String {
        let body = bodyStream.map { $0.length.map { "streamed body \($0) bytes" } ?? "streamed body" } ?? "body \(bodyCount) bytes"
        return "HTTPRequest(\(method) \(url.scheme)://\(url.host), headers: \(headers.map(\.name).joined(separator: ", ")), \(body))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "origin": "\(url.scheme)://\(url.host)", "headers": headers, "bodyByteCount": bodyCount,
            ], displayStyle: .struct)
    }
}
