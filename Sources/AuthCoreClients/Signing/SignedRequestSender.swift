public import AuthCore

/// Signs and sends requests, correcting for clock skew once per request.
///
/// The signing time is the injected clock plus the offset learned for the endpoint host. When the
/// response is a 4xx whose `Date` header is more than the tracker's threshold away from the signing
/// time, the offset is learned, the request is signed again and sent once more.
public struct SignedRequestSender: Sendable {
    /// The transport.
    public let transport: any HTTPTransport
    /// The local clock.
    public let clock: any SigningClock
    /// The skew tracker, or nil to turn correction off.
    public let skew: ClockSkewTracker?

    /// A sender.
    public init(transport: any HTTPTransport = URLSessionTransport(), clock: any SigningClock = SystemClock(),
                skew: ClockSkewTracker? = .shared) {
        self.transport = transport
        self.clock = clock
        self.skew = skew
    }

    /// The time to sign at for `host` now: the clock plus the learned offset.
    public func signingTime(for host: String) -> Timestamp {
        clock.now().adding(seconds: skew?.offset(for: host) ?? 0)
    }

    /// Signs `request` with `sign` at the corrected time, sends it, and on a skew refusal signs and
    /// sends it once more.
    public func send(
        _ request: HTTPRequest, sign: (HTTPRequest, Timestamp) throws(AuthCoreError) -> HTTPRequest
    ) async throws(AuthCoreError) -> HTTPResponse {
        let host = request.url.host
        let firstTime = signingTime(for: host)
        let response = try await transport.send(try sign(request, firstTime))
        guard !response.isSuccess, let skew,
            skew.learn(from: response, host: host, signedAt: firstTime, localNow: clock.now()) != nil
        else { return response }
        return try await transport.send(try sign(request, signingTime(for: host)))
    }
}

extension HTTPRequest {
    /// The request as SigV4 sees it (with `Host` from the URL unless given).
    public func sigV4Request(payload: SigV4Payload? = nil) -> SigV4Request {
        var headers = self.headers
        if headers.first(named: "Host") == nil { headers.insert(HTTPHeader("Host", url.hostHeader), at: 0) }
        return SigV4Request(method: method, target: url.target, headers: headers, payload: payload ?? .bytes(body))
    }

    /// A copy with the signature's headers set (replacing earlier ones of the same names).
    public func adding(_ signature: SigV4Signature) -> HTTPRequest { replacingHeaders(with: signature.headers) }

    /// A copy with OSS signature headers set.
    public func adding(_ signature: OSSSignature) -> HTTPRequest { replacingHeaders(with: signature.headers) }
}
