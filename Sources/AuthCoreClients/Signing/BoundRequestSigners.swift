public import AuthCore

/// Signs OSS requests with whatever credentials are current: per request it asks a
/// ``CredentialsProvider`` (wrap a source in ``RefreshingCredentialsProvider`` and its early refresh
/// applies) or, in self-signed mode, an ``OSSSignatureProvider``; it signs at the clock-skew-corrected
/// time of its ``SignedRequestSender``, and ``send(_:bucket:key:additionalHeaders:)`` signs afresh
/// for each attempt. The app builds it once instead of a new `OSSSigner` whenever credentials change.
///
/// A presigned URL never outlives the credentials it was signed with, by the corrected clock or the
/// local one (`OSSSigner/presign(_:at:expires:keepingCanonicalRequest:)` refuses; nothing is clamped).
public struct OSSRequestSigner: Sendable {
    /// Where signatures come from.
    public enum Source: Sendable {
        /// A key (long-term or STS) from a provider, signed here.
        case credentials(any CredentialsProvider)
        /// Self-signed mode: the app server signs; `accessKeyId` is its key id (needed for V4 URLs).
        case signatureProvider(any OSSSignatureProvider, accessKeyId: String?)
    }

    /// Where signatures come from.
    public let source: Source
    /// The signature version.
    public let version: OSSSigner.Version
    /// The region (V4).
    public let region: String?
    /// The sender: transport, clock and skew correction.
    public let sender: SignedRequestSender
    let keyCache: SigningKeyCache
    let memo = SignerMemo<OSSSigner>()
    /// The source as it signs: a provider of credentials, or self-signed mode's detached signer
    /// (made once, with its checks) and the provider of signatures.
    enum Mode: Sendable {
        case local(any CredentialsProvider)
        case remote(OSSDetachedSigner, any OSSSignatureProvider)
    }
    let mode: Mode

    /// A signer.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when V4 has no region, or for a malformed key id.
    public init(
        source: Source,
        version: OSSSigner.Version = .v4,
        region: String? = nil,
        sender: SignedRequestSender = SignedRequestSender(),
        keyCache: SigningKeyCache = .shared
    ) throws(AuthCoreError) {
        try OSSSigner.checkRegion(version: version, region: region)
        switch source {
        case .credentials(let provider): mode = .local(provider)
        case .signatureProvider(let provider, let accessKeyId):
            mode = .remote(try OSSDetachedSigner(version: version, region: region, accessKeyId: accessKeyId), provider)
        }
        self.source = source
        self.version = version
        self.region = region
        self.sender = sender
        self.keyCache = keyCache
    }

    /// The signature of `request` at the corrected time for its `Host`.
    public func sign(_ request: OSSRequest) async throws(AuthCoreError) -> OSSSignature {
        let time = sender.signingTime(for: request.headers.first(named: "Host") ?? "")
        return try await sign(request, at: time)
    }

    /// A URL for `request` valid `expires` seconds from the corrected time.
    ///
    /// - Throws: `AuthCoreError.Code.expired` when the URL would outlive the credentials.
    public func presign(_ request: OSSRequest, expires: Int) async throws(AuthCoreError) -> OSSSignature {
        let local = sender.clock.now()
        let corrected = sender.signingTime(for: request.headers.first(named: "Host") ?? "")
        switch mode {
        case .local(let provider):
            let credentials = try await provider.credentials()
            // The later of the two clocks decides how long the credentials still live.
            if let expiration = credentials.expiration,
                Int64(expires) > Swift.max(local, corrected).seconds(until: expiration)
            {
                throw AuthCoreError(
                    .expired,
                    "a \(expires) s signed URL would outlive the credentials, which expire at \(expiration.iso8601)"
                )
            }
            return try signer(for: credentials).presign(request, at: corrected, expires: expires)
        case .remote(let signer, let provider):
            return try await signer.presign(request, at: corrected, expires: expires, provider: provider)
        }
    }

    /// Sends an HTTP request to OSS, signed at each attempt (a clock-skew refusal is signed again
    /// with the learned offset).
    public func send(
        _ request: HTTPRequest,
        bucket: String?,
        key: String,
        additionalHeaders: [String] = []
    ) async throws(AuthCoreError)
        -> HTTPResponse
    {
        try await sender.send(request) { request, time throws(AuthCoreError) in
            request.adding(
                try await sign(
                    request.ossRequest(bucket: bucket, key: key, additionalHeaders: additionalHeaders),
                    at: time
                )
            )
        }
    }

    func sign(_ request: OSSRequest, at time: Timestamp) async throws(AuthCoreError) -> OSSSignature {
        switch mode {
        case .local(let provider):
            return try signer(for: try await provider.credentials()).sign(request, at: time)
        case .remote(let detached, let provider):
            return try await detached.sign(request, at: time, provider: provider)
        }
    }

    /// The signer of `credentials`: the last one when the credentials are the same (its key memo
    /// stays warm), else a new one.
    func signer(for credentials: Credentials) throws(AuthCoreError) -> OSSSigner {
        try memo.signer(for: credentials) { () throws(AuthCoreError) in
            try OSSSigner(credentials: credentials, version: version, region: region, keyCache: keyCache)
        }
    }
}

/// Signs SigV4 requests with whatever credentials a provider gives now, at the skew-corrected time;
/// the SigV4 twin of ``OSSRequestSigner``.
public struct SigV4RequestSigner: Sendable {
    /// The credentials.
    public let provider: any CredentialsProvider
    /// The signing region.
    public let region: String
    /// The service.
    public let service: String
    /// The canonicalisation rules.
    public let options: SigV4Options
    /// The sender: transport, clock and skew correction.
    public let sender: SignedRequestSender
    let keyCache: SigningKeyCache
    let memo = SignerMemo<SigV4Signer>()

    /// A signer.
    public init(
        provider: any CredentialsProvider,
        region: String,
        service: String,
        options: SigV4Options = .standard,
        sender: SignedRequestSender = SignedRequestSender(),
        keyCache: SigningKeyCache = .shared
    ) {
        self.provider = provider
        self.region = region
        self.service = service
        self.options = options
        self.sender = sender
        self.keyCache = keyCache
    }

    /// The signature of `request` at the corrected time for its URL's host.
    public func sign(_ request: HTTPRequest) async throws(AuthCoreError) -> SigV4Signature {
        try signer(for: try await provider.credentials()).sign(
            request.sigV4Request(),
            at: sender.signingTime(for: request.url.host)
        )
    }

    /// A presigned URL (the sender's rule: never beyond the credentials, by either clock). The payload
    /// is `UNSIGNED-PAYLOAD` under S3's rules (no second URI encoding) and the body's hash otherwise,
    /// unless `payload` says.
    public func presign(
        _ request: HTTPRequest,
        expires: Int,
        policy: SigV4Signer.ExpiryPolicy = .strict,
        payload: SigV4Payload? = nil
    )
        async throws(AuthCoreError) -> SigV4Signature
    {
        let payload = payload ?? (options.doubleURIEncode ? request.bodyPayload : .unsigned)
        return try sender.presign(
            request,
            signer: try signer(for: try await provider.credentials()),
            expires: expires,
            policy: policy,
            payload: payload
        )
    }

    /// Sends `request`, signed at each attempt.
    public func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        try await sender.send(request) { request, time throws(AuthCoreError) in
            request.adding(try signer(for: try await provider.credentials()).sign(request.sigV4Request(), at: time))
        }
    }

    func signer(for credentials: Credentials) throws(AuthCoreError) -> SigV4Signer {
        try memo.signer(for: credentials) { () throws(AuthCoreError) in
            try SigV4Signer(
                credentials: credentials,
                region: region,
                service: service,
                options: options,
                keyCache: keyCache
            )
        }
    }
}

/// The last signer made, kept while the credentials stay the same (same id, token, expiry and
/// secret fingerprint), so that its key memo stays warm across requests.
final class SignerMemo<Signer: Sendable>: Sendable {
    private struct Entry: Sendable {
        let accessKeyId: String
        let sessionToken: String?
        let expiration: Timestamp?
        let fingerprint: Digest
        let signer: Signer
    }

    private let last = Locked<Entry?>(nil)

    func signer(for credentials: Credentials, make: () throws(AuthCoreError) -> Signer) throws(AuthCoreError) -> Signer
    {
        let fingerprint = credentials.secretFingerprint
        if let hit = last.withLock({ entry -> Signer? in
            guard let entry, entry.accessKeyId == credentials.accessKeyId,
                entry.sessionToken == credentials.sessionToken,
                entry.expiration == credentials.expiration, entry.fingerprint == fingerprint
            else { return nil }
            return entry.signer
        }) {
            return hit
        }
        let signer = try make()
        last.withLock {
            $0 = Entry(
                accessKeyId: credentials.accessKeyId,
                sessionToken: credentials.sessionToken,
                expiration: credentials.expiration,
                fingerprint: fingerprint,
                signer: signer
            )
        }
        return signer
    }
}
