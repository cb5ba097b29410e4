public import AuthCore

/// Who signs in OSS **self-signed mode**: given what a request needs signed (`OSSSignatureRequest`:
/// the string to sign, and for V4 its scope and canonical request), return the signature — the app
/// never holds a key. ``URLSignatureProvider`` asks an app server; on that server an
/// `OSSSigningAuthority` checks the request against its policy before signing.
public protocol OSSSignatureProvider: Sendable {
    /// The signature of `request`, with the key id it was made with.
    func signature(for request: OSSSignatureRequest) async throws(AuthCoreError) -> OSSProvidedSignature
}

/// An ``OSSSignatureProvider`` that posts each request to an app server:
/// `POST url` with JSON `{"version":"v1","stringToSign":…}` or
/// `{"version":"v4","stringToSign":…,"date":"YYYYMMDD","region":…,"canonicalRequest":…}`, answered `200`
/// with `{"accessKeyId":…,"signature":…}`. Any other answer is an error. The app authenticates
/// itself with `headers` (its own session token, say); redirects are never followed.
public struct URLSignatureProvider: OSSSignatureProvider {
    /// The app server's signing endpoint.
    public let url: RequestURL
    /// Headers sent with every request (the app's credentials for its own server).
    public let headers: [HTTPHeader]
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let transport: any HTTPTransport

    /// A provider for `url`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for plain http to a host that is not loopback
    ///   without `allowInsecureHTTP`.
    public init(
        url: RequestURL,
        headers: [HTTPHeader] = [],
        transport: any HTTPTransport = HTTP1Transport(),
        allowInsecureHTTP: Bool = false
    )
        throws(AuthCoreError)
    {
        try NetworkPolicy.requireSecureTransport(url, allowInsecureHTTP: allowInsecureHTTP)
        self.url = url
        self.headers = headers
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    public func signature(for request: OSSSignatureRequest) async throws(AuthCoreError) -> OSSProvidedSignature {
        let body = try ServiceJSON.encode(request, keys: .asDeclared)
        let response = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: url,
                headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")]
                    + headers,
                body: body,
                maximumResponseBytes: 65_536,
                allowsInsecureHTTP: allowInsecureHTTP
            )
        )
        guard response.status == 200 else {
            let error = ServiceErrorBody(response: response)
            throw AuthCoreError(
                serviceErrorType: error.code ?? "HTTP\(response.status)",
                message: error.message ?? "the signer answered \(response.status)",
                httpStatus: response.status
            )
        }
        let answer = try ServiceJSON.decode(
            AppServerWire.OSSSignatureAnswer.self,
            from: response.body.plainBytes,
            context: "signer answer",
            keys: .asDeclared
        )
        return OSSProvidedSignature(accessKeyId: answer.accessKeyId, signature: answer.signature)
    }
}

/// An app server's `OSSSigningAuthority` used in process (the server's own requests, tests),
/// on a clock.
public struct AuthoritySignatureProvider: OSSSignatureProvider {
    let authority: OSSSigningAuthority
    let clock: any SigningClock

    /// A provider signing with `authority` at `clock`'s time.
    public init(_ authority: OSSSigningAuthority, clock: any SigningClock = SystemClock()) {
        self.authority = authority
        self.clock = clock
    }

    public func signature(for request: OSSSignatureRequest) async throws(AuthCoreError) -> OSSProvidedSignature {
        try authority.sign(request, at: clock.now())
    }
}

extension OSSDetachedSigner {
    /// Signs `request` for the `Authorization` header through `provider` (self-signed mode).
    public func sign(
        _ request: OSSRequest,
        at time: Timestamp,
        provider: some OSSSignatureProvider
    ) async throws(AuthCoreError) -> OSSSignature {
        let pending = try prepare(request, at: time)
        return try complete(pending, with: try await provider.signature(for: OSSSignatureRequest(pending)))
    }

    /// Signs a URL valid for `expires` seconds through `provider` (V4 needs ``accessKeyId``).
    public func presign(
        _ request: OSSRequest,
        at time: Timestamp,
        expires: Int,
        provider: some OSSSignatureProvider
    ) async throws(AuthCoreError)
        -> OSSSignature
    {
        let pending = try preparePresigned(request, at: time, expires: expires)
        return try complete(pending, with: try await provider.signature(for: OSSSignatureRequest(pending)))
    }
}
