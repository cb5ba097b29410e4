public import AuthCore

/// A signed-in user pool session, as an app needs it after sign-in (Amplify's `fetchAuthSession` and
/// `signOut`): tokens with their expiry, refreshed before they expire, persisted in a
/// ``CognitoTokenStore`` and restored on the next launch.
///
/// ```swift
/// let session = CognitoSession(configuration: configuration, store: try FileCognitoTokenStore(directory: dir, configuration: configuration))
/// if case .signedOut = try await session.status() { _ = try await session.signIn(username: "alice", password: password) }
/// let tokens = try await session.tokens()     // refreshed when less than five minutes remain
/// _ = await session.signOut()                 // revokes the refresh token, forgets the session
/// ```
///
/// Refresh policy (the design of ``RefreshingCredentialsProvider``): tokens are refreshed when less
/// than ``refreshWindow`` remains, or half their lifetime (`exp − iat`) for tokens that live less than
/// twice the window; one refresh runs at a time and every concurrent caller awaits it; tokens
/// within ``safetyMargin`` of expiry are never handed out. A refresh that fails while the tokens are
/// still valid hands out the current tokens; one the service refuses (`NotAuthorizedException`, or the
/// token endpoint's `invalid_grant`: the
/// refresh token was revoked or expired) ends the session and forgets it.
///
/// Refreshing uses `GetTokensFromRefreshToken` and keeps the new refresh token when the client
/// rotates them; with ``RefreshMethod/refreshTokenAuth``, or when the service does not know that
/// operation, `InitiateAuth` with `REFRESH_TOKEN_AUTH`.
public actor CognitoSession {
    /// How tokens are refreshed.
    public enum RefreshMethod: Sendable {
        /// `GetTokensFromRefreshToken` (refresh-token rotation), falling back to `REFRESH_TOKEN_AUTH`
        /// when the service answers `UnknownOperationException`.
        case getTokensFromRefreshToken
        /// `InitiateAuth` with `REFRESH_TOKEN_AUTH`.
        case refreshTokenAuth
    }

    /// Whether a user is signed in.
    public enum Status: Sendable, Equatable {
        /// Signed in; the current ID and access tokens expire at `expiresAt`.
        case signedIn(username: String, expiresAt: Timestamp)
        /// No session.
        case signedOut
    }

    /// What signing out achieved. The local session is forgotten in every case.
    public enum SignOutResult: Sendable {
        /// Forgotten locally, and the service revoked the tokens.
        case complete
        /// Forgotten locally (unless `storeError`), but a call to the service failed: the tokens may
        /// stay valid until they expire.
        case partial(globalSignOutError: AuthCoreError?, revokeTokenError: AuthCoreError?, storeError: AuthCoreError?)
    }

    /// The pool and client.
    public nonisolated let configuration: CognitoUserPoolConfiguration
    /// The sign-in state machine the session signs in with.
    public nonisolated let signInClient: CognitoSignIn
    /// Where the session is kept.
    public nonisolated let store: any CognitoTokenStore
    /// Refresh when less than this many seconds remain (default 300).
    public nonisolated let refreshWindow: Int64
    /// Tokens with less than this many seconds left are not handed out (default 10).
    public nonisolated let safetyMargin: Int64
    /// How tokens are refreshed.
    public nonisolated let refreshMethod: RefreshMethod
    /// The hosted UI this session signs in through (``signIn(completing:redirect:)``). A session begun
    /// there is refreshed at its domain's token endpoint (kept with the session), with or without it.
    public nonisolated let hostedUI: CognitoHostedUI?
    nonisolated let api: CognitoIdentityProviderAPI
    nonisolated let clock: any SigningClock

    private var current: CognitoStoredSession?
    private var loaded = false
    private var inflight: Task<CognitoStoredSession, any Error>?
    /// Bumped when the session ends or is replaced: a refresh that started before does not store its answer.
    private var generation = 0
    private var signingInUsername: String?
    /// Completed refreshes, for observability and tests.
    public private(set) var refreshCount = 0

    private nonisolated let broadcaster = EventBroadcaster<CognitoSessionEvent>()

    /// The session's events from now on (Amplify's Hub auth events): each subscriber gets every
    /// event, in order; the stream ends when the subscriber stops iterating.
    public nonisolated func events() -> AsyncStream<CognitoSessionEvent> { broadcaster.stream() }

    nonisolated func emit(_ event: CognitoSessionEvent) { broadcaster.emit(event) }

    /// A session for `configuration`, kept in `store`.
    public init(
        configuration: CognitoUserPoolConfiguration,
        transport: any HTTPTransport = HTTP1Transport(),
        store: any CognitoTokenStore = InMemoryCognitoTokenStore(),
        deviceStore: any CognitoDeviceStore = InMemoryCognitoDeviceStore(),
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        refreshWindow: Int64 = 300,
        safetyMargin: Int64 = 10,
        refreshMethod: RefreshMethod = .getTokensFromRefreshToken,
        retryPolicy: RetryPolicy = .standard,
        hostedUI: CognitoHostedUI? = nil
    ) {
        self.hostedUI = hostedUI
        self.configuration = configuration
        self.signInClient = CognitoSignIn(
            configuration: configuration,
            transport: transport,
            clock: clock,
            random: random,
            deviceStore: deviceStore,
            retryPolicy: retryPolicy
        )
        self.api = CognitoIdentityProviderAPI(
            configuration: configuration,
            transport: transport,
            retryPolicy: retryPolicy
        )
        self.store = store
        self.clock = clock
        self.refreshWindow = Swift.max(0, refreshWindow)
        self.safetyMargin = Swift.min(Swift.max(0, safetyMargin), 3600)
        self.refreshMethod = refreshMethod
    }

    // MARK: - Signing in

    /// Signs in
    /// (``CognitoSignIn/signIn(username:password:flow:preferredFirstFactor:preparedEphemeral:privateValueBitCount:clientMetadata:)``);
    /// tokens are stored and become the session.
    public func signIn(
        username: String,
        password: SecureBytes?,
        flow: CognitoAuthFlow = .userSRP,
        preferredFirstFactor: CognitoFactor? = nil,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        signingInUsername = username
        let requested = clock.now()
        let result = try await signInClient.signIn(
            username: username,
            password: password,
            flow: flow,
            preferredFirstFactor: preferredFirstFactor,
            clientMetadata: clientMetadata
        )
        return try await adopt(result, requested: requested)
    }

    /// Answers the sign-in's next step
    /// (``CognitoSignIn/confirmSignIn(challengeResponse:userAttributes:friendlyDeviceName:clientMetadata:)``).
    public func confirmSignIn(
        challengeResponse: String,
        userAttributes: [String: String] = [:],
        friendlyDeviceName: String? = nil,
        clientMetadata: [String: String]? = nil
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        let requested = clock.now()
        let result = try await signInClient.confirmSignIn(
            challengeResponse: challengeResponse,
            userAttributes: userAttributes,
            friendlyDeviceName: friendlyDeviceName,
            clientMetadata: clientMetadata
        )
        return try await adopt(result, requested: requested)
    }

    /// Continues a sign-in left waiting by another process (``CognitoSignIn/resume(_:)``).
    public func resume(_ pendingSignIn: CognitoPendingSignIn) async throws(AuthCoreError) {
        try await signInClient.resume(pendingSignIn)
        signingInUsername = pendingSignIn.typedUsername
    }

    /// Finishes a hosted-UI sign-in with the URL the browser came back with: its `state` is checked
    /// and its code exchanged (``signIn(completing:authorizationCode:)``).
    ///
    /// - Throws: the redirect's errors (``CognitoAuthorizationRequest/authorizationCode(fromRedirect:)``),
    ///   and those of ``signIn(completing:authorizationCode:)``.
    public func signIn(
        completing request: CognitoAuthorizationRequest,
        redirect: String
    ) async throws(AuthCoreError) -> CognitoTokens {
        try await signIn(completing: request, authorizationCode: try request.authorizationCode(fromRedirect: redirect))
    }

    /// Finishes a hosted-UI sign-in with its authorization code (the redirect's `state` checked
    /// already, as `LoopbackRedirectListener` in AuthCoreServer does): the code is exchanged with
    /// PKCE and the tokens and nonce checked (``CognitoHostedUI/exchange(code:for:)``); the tokens
    /// become the session, refreshed at the hosted UI's token endpoint from then on.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the session has no ``hostedUI`` or the
    ///   hosted UI's client is not this session's; the exchange's errors.
    public func signIn(
        completing request: CognitoAuthorizationRequest,
        authorizationCode code: String
    ) async throws(AuthCoreError) -> CognitoTokens {
        guard let hostedUI else { throw AuthCoreError(.invalidParameter, "this session has no hosted UI configured") }
        guard hostedUI.configuration.clientId == configuration.clientId else {
            throw AuthCoreError(.invalidParameter, "the hosted UI's client is not this session's")
        }
        let requested = clock.now()
        let tokens = try await hostedUI.exchange(code: code, for: request)
        signingInUsername = nil
        _ = try await adopt(
            .signedIn(tokens),
            requested: requested,
            method: .hostedUI(domain: hostedUI.configuration.domain)
        )
        return tokens
    }

    /// Makes signed-in tokens the session (stored before they are returned).
    func adopt(
        _ result: CognitoSignInResult,
        requested: Timestamp,
        method: CognitoSignInMethod = .api
    ) async throws(AuthCoreError)
        -> CognitoSignInResult
    {
        guard case .signedIn(let tokens) = result else { return result }
        let record = try record(
            for: tokens,
            typedUsername: signingInUsername ?? "",
            requested: requested,
            method: method
        )
        // A refresh of the session before must not store its answer over this one: it is superseded
        // before the store is written (actor reentrancy at the await).
        generation += 1
        let mine = generation
        inflight = nil
        try await store.save(record)
        guard generation == mine else { return result }  // signed out or in again meanwhile
        current = record
        loaded = true
        emit(.signedIn(username: record.username))
        return result
    }

    // MARK: - The session

    /// Signed in or out (the stored session is read at the first call).
    public func status() async throws(AuthCoreError) -> Status {
        guard let session = try await loadedSession() else { return .signedOut }
        return .signedIn(username: session.username, expiresAt: session.expiresAt)
    }

    /// Valid tokens: the current ones, or refreshed ones when they are about to expire (or
    /// `forceRefresh`).
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable` when signed out; the service's
    ///   refusal of the refresh (the session is then forgotten); a transport error when the tokens
    ///   have expired and could not be refreshed.
    public func tokens(forceRefresh: Bool = false) async throws(AuthCoreError) -> CognitoTokens {
        guard let session = try await loadedSession() else {
            throw AuthCoreError(.credentialsUnavailable, "no user is signed in")
        }
        let now = clock.now()
        let usable = now.adding(seconds: safetyMargin) < session.expiresAt
        if usable, !forceRefresh, now.seconds(until: session.expiresAt) > refreshLead(session) { return session.tokens }
        let started = generation
        do {
            return try await awaitResult(of: startRefresh(session), describing: "the token refresh").tokens
        } catch {
            if error.serviceErrorType == "NotAuthorizedException" || error.serviceErrorType == "invalid_grant" {
                // The refresh token was revoked or has expired: the session is over, unless another
                // session replaced it meanwhile.
                if generation == started {
                    await forget()
                    emit(.sessionExpired)
                }
                throw error
            }
            // Another failure (network, throttling): the current tokens while they last.
            emit(.refreshFailed(error.code))
            guard usable else { throw error }
            return session.tokens
        }
    }

    /// Signs out: `GlobalSignOut` first when `global` (every session of the user ends), then
    /// `RevokeToken` for this session's refresh token; the session is forgotten (store and memory)
    /// whatever the service answered.
    ///
    /// A refresh in flight is awaited first, so the refresh token revoked is the latest (rotation);
    /// a stored session that cannot be read (another pool's, a broken file) is left alone and
    /// reported as the store error.
    public func signOut(global: Bool = false) async -> SignOutResult {
        if let running = inflight { _ = try? await awaitResult(of: running, describing: "the token refresh") }
        generation += 1  // nothing started before this point may store a session any more
        inflight = nil
        let session: CognitoStoredSession?
        do { session = try await loadedSession() } catch {
            return .partial(globalSignOutError: nil, revokeTokenError: nil, storeError: error)
        }
        var globalError: AuthCoreError?
        var revokeError: AuthCoreError?
        if let session {
            if global {
                do { try await api.globalSignOut(accessToken: session.tokens.accessToken) } catch {
                    globalError = error
                }
            }
            if let refreshToken = session.tokens.refreshToken {
                do { try await api.revokeToken(refreshToken) } catch { revokeError = error }
            }
        }
        let storeError = await forget()
        emit(.signedOut)
        if globalError == nil, revokeError == nil, storeError == nil { return .complete }
        return .partial(globalSignOutError: globalError, revokeTokenError: revokeError, storeError: storeError)
    }

    /// Deletes the user (`DeleteUser`), then ends the session: it is forgotten (store and memory),
    /// the device remembered for the user is forgotten, and ``CognitoSessionEvent/userDeleted`` is
    /// sent. A sign-in that replaced the session while the call was on its way is left alone.
    ///
    /// - Throws: the service's refusal, in which case nothing local changes; when the user was
    ///   deleted but the stored session could not be removed, an error that says both.
    public func deleteUser() async throws(AuthCoreError) {
        let accessToken = try await tokens().accessToken
        let started = generation
        let username = try await status().username
        try await api.deleteUser(accessToken: accessToken)
        if let username { await signInClient.deviceStore.removeDevice(for: username) }
        guard generation == started else { return }  // signed in again meanwhile: that session stays
        let storeError = await forget()
        emit(.userDeleted)
        if let storeError {
            throw AuthCoreError(
                storeError.code,
                "the user was deleted, but the stored session could not be removed: \(storeError.reason)"
            )
        }
    }

    // MARK: - Refresh

    private func loadedSession() async throws(AuthCoreError) -> CognitoStoredSession? {
        if !loaded {
            let stored = try await store.session()
            if let stored, stored.userPoolId != configuration.userPoolId || stored.clientId != configuration.clientId {
                throw AuthCoreError(
                    .invalidParameter,
                    "the stored session belongs to pool \(stored.userPoolId), client \(stored.clientId), not this configuration"
                )
            }
            if !loaded {  // a sign-in during the read wins over what was stored
                current = stored
                loaded = true
            }
        }
        return current
    }

    @discardableResult
    func forget() async -> AuthCoreError? {
        generation += 1
        inflight = nil
        current = nil
        loaded = true
        do {
            try await store.removeSession()
            return nil
        } catch { return error }
    }

    /// Seconds before expiry at which to refresh: the window, or half the lifetime (`exp − iat` of the
    /// access token) when that is shorter than twice the window.
    private func refreshLead(_ session: CognitoStoredSession) -> Int64 {
        let claims = try? JWTClaims(token: session.tokens.accessToken)
        guard let issued = claims?.time("iat"), issued < session.expiresAt else { return refreshWindow }
        let lifetime = issued.seconds(until: session.expiresAt)
        return Swift.min(refreshWindow, lifetime / 2)
    }

    private func startRefresh(_ session: CognitoStoredSession) -> Task<CognitoStoredSession, any Error> {
        if let inflight { return inflight }
        let started = generation
        let task = Task { try await self.refresh(session, generation: started) }
        inflight = task
        return task
    }

    private func refresh(_ session: CognitoStoredSession, generation started: Int) async throws -> CognitoStoredSession
    {
        defer { if generation == started { inflight = nil } }
        guard let refreshToken = session.tokens.refreshToken else {
            throw AuthCoreError(.credentialsUnavailable, "the session has no refresh token; sign in again")
        }
        let requested = clock.now()
        let deviceKey = await signInClient.deviceStore.device(for: session.username)?.deviceKey
        let fresh: CognitoTokens
        if case .hostedUI(let domain) = session.signInMethod {
            fresh = try await refreshAtTokenEndpoint(of: domain, refreshToken: refreshToken)
        } else {
            fresh = try await fetchTokens(refreshToken: refreshToken, username: session.username, deviceKey: deviceKey)
        }
        let record = try record(
            for: fresh,
            typedUsername: session.username,
            requested: requested,
            method: session.signInMethod
        )
        let ended = AuthCoreError(.credentialsUnavailable, "the session ended while its tokens were refreshed")
        guard generation == started else { throw ended }  // signed out or in again meanwhile: not kept
        try await store.save(record)
        guard generation == started else {
            // Signed out or in during the save: put back what the store must hold.
            if let current { try? await store.save(current) } else { try? await store.removeSession() }
            throw ended
        }
        current = record
        refreshCount += 1
        emit(.tokensRefreshed(expiresAt: record.expiresAt))
        return record
    }

    /// Fresh tokens for a session begun at the hosted UI of `domain` (kept in the store, so it is
    /// checked before a refresh token goes there): this session's ``hostedUI`` when it is that
    /// domain (its client secret, and the tokens verified); else only a user-pool domain Cognito
    /// manages in this pool's region (`https://<prefix>.auth.<region>.amazoncognito.com`, `auth-fips`
    /// too) or a loopback address (a local test server), without the client secret's being needed
    /// elsewhere than there.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for any other domain (a custom domain needs
    ///   the session's ``hostedUI``); the token endpoint's errors.
    private func refreshAtTokenEndpoint(
        of domain: RequestURL,
        refreshToken: String
    ) async throws(AuthCoreError) -> CognitoTokens {
        if let hostedUI, hostedUI.configuration.domain.origin == domain.origin {
            return try await hostedUI.refresh(refreshToken: refreshToken)
        }
        guard
            CognitoHostedUIConfiguration.isManagedDomain(domain, region: configuration.region)
                || NetworkPolicy.isLoopback(host: domain.host)
        else {
            throw AuthCoreError(
                .invalidParameter,
                "the session began at the hosted UI of \(domain.origin), which is not a Cognito domain of \(configuration.region): configure the session's hostedUI with that domain to refresh it"
            )
        }
        let endpoint = CognitoTokenEndpoint(
            domain: domain,
            clientId: configuration.clientId,
            clientSecret: configuration.clientSecret,
            transport: api.transport,
            allowInsecureHTTP: configuration.allowInsecureHTTP
        )
        return try await endpoint.refresh(refreshToken: refreshToken)
    }

    /// Fresh tokens by ``refreshMethod``. Rotation: a new refresh token replaces the old one; without
    /// one the old one stays.
    private func fetchTokens(
        refreshToken: String,
        username: String,
        deviceKey: String?
    ) async throws(AuthCoreError) -> CognitoTokens {
        let fresh: CognitoTokens
        if refreshMethod == .getTokensFromRefreshToken {
            do {
                fresh = try await api.tokensFromRefreshToken(refreshToken, deviceKey: deviceKey)
            } catch {
                guard error.serviceErrorType == "UnknownOperationException" else { throw error }
                fresh = try await signInClient.refresh(
                    refreshToken: refreshToken,
                    username: username,
                    deviceKey: deviceKey
                )
            }
        } else {
            fresh = try await signInClient.refresh(refreshToken: refreshToken, username: username, deviceKey: deviceKey)
        }
        return CognitoTokens(
            idToken: fresh.idToken,
            accessToken: fresh.accessToken,
            refreshToken: fresh.refreshToken ?? refreshToken,
            expiresIn: fresh.expiresIn,
            tokenType: fresh.tokenType
        )
    }

    /// The stored form of `tokens`: the username from the access token's `username` claim (else the
    /// typed one), the expiry the earliest of `ExpiresIn` after the request and the tokens' `exp`.
    private func record(
        for tokens: CognitoTokens,
        typedUsername: String,
        requested: Timestamp,
        method: CognitoSignInMethod
    ) throws(AuthCoreError)
        -> CognitoStoredSession
    {
        var expiresAt = requested.adding(seconds: Int64(tokens.expiresIn))
        let access = try? JWTClaims(token: tokens.accessToken)
        for claims in [access, try? JWTClaims(token: tokens.idToken)] {
            if let exp = claims?.time("exp"), exp < expiresAt { expiresAt = exp }
        }
        guard clock.now() < expiresAt else {
            throw AuthCoreError(.expired, "Cognito returned tokens that have already expired")
        }
        return CognitoStoredSession(
            region: configuration.region,
            userPoolId: configuration.userPoolId,
            clientId: configuration.clientId,
            username: access?.string("username") ?? typedUsername,
            tokens: tokens,
            expiresAt: expiresAt,
            signInMethod: method
        )
    }
}

extension CognitoSession: CustomReflectable {
    /// The pool configuration only: the session holds tokens.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["configuration": configuration], displayStyle: .class)
    }
}

/// What happens to a ``CognitoSession`` (``CognitoSession/events()``): the events an app's UI follows,
/// as Amplify's Hub auth channel has them.
public enum CognitoSessionEvent: Sendable, Equatable {
    /// A sign-in completed; the session is this user's.
    case signedIn(username: String)
    /// The tokens were refreshed; the new ones expire at `expiresAt`.
    case tokensRefreshed(expiresAt: Timestamp)
    /// A refresh failed for a passing reason (network, throttling): the session stays, the current
    /// tokens are used while they last.
    case refreshFailed(AuthCoreError.Code)
    /// The service refused the refresh token (revoked or expired): the session is over.
    case sessionExpired
    /// The session was signed out.
    case signedOut
    /// The user deleted their account (``CognitoSession/deleteUser()``): the session is over.
    case userDeleted
}
