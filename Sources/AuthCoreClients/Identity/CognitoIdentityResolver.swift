import AuthCore

/// The uncached half of ``CognitoIdentityCredentialsProvider``: at each call, the current login,
/// the identity id (known, stored, from the backend, or from `GetId`) and fresh credentials.
///
/// Invariant: `generation` is bumped by every switch or clear; an answer to a call that started in
/// an earlier generation is handed to its caller but never adopted (identity id, token, store), so
/// nothing from before a clear can come back after it (actor reentrancy at every `await`).
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

    private var loginSource: any IdentityLoginSource
    private var identity: String?
    /// Whether the store has been read (an id is then in `identity`, or there is none).
    private var loaded = false
    private var developerToken: (token: DeveloperIdentityToken, fetchedAt: Timestamp, expiresAt: Timestamp)?
    private var developerTokenRequest: (generation: Int, task: Task<DeveloperIdentityToken, any Error>)?
    private var getIdRequest: (generation: Int, task: Task<String, any Error>)?
    private var generation = 0

    init(
        client: CognitoIdentityClient, identityPoolId: String, login: any IdentityLoginSource, flow: CognitoIdentityCredentialsProvider.Flow,
        store: any CognitoIdentityStore, clock: any SigningClock, developerTokenWindow: Int64
    ) {
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
            let resolved = try await resolve(login, renewingToken: renewed)
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
        try await resolve(try await loginSource.currentLogin(), renewingToken: false).identityId
    }

    func knownIdentityIdIfReadable() async -> String? { try? await knownIdentityId() }

    func clearIdentity() async throws(AuthCoreError) {
        try await store.removeIdentityId(forPool: identityPoolId)
        generation += 1
        identity = nil
        loaded = true
        dropRequests()
    }

    func switchLogin(to source: any IdentityLoginSource, keepingIdentity: Bool) async throws(AuthCoreError) {
        if !keepingIdentity { try await store.removeIdentityId(forPool: identityPoolId) }
        generation += 1
        loginSource = source
        if !keepingIdentity {
            identity = nil
            loaded = true
        }
        dropRequests()
    }

    private func dropRequests() {
        developerToken = nil
        developerTokenRequest = nil
        getIdRequest = nil
    }

    // MARK: - Resolving a login

    private func resolve(_ login: IdentityLogin, renewingToken renew: Bool) async throws(AuthCoreError) -> Resolved {
        switch login {
        case .unauthenticated:
            return try await viaGetId([:], renewable: false)
        case .providers(let map):
            var checked: [String: String] = [:]
            for (key, token) in map { checked[try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: client.region)] = token }
            return try await viaGetId(checked, renewable: false)
        case .userPool(let source):
            let token = try await source.idToken(forceRefresh: renew)
            return try await viaGetId([try CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: token): token], renewable: true)
        case .developer(let source):
            let started = generation
            let issued = try await currentDeveloperToken(from: source, renew: renew)
            let key = try CognitoIdentityIssuer.loginsKey(for: issued.token, explicitKey: issued.loginsKey, region: client.region)
            if generation == started { try await adopt(issued.identityId) }
            return Resolved(identityId: issued.identityId, logins: [key: issued.token], renewable: true, wasKnown: false)
        }
    }

    /// The known identity id, or a new one from `GetId` (one call however many callers wait).
    private func viaGetId(_ logins: [String: String], renewable: Bool) async throws(AuthCoreError) -> Resolved {
        if let known = try await knownIdentityId() { return Resolved(identityId: known, logins: logins, renewable: renewable, wasKnown: true) }
        let started = generation
        let task: Task<String, any Error>
        if let running = getIdRequest, running.generation == started {
            task = running.task
        } else {
            let client = self.client, pool = identityPoolId
            task = Task { try await client.getId(identityPoolId: pool, logins: logins) }
            getIdRequest = (started, task)
        }
        let id: String
        do { id = try await awaitResult(of: task, describing: "GetId") } catch {
            if generation == started { getIdRequest = nil }
            throw error
        }
        if generation == started {
            getIdRequest = nil
            try await adopt(id)
        }
        return Resolved(identityId: id, logins: logins, renewable: renewable, wasKnown: false)
    }

    /// The identity id in memory, or the stored one (read once).
    private func knownIdentityId() async throws(AuthCoreError) -> String? {
        if loaded { return identity }
        let started = generation
        let stored = try await store.identityId(forPool: identityPoolId)
        if !loaded, generation == started {
            identity = stored
            loaded = true
        }
        return identity ?? stored
    }

    /// Makes `id` the identity id, saving it first (a failed save changes nothing).
    private func adopt(_ id: String) async throws(AuthCoreError) {
        guard !id.isEmpty, !(loaded && identity == id) else { return }
        let started = generation
        try await store.save(identityId: id, forPool: identityPoolId)
        guard generation == started else { return }
        identity = id
        loaded = true
    }

    /// Drops an id the service does not know, unless a switch or another answer replaced it meanwhile.
    private func forget(staleId: String, generation started: Int) async throws(AuthCoreError) {
        guard generation == started, identity == staleId else { return }
        try await store.removeIdentityId(forPool: identityPoolId)
        guard generation == started, identity == staleId else { return }
        identity = nil
        loaded = true
        developerToken = nil
    }

    // MARK: - Developer tokens

    /// The cached developer token, or a new one from the backend when it is within its refresh window
    /// (or `renew`); a backend failure while the cached token is still valid hands out that token.
    private func currentDeveloperToken(from source: any DeveloperTokenSource, renew: Bool) async throws(AuthCoreError) -> DeveloperIdentityToken {
        let now = clock.now()
        if !renew, let cached = developerToken, now < cached.expiresAt.adding(seconds: -refreshLead(cached)) { return cached.token }
        let started = generation
        let task: Task<DeveloperIdentityToken, any Error>
        if let running = developerTokenRequest, running.generation == started {
            task = running.task
        } else {
            let known = identity
            task = Task { try await source.developerToken(for: known) }
            developerTokenRequest = (started, task)
        }
        let issued: DeveloperIdentityToken
        do { issued = try await awaitResult(of: task, describing: "the developer token source") } catch {
            if generation == started { developerTokenRequest = nil }
            if !renew, generation == started, let cached = developerToken, clock.now() < cached.expiresAt { return cached.token }
            throw error
        }
        if generation == started { developerTokenRequest = nil }
        guard !issued.identityId.isEmpty, !issued.token.isEmpty else {
            throw AuthCoreError(.malformedResponse, "the developer token source returned an empty identity id or token")
        }
        let expiresAt =
            issued.expiration ?? (try? JWTClaims(token: issued.token))?.time("exp") ?? now.adding(seconds: Self.assumedDeveloperTokenLifetime)
        guard clock.now() < expiresAt else {
            throw AuthCoreError(.expired, "the developer token source returned a token that expired at \(expiresAt.iso8601)")
        }
        if generation == started { developerToken = (issued, now, expiresAt) }
        return issued
    }

    /// Seconds before a token's expiry at which a new one is asked for: the window, or half the
    /// lifetime for a token that lives less than twice the window.
    private func refreshLead(_ cached: (token: DeveloperIdentityToken, fetchedAt: Timestamp, expiresAt: Timestamp)) -> Int64 {
        let lifetime = cached.fetchedAt.seconds(until: cached.expiresAt)
        return lifetime / 2 < developerTokenWindow ? lifetime / 2 : developerTokenWindow
    }

    // MARK: - Credentials

    private func fetchCredentials(_ resolved: Resolved, generation started: Int) async throws(AuthCoreError) -> Credentials {
        switch flow.kind {
        case .enhanced(let customRoleArn):
            let (answeredId, credentials) = try await client.identityAndCredentials(
                identityId: resolved.identityId, logins: resolved.logins, customRoleArn: customRoleArn)
            // The service answers for the identity the login belongs to (it may have merged the one asked for).
            if let answeredId, answeredId != resolved.identityId, generation == started { try await adopt(answeredId) }
            return credentials
        case .basic(let roleArn, let sts, let sessionName, let durationSeconds):
            let token = try await client.getOpenIdToken(identityId: resolved.identityId, logins: resolved.logins)
            return try await sts.assumeRoleWithWebIdentity(
                roleArn: roleArn, sessionName: sessionName, webIdentityToken: token, durationSeconds: durationSeconds)
        }
    }
}
