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
    /// Retries of throttled or failed calls in `sendExpectingSuccess` (its callers, the
    /// identity and STS clients, send only calls that are safe to repeat).
    public let retryPolicy: RetryPolicy
    let random: any SecureRandomGenerator

    /// A sender.
    public init(
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        skew: ClockSkewTracker? = .shared,
        retryPolicy: RetryPolicy = .standard,
        random: any SecureRandomGenerator = SystemRandom()
    ) {
        self.transport = transport
        self.clock = clock
        self.skew = skew
        self.retryPolicy = retryPolicy
        self.random = random
    }

    /// The time to sign at for `host` now: the clock plus the learned offset.
    public func signingTime(for host: String) -> Timestamp {
        clock.now().adding(seconds: skew?.offset(for: host) ?? 0)
    }

    /// Signs `request` with `sign` at the corrected time, sends it, and on a skew refusal signs and
    /// sends it once more.
    ///
    /// `sign` may be asynchronous (a self-signed request asks its app server for each signature).
    public func send(
        _ request: HTTPRequest,
        sign: (HTTPRequest, Timestamp) async throws(AuthCoreError) -> HTTPRequest
    ) async throws(AuthCoreError) -> HTTPResponse {
        let host = request.url.host
        let firstTime = signingTime(for: host)
        let signed = try await sign(request, firstTime)
        guard (!signed.body.isStream && signed.responseSink == nil) || transport.streamsBodies else {
            throw AuthCoreError(.unsupported, "\(type(of: transport)) does not stream bodies (HTTP1Transport does)")
        }
        let response = try await transport.send(signed)
        guard !response.isSuccess, let skew,
            let learned = skew.learn(from: response, host: host, signedAt: firstTime, localNow: clock.now())
        else { return response }
        AuthCoreLog.log(
            .notice,
            "authcore.http",
            "clock skew learned, signing again",
            ["host": host, "offsetSeconds": "\(learned)"]
        )
        return try await transport.send(try await sign(request, signingTime(for: host)))
    }
}

extension SignedRequestSender {
    /// Presigns `request` at the corrected time for its host (the clock plus the learned offset).
    ///
    /// A learned offset never lets the URL outlive the credentials: when the corrected time is behind
    /// the local clock, the expiry is also checked from the local clock (the later of the two), so a
    /// server that claims an earlier time cannot stretch the URL past the credentials' expiration.
    ///
    /// - Throws: as `SigV4Signer.presign(_:at:expires:policy:keepingCanonicalRequest:)`.
    public func presign(
        _ request: HTTPRequest,
        signer: SigV4Signer,
        expires: Int,
        policy: SigV4Signer.ExpiryPolicy = .strict,
        payload: SigV4Payload? = nil
    ) throws(AuthCoreError) -> SigV4Signature {
        let local = clock.now()
        let corrected = signingTime(for: request.url.host)
        var allowed = expires
        if corrected < local, let expiration = signer.credentials.expiration {
            let remaining = local.seconds(until: expiration)
            guard remaining > 0 else {
                throw AuthCoreError(.expired, "the credentials expired at \(expiration.iso8601)")
            }
            if Int64(allowed) > remaining {
                guard policy == .clampToCredentials else {
                    throw AuthCoreError(
                        .expired,
                        "a \(expires) s presigned URL would outlive the credentials, which expire at \(expiration.iso8601) (\(remaining) s left by the local clock)"
                    )
                }
                allowed = Int(remaining)  // 0 < remaining < allowed: fits Int
            }
        }
        return try signer.presign(
            request.sigV4Request(payload: payload),
            at: corrected,
            expires: allowed,
            policy: policy
        )
    }
}

extension HTTPRequest {
    /// The request as SigV4 sees it (with `Host` from the URL unless given); without `payload`, the
    /// body's hash, or UNSIGNED-PAYLOAD for a streamed body.
    public func sigV4Request(payload: SigV4Payload? = nil) -> SigV4Request {
        var headers = self.headers
        if headers.first(named: "Host") == nil { headers.insert(HTTPHeader("Host", url.hostHeader), at: 0) }
        return SigV4Request(
            method: method,
            target: url.requestTarget,
            headers: headers,
            payload: payload ?? bodyPayload
        )
    }

    /// The request as the OSS signers see it (with `Host` from the URL unless given), for `bucket`
    /// and the raw object `key`.
    public func ossRequest(bucket: String?, key: String, additionalHeaders: [String] = []) -> OSSRequest {
        var headers = self.headers
        if headers.first(named: "Host") == nil { headers.insert(HTTPHeader("Host", url.hostHeader), at: 0) }
        var request = OSSRequest(method: method, target: url.requestTarget, headers: headers, bucket: bucket, key: key)
        request.additionalHeaders = additionalHeaders
        return request
    }

    /// The body to sign: a secret body by its hash (the secret never leaves its wiping storage).
    package var bodyPayload: SigV4Payload {
        // A streamed body cannot be hashed here: it is signed as UNSIGNED-PAYLOAD unless the caller
        // names its payload (its hash, or `.streaming` through AWSChunkedUpload).
        switch body {
        case .stream: .unsigned
        case .bytes(let bytes): .bytes(bytes)
        case .secret(let secret):
            .precomputedHash(secret.withUnsafeBytes { SHA256.hash(bufferPointer: $0) }.hexLowercased)
        }
    }

    /// A copy with the signature's headers set (replacing earlier ones of the same names).
    public func adding(_ signature: SigV4Signature) -> HTTPRequest { replacingHeaders(with: signature.headers) }

    /// A copy with the SigV4a signature's headers set (replacing earlier ones of the same names).
    public func adding(_ signature: SigV4ASignature) -> HTTPRequest { replacingHeaders(with: signature.headers) }

    /// A copy with OSS signature headers set.
    public func adding(_ signature: OSSSignature) -> HTTPRequest { replacingHeaders(with: signature.headers) }
}
