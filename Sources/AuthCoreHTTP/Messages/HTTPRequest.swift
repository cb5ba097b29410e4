public import AuthCore

/// An HTTP request as the clients send it.
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method.
    public var method: String
    /// The absolute URL.
    public var url: RequestURL
    /// Header fields, in order.
    public var headers: [HTTPHeader]
    /// The body: bytes, a secret in wiping storage (the `PASSWORD` of `USER_PASSWORD_AUTH`), or a
    /// stream sent as it is produced (a file, an aws-chunked upload; ``HTTPTransport/streamsBodies``).
    public var body: HTTPBody
    /// Whether a successful answer carries secrets (a secret key): ``HTTP1Transport`` and
    /// ``URLSessionTransport`` then deliver its body as ``HTTPBody/secret(_:)``, in wiping storage.
    public var answerCarriesSecrets = false
    /// Redirects: refused unless the caller opts in for an unsigned request (``NetworkPolicy``).
    public var redirects: RedirectPolicy
    /// The most response-body bytes accepted, enforced while receiving; a larger `Content-Length`
    /// is refused before the body is read.
    public var maximumResponseBytes: Int
    /// Whether plain `http` to a host that is not loopback may be used (off by default).
    public var allowsInsecureHTTP: Bool
    /// Where the body of a 2xx answer goes as it arrives (a file, a consumer) instead of
    /// ``HTTPResponse/body``, still capped by ``maximumResponseBytes``. ``HTTP1Transport`` honours
    /// it; other transports refuse it.
    public var responseSink: HTTPResponseSink?

    /// A request.
    public init(
        method: String,
        url: RequestURL,
        headers: [HTTPHeader] = [],
        body: HTTPBody = .empty,
        redirects: RedirectPolicy = .refuse,
        maximumResponseBytes: Int = NetworkPolicy.defaultMaximumResponseBytes,
        allowsInsecureHTTP: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.redirects = redirects
        self.maximumResponseBytes = maximumResponseBytes
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// A request whose body is `body`'s bytes.
    public init(
        method: String,
        url: RequestURL,
        headers: [HTTPHeader] = [],
        body: [UInt8],
        redirects: RedirectPolicy = .refuse,
        maximumResponseBytes: Int = NetworkPolicy.defaultMaximumResponseBytes,
        allowsInsecureHTTP: Bool = false
    ) {
        self.init(
            method: method,
            url: url,
            headers: headers,
            body: .bytes(body),
            redirects: redirects,
            maximumResponseBytes: maximumResponseBytes,
            allowsInsecureHTTP: allowsInsecureHTTP
        )
    }

    /// Method, origin, header names and body size: bodies carry passwords and tokens, URLs can carry
    /// tokens in their query, and credential headers are redacted.
    public var description: String {
        "HTTPRequest(\(method) \(url.scheme)://\(url.host), headers: \(headers.map(\.name).joined(separator: ", ")), body: \(body))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "origin": "\(url.scheme)://\(url.host)", "headers": headers, "body": body.description,
            ],
            displayStyle: .struct
        )
    }
}
