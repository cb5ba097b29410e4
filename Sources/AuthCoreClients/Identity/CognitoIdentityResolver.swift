import AuthCore

/// The uncached half of ``CognitoIdentityCredentialsProvider``: at each call, the current login,
/// the identity id (known, stored, from the backend, or from `GetId`) and fresh credentials.
///
/// Invariants (actor reentrancy at every `await`):
/// - `generation` is bumped by every switch or clear. Each call captures it once, at its start, and
///   passes it down; an answer to a call of an earlier generation is handed to that call's caller but
///   never adopted (identity id, cached token, store), and a call never joins or registers a shared
///   request of another generation.
/// - Store writes run one after another in the order they were decided on the actor
///   (``enqueueStoreWrite(_:)``), and a save is decided only while its generation is current, so a
///   clear's removal always comes after every save that preceded the clear.
/// - A shared request (`GetId`, the backend) is cleared by the request itself when it ends, only if it
///   is still the registered one; a waiter that gives up (cancelled, timed out) leaves it running and
///   shared.
actor CognitoIdentityResolver: CredentialsProvider {
    nonisolated let client: CognitoIdentityClient
    nonisolated let identityPoolId: String
    nonisolated let flow: CognitoIdentityCredentialsProvider.Flow
    nonisolated let store: any CognitoIdentityStore
    nonisolated let clock: any SigningClock
    nonisolated let developerTokenWindow: Int64

    /// The lifetime assumed for a developer token that says nothing of its expiry: the service's
    /// default `TokenDuration`.
    static let assumedDeveloperTokenLifetime: Int64 = 900

    private typealias CachedToken = (token: DeveloperIdentityToken, fetchedAt: Timestamp, expiresAt: Timestamp)

    private var loginSource: any IdentityLoginSource
    private var identity: String? {
        didSet { if identity != oldValue { onIdentityChange?(identity) } }
    }
    /// Told when the identity id in memory changes (nil: forgotten).
    let onIdentityChange: (@Sendable (String?) -> Void)?
    /// Whether the store has been read (an id is then in `identity`, or there is none).
    private var loaded = false
    private var developerToken: CachedToken?
    private var developerTokenRequest: (generation: Int, task: Task<DeveloperIdentityToken, any Error>)?
    private var getIdRequest: (generation: Int, task: Task<String, any Error>)?
    private var storeWrites: Task<Void, Never>?
    private var generation = 0

    init(
        client: CognitoIdentityClient,
        identityPoolId: String,
        login: any IdentityLoginSource,
        flow: CognitoIdentityCredentialsProvider.Flow,
        store: any CognitoIdentityStore,
        clock: any SigningClock,
        developerTokenWindow: Int64,
        onIdentityChange: (@Sendable (String?) -> Void)? = nil
    ) {
        self.onIdentityChange = onIdentityChange
        self.client = client
        self.identityPoolId = identityPoolId
        loginSource = login
        self.flow = flow
        self.store = store
        self.clock = clock
        self.developerTokenWindow = developerTokenWindow
    }

    /// A login resolved for one call.
    private struct Resolved {
        var identityId: String
        var logins: [String: String]
        /// Whether a refused token can be replaced by asking its source again (developer, user pool).
        var renewable: Bool
        /// Whether the id was known before this call (saved or cached) rather than just issued.
        var wasKnown: Bool
    }

    // MARK: - Calls

    func credentials() async throws(AuthCoreError) -> Credentials {
        let started = generation
        let login = try await loginSource.currentLogin()
        var renewed = false
        var replacedStaleId = false
        while true {
            let resolved = try await resolve(login, renewingToken: renewed, generation: started)
            do {
                return try await fetchCredentials(resolved, generation: started)
            } catch {
                if error.serviceErrorType == "NotAuthorizedException", resolved.renewable, !renewed {
                    renewed = true
                    if generation == started { developerToken = nil }
                    continue
                }
                if error.serviceErrorType == "ResourceNotFoundException", resolved.wasKnown, !replacedStaleId {
                    replacedStaleId = true
                    try await forget(staleId: resolved.identityId, generation: started)
                    continue
                }
                throw error
            }
        }
    }

    func identityId() async throws(AuthCoreError) -> String {
        let started = generation
        let login = try await loginSource.currentLogin()
        return try await resolve(login, renewingToken: false, generation: started).identityId
    }

    func knownIdentityIdIfReadable() async -> String? { try? await knownIdentityId(generation: generation) }

    func clearIdentity() async throws(AuthCoreError) {
        generation += 1
        forgetInMemory()
        try await removeFromStore()
    }

    func switchLogin(to source: any IdentityLoginSource, keepingIdentity: Bool) async throws(AuthCoreError) {
        generation += 1
        loginSource = source
        developerToken = nil
        developerTokenRequest = nil
        getIdRequest = nil
        guard !keepingIdentity else { return }
        forgetInMemory()
        try await removeFromStore()
    }

    private func forgetInMemory() {
        identity = nil
        loaded = true
        developerToken = nil
        developerTokenRequest = nil
        getIdRequest = nil
    }

    // MARK: - Resolving a login

    private func resolve(
        _ login: IdentityLogin,
        renewingToken renew: Bool,
        generation started: Int
    ) async throws(AuthCoreError) -> Resolved {
        if case .developer = login {
        } else if generation == started {
            developerToken = nil  // a developer token belongs to a developer login only
        }
        switch login {
        case .unauthenticated:
            return try await viaGetId([:], renewable: false, generation: started)
        case .providers(let map):
            var checked: [String: String] = [:]
            for (key, token) in map {
                checked[try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: client.region)] =
                    token
            }
            return try await viaGetId(checked, renewable: false, generation: started)
        case .userPool(let source):
            let token = try await source.idToken(forceRefresh: renew)
            return try await viaGetId(
                [try CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: token): token],
                renewable: true,
                generation: started
            )
        case .developer(let source):
            let issued = try await currentDeveloperToken(from: source, renew: renew, generation: started)
            let key = try CognitoIdentityIssuer.loginsKey(
                for: issued.token,
                explicitKey: issued.loginsKey,
                region: client.region
            )
            try await adopt(issued.identityId, generation: started)
            return Resolved(
                identityId: issued.identityId,
                logins: [key: issued.token],
                renewable: true,
                wasKnown: false
            )
        }
    }

    /// The known identity id, or a new one from `GetId` (one call however many callers wait).
    private func viaGetId(
        _ logins: [String: String],
        renewable: Bool,
        generation started: Int
    ) async throws(AuthCoreError) -> Resolved {
        if let known = try await knownIdentityId(generation: started) {
            return Resolved(identityId: known, logins: logins, renewable: renewable, wasKnown: true)
        }
        let task: Task<String, any Error>
        if let running = getIdRequest, running.generation == started {
            task = running.task
        } else {
            let client = self.client, pool = identityPoolId
            // The request adopts its answer and unregisters itself, whoever still waits for it.
            task = Task {
                do {
                    let id = try await client.getId(identityPoolId: pool, logins: logins)
                    try await self.adopt(id, generation: started)
                    self.finishGetId(generation: started)
                    return id
                } catch {
                    self.finishGetId(generation: started)
                    throw error
                }
            }
            if generation == started { getIdRequest = (started, task) }
        }
        let id = try await awaitResult(of: task, describing: "GetId")
        return Resolved(identityId: id, logins: logins, renewable: renewable, wasKnown: false)
    }

    private func finishGetId(generation finished: Int) {
        if getIdRequest?.generation == finished { getIdRequest = nil }
    }

    /// The identity id in memory, or the stored one (read once, unless a clear came meanwhile).
    private func knownIdentityId(generation started: Int) async throws(AuthCoreError) -> String? {
        if loaded || generation != started { return identity }
        let stored = try await store.identityId(forPool: identityPoolId)
        guard generation == started else { return identity }
        if !loaded {
            identity = stored
            loaded = true
        }
        return identity
    }

    /// Makes `id` the identity id, saved first (a failed save changes nothing); not when the call's
    /// generation has passed.
    private func adopt(_ id: String, generation started: Int) async throws(AuthCoreError) {
        try Self.check(identityId: id)
        guard generation == started, !(loaded && identity == id) else { return }
        let pool = identityPoolId, store = self.store
        try await enqueueStoreWrite { try await store.save(identityId: id, forPool: pool) }
        guard generation == started else { return }
        identity = id
        loaded = true
    }

    /// An identity id from a service answer or a backend: `<region>:<id>`, printable ASCII, at most 128 bytes.
    static func check(identityId id: String) throws(AuthCoreError) {
        let bytes = id.utf8
        guard (3...128).contains(bytes.count), bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            colon != bytes.startIndex, bytes.index(after: colon) != bytes.endIndex
        else { throw AuthCoreError(.malformedResponse, "'\(id.prefix(40))' is not an identity id (<region>:<id>)") }
    }

    /// Drops an id the service does not know, unless a switch or another answer replaced it meanwhile.
    private func forget(staleId: String, generation started: Int) async throws(AuthCoreError) {
        guard generation == started, identity == staleId else { return }
        identity = nil
        loaded = true
        developerToken = nil
        try await removeFromStore()
    }

    private func removeFromStore() async throws(AuthCoreError) {
        let pool = identityPoolId, store = self.store
        try await enqueueStoreWrite { try await store.removeIdentityId(forPool: pool) }
    }

    /// Runs `write` after every store write enqueued before it, and reports its error.
    private func enqueueStoreWrite(_ write: @escaping @Sendable () async throws -> Void) async throws(AuthCoreError) {
        let previous = storeWrites
        let task = Task { () -> AuthCoreError? in
            await previous?.value
            do { try await write() } catch let error as AuthCoreError { return error } catch {
                return AuthCoreError(.credentialsUnavailable, "the identity store failed with \(type(of: error))")
                    .causedBy(error)
            }
            return nil
        }
        storeWrites = Task { _ = await task.value }
        if let error = await task.value { throw error }
    }

    // MARK: - Developer tokens

    /// The cached developer token, or a new one from the backend when it is within its refresh window
    /// (or `renew`); a backend failure while the cached token is still valid hands out that token.
    private func currentDeveloperToken(
        from source: any DeveloperTokenSource,
        renew: Bool,
        generation started: Int
    ) async throws(AuthCoreError) -> DeveloperIdentityToken {
        let now = clock.now()
        if !renew, generation == started, let cached = developerToken,
            now < cached.expiresAt.adding(seconds: -refreshLead(cached))
        {
            return cached.token
        }
        let task: Task<DeveloperIdentityToken, any Error>
        if let running = developerTokenRequest, running.generation == started {
            task = running.task
        } else {
            // The backend is given the identity known so far (a saved guest, to link).
            let known = try await knownIdentityId(generation: started)
            let clock = self.clock
            task = Task {
                do {
                    let issued = try await source.developerToken(for: known)
                    let cached = try Self.validate(issued, requestedAt: now, clock: clock)
                    if self.generation == started { self.developerToken = cached }
                    self.finishDeveloperToken(generation: started)
                    return issued
                } catch {
                    self.finishDeveloperToken(generation: started)
                    throw error
                }
            }
            if generation == started { developerTokenRequest = (started, task) }
        }
        do { return try await awaitResult(of: task, describing: "the developer token source") } catch {
            if !renew, generation == started, let cached = developerToken, clock.now() < cached.expiresAt {
                return cached.token
            }
            throw error
        }
    }

    private func finishDeveloperToken(generation finished: Int) {
        if developerTokenRequest?.generation == finished { developerTokenRequest = nil }
    }

    /// A backend's token with its expiry: the backend's, else the JWT's `exp`, else the assumed lifetime.
    private static func validate(
        _ issued: DeveloperIdentityToken,
        requestedAt: Timestamp,
        clock: any SigningClock
    ) throws(AuthCoreError) -> CachedToken {
        guard !issued.token.isEmpty else {
            throw AuthCoreError(.malformedResponse, "the developer token source returned an empty token")
        }
        try check(identityId: issued.identityId)
        let expiresAt =
            issued.expiration ?? (try? JWTClaims(token: issued.token))?.time("exp")
            ?? requestedAt.adding(seconds: assumedDeveloperTokenLifetime)
        guard clock.now() < expiresAt else {
            throw AuthCoreError(
                .expired,
                "the developer token source returned a token that expired at \(expiresAt.iso8601)"
            )
        }
        return (issued, requestedAt, expiresAt)
    }

    /// Seconds before a token's expiry at which a new one is asked for: the window, or half the
    /// lifetime for a token that lives less than twice the window.
    private func refreshLead(_ cached: CachedToken) -> Int64 {
        let lifetime = cached.fetchedAt.seconds(until: cached.expiresAt)
        return lifetime / 2 < developerTokenWindow ? lifetime / 2 : developerTokenWindow
    }

    // MARK: - Credentials

    private func fetchCredentials(
        _ resolved: Resolved,
        generation started: Int
    ) async throws(AuthCoreError) -> Credentials {
        switch flow.kind {
        case .enhanced(let customRoleArn):
            let (answeredId, credentials) = try await client.identityAndCredentials(
                identityId: resolved.identityId,
                logins: resolved.logins,
                customRoleArn: customRoleArn
            )
            // The service answers for the identity the login belongs to (it may have merged the one asked for).
            if let answeredId, answeredId != resolved.identityId { try await adopt(answeredId, generation: started) }
            return credentials
        case .basic(let roleArn, let sts, let sessionName, let durationSeconds):
            let token = try await client.getOpenIdToken(identityId: resolved.identityId, logins: resolved.logins)
            return try await sts.assumeRoleWithWebIdentity(
                roleArn: roleArn,
                sessionName: sessionName,
                webIdentityToken: token,
                durationSeconds: durationSeconds
            )
        }
    }
}
