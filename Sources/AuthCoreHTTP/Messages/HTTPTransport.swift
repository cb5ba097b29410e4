public import AuthCore

/// Sends HTTP requests. The default implementation is ``HTTP1Transport`` (``URLSessionTransport`` is the alternative); tests and apps can
/// supply their own.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response (any status), following the request's
    /// ``HTTPRequest/redirects``, ``HTTPRequest/maximumResponseBytes`` and
    /// ``HTTPRequest/allowsInsecureHTTP``.
    ///
    /// - Throws: `AuthCoreError.Code.transportFailure` when no response arrives.
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse

    /// Whether this transport sends ``HTTPRequest/secretBody`` (through
    /// ``HTTPRequest/withBodyBytes(_:)``); false by default, so a transport of your own that reads
    /// only ``HTTPRequest/body`` is given bodies there (unwiped copies of their secrets).
    var sendsSecretBodies: Bool { get }

    /// Whether this transport sends ``HTTPRequest/bodyStream`` and honours
    /// ``HTTPRequest/responseSink``; false by default (`SignedRequestSender` then refuses such a
    /// request rather than send an empty body).
    var streamsBodies: Bool { get }
}

extension HTTPTransport {
    /// False: the body of every request is in ``HTTPRequest/body``.
    public var sendsSecretBodies: Bool { false }
    /// False: no streamed bodies.
    public var streamsBodies: Bool { false }
}

extension HTTPRequest {
    /// This request for `transport`: a ``secretBody`` moves into ``body`` (an unwiped copy) when the
    /// transport does not send secret bodies.
    package func readied(for transport: any HTTPTransport) -> HTTPRequest {
        guard let secretBody, !transport.sendsSecretBodies else { return self }
        var plain = self
        plain.body = secretBody.withUnsafeBytes { Array($0) }
        plain.secretBody = nil
        return plain
    }
}
