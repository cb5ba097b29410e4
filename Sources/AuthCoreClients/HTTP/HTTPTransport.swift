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
    /// Redirects: refused unless the caller opts in for an unsigned request (``NetworkPolicy``).
    public var redirects: RedirectPolicy
    /// The most response-body bytes accepted, enforced while receiving; a larger `Content-Length`
    /// is refused before the body is read.
    public var maximumResponseBytes: Int
    /// Whether plain `http` to a host that is not loopback may be used (off by default).
    public var allowsInsecureHTTP: Bool

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

    /// Method, origin, header names and body size: bodies carry passwords and tokens, URLs can carry
    /// tokens in their query, and credential headers are redacted.
    public var description: String {
        "HTTPRequest(\(method) \(url.scheme)://\(url.host), headers: \(headers.map(\.name).joined(separator: ", ")), body \(body.count) bytes)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "origin": "\(url.scheme)://\(url.host)", "headers": headers, "bodyByteCount": body.count,
            ], displayStyle: .struct)
    }
}

/// An HTTP response.
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Status, header names and body size: bodies carry tokens and secret keys.
    public var description: String {
        "HTTPResponse(\(status), headers: \(headers.map(\.name).joined(separator: ", ")), body \(body.count) bytes)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headers": headers, "bodyByteCount": body.count], displayStyle: .struct)
    }
}

/// Sends HTTP requests. The default implementation is ``HTTP1Transport`` (``URLSessionTransport`` is the alternative); tests and apps can
/// supply their own.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response (any status), following the request's
    /// ``HTTPRequest/redirects``, ``HTTPRequest/maximumResponseBytes`` and
    /// ``HTTPRequest/allowsInsecureHTTP``.
    ///
    /// - Throws: `AuthCoreError.Code.transportFailure` when no response arrives.
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse
}
