public import AuthCore

/// Sends HTTP requests. The default implementation is ``HTTP1Transport`` (``URLSessionTransport`` is the alternative);
/// tests and apps can
/// supply their own.
///
/// A transport switches on the request's ``HTTPBody``: it sends a body in memory —
/// ``HTTPBody/secret(_:)`` from its wiping storage — through ``HTTPBody/withInMemoryBytes(_:)`` (not
/// ``HTTPBody/plainBytes``, which is empty for a secret), and streams ``HTTPBody/stream(_:)`` when
/// ``streamsBodies`` is true (else refuses it).
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response (any status), following the request's
    /// ``HTTPRequest/redirects``, ``HTTPRequest/maximumResponseBytes`` and
    /// ``HTTPRequest/allowsInsecureHTTP``.
    ///
    /// - Throws: `AuthCoreError.Code.transportFailure` when no response arrives.
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse

    /// Whether this transport sends a ``HTTPBody/stream(_:)`` body and honours
    /// ``HTTPRequest/responseSink``; false by default (`SignedRequestSender` then refuses such a
    /// request rather than send an empty body).
    var streamsBodies: Bool { get }
}

extension HTTPTransport {
    /// False: no streamed bodies.
    public var streamsBodies: Bool { false }
}
