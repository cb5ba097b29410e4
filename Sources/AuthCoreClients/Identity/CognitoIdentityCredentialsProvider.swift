public import AuthCore

/// A credentials provider for an identity pool that apps can switch between logins: it keeps the
/// identity id (``clearCredentials()`` drops only the credentials) or forgets it
/// (``clearIdentity()``, the SDKs' `clearKeychain`).
public protocol IdentityPoolCredentialsProvider: CredentialsProvider {
    /// The identity id (obtained when none is known yet).
    func identityId() async throws(AuthCoreError) -> String
    /// Forgets the cached credentials and keeps the identity id: for going from unauthenticated to
    /// authenticated, where the new login is linked to the same identity.
    func clearCredentials() async
    /// Forgets the credentials, the identity id (in the store too) and any cached login token: for
    /// switching between two authenticated providers without linking them.
    func clearIdentity() async throws(AuthCoreError)
}

/// Credentials for a Cognito identity-pool identity, cached and refreshed like the SDKs' caching
/// credentials provider: unauthenticated, developer-authenticated (tokens from the app's backend),
/// social/OIDC, or from a user-pool session (Amplify's `fetchAuthSession`), by the enhanced flow
/// (`GetCredentialsForIdentity`) or the basic flow (`GetOpenIdToken`, then `AssumeRoleWithWebIdentity`).
///
/// ```swift
/// let backend = ClosureDeveloperTokenSource { identityId in try await myBackend.cognitoToken(linking: identityId) }
/// let credentials = CognitoIdentityCredentialsProvider(
///     client: identity, identityPoolId: poolId, login: IdentityLogin.developer(backend),
///     store: try FileCognitoIdentityStore(directory: appSupport))
/// let now = try await credentials.credentials()   // refreshed before expiry, the backend asked when its token runs out
/// ```
///
/// - The credentials are cached by a ``RefreshingCredentialsProvider`` (its window, margin, single
///   flight and backoff): a refresh that fails while the credentials are still valid hands out
///   those, and is retried after a backoff.
/// - At each refresh the ``IdentityLoginSource`` says which login is current. A developer login gets
///   its identity id from the backend (the token answer); every other login, and none, from `GetId`
///   when no identity id is known (Developer Guide, "Identity pools (federated identities)
///   authentication flow").
/// - A developer token is reused until less than `developerTokenWindow` seconds (default 60, or half
///   its lifetime for a shorter-lived token) remain (it is dropped by ``clearIdentity()``, by a switch,
///   and when the login source answers a login that is not a developer one; switching between two
///   developer users is a switch between authenticated providers: ``clearIdentity()``); then the backend is asked once,
///   however many
///   callers wait. A backend that fails while the cached token is still valid does not fail the
///   refresh. When the service refuses a developer or user-pool token (`NotAuthorizedException`) a
///   new one is asked for once (the user-pool session with `forceRefresh`), and the call is made again;
///   a second refusal is the error.
/// - The identity id is kept in a ``CognitoIdentityStore`` (keyed by the pool), so it survives a
///   restart; a stored id the service does not know (`ResourceNotFoundException`) is dropped and a
///   new one obtained, once. When `GetCredentialsForIdentity` answers for another identity (the
///   login was already linked to one), that id is adopted.
public final class CognitoIdentityCredentialsProvider: IdentityPoolCredentialsProvider {
    /// Which flow to use.
    public struct Flow: Sendable {
        enum Kind: Sendable {
            case enhanced(customRoleArn: String?)
            case basic(roleArn: String, sts: STSClient, sessionName: String, durationSeconds: Int)
        }
        let kind: Kind

        /// `GetCredentialsForIdentity` with the pool's role for the login.
        public static let enhanced = Flow(kind: .enhanced(customRoleArn: nil))
        /// `GetCredentialsForIdentity` with `CustomRoleArn` (one of the roles the pool's rules allow).
        public static func enhanced(customRoleArn: String) -> Flow {
            Flow(kind: .enhanced(customRoleArn: customRoleArn))
        }
        /// `GetOpenIdToken`, then `AssumeRoleWithWebIdentity` for `roleArn` with this session name and
        /// duration (900...43200 s).
        public static func basic(
            roleArn: String,
            sts: STSClient,
            sessionName: String = "authcore",
            durationSeconds: Int = 3600
        ) -> Flow {
            Flow(kind: .basic(roleArn: roleArn, sts: sts, sessionName: sessionName, durationSeconds: durationSeconds))
        }
    }

    /// The identity pool (`us-east-1:…`).
    public let identityPoolId: String
    /// Where the identity id is kept.
    public let store: any CognitoIdentityStore
    let resolver: CognitoIdentityResolver
    let cache: RefreshingCredentialsProvider
    private let broadcaster: EventBroadcaster<CognitoIdentityEvent>

    /// The provider's events from now on (each subscriber gets every event, in order): the identity id
    /// becoming known (the stored one when first read), changing or forgotten; credentials refreshed;
    /// a refresh failed.
    public func events() -> AsyncStream<CognitoIdentityEvent> { broadcaster.stream() }

    /// A provider.
    ///
    /// - Parameters:
    ///   - client: the identity-pool API client (its region and endpoint).
    ///   - identityPoolId: the pool (`us-east-1:…`).
    ///   - login: the login, or a source that decides it at each refresh (default: unauthenticated).
    ///   - flow: enhanced (default) or basic.
    ///   - store: where the identity id is kept between launches (default: in memory).
    ///   - developerTokenWindow: seconds before a developer token's expiry at which the backend is
    ///     asked for a new one (at least 0).
    ///   - refreshWindow: the credentials cache's refresh window (``RefreshingCredentialsProvider/window``).
    ///   - clock: the clock of the cache and of token expiry.
    ///   - random: the jitter of the cache's backoff.
    ///   - safetyMargin: ``RefreshingCredentialsProvider/safetyMargin``.
    ///   - minimumLifetime: ``RefreshingCredentialsProvider/minimumLifetime``.
    ///   - timeLimit: ``RefreshingCredentialsProvider/timeLimit``.
    public init(
        client: CognitoIdentityClient,
        identityPoolId: String,
        login: any IdentityLoginSource = IdentityLogin.unauthenticated,
        flow: Flow = .enhanced,
        store: any CognitoIdentityStore = InMemoryCognitoIdentityStore(),
        developerTokenWindow: Int64 = 60,
        refreshWindow: Int64 = 300,
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        safetyMargin: Int64 = 10,
        minimumLifetime: Int64 = 60,
        timeLimit: Duration = .seconds(30)
    ) {
        self.identityPoolId = identityPoolId
        self.store = store
        let broadcaster = EventBroadcaster<CognitoIdentityEvent>()
        self.broadcaster = broadcaster
        resolver = CognitoIdentityResolver(
            client: client,
            identityPoolId: identityPoolId,
            login: login,
            flow: flow,
            store: store,
            clock: clock,
            developerTokenWindow: Swift.max(0, developerTokenWindow),
            onIdentityChange: { broadcaster.emit(.identityChanged(identityId: $0)) }
        )
        cache = RefreshingCredentialsProvider(
            source: resolver,
            window: refreshWindow,
            clock: clock,
            random: random,
            safetyMargin: safetyMargin,
            minimumLifetime: minimumLifetime,
            timeLimit: timeLimit,
            onRefresh: { outcome in
                switch outcome {
                case .success(let expiration): broadcaster.emit(.credentialsRefreshed(expiresAt: expiration))
                case .failure(let error): broadcaster.emit(.refreshFailed(error.code))
                }
            }
        )
    }

    public func credentials() async throws(AuthCoreError) -> Credentials { try await cache.credentials() }

    public func identityId() async throws(AuthCoreError) -> String { try await resolver.identityId() }

    /// The identity id known now (in memory or in the store), without asking the service.
    public func currentIdentityId() async -> String? { await resolver.knownIdentityIdIfReadable() }

    public func clearCredentials() async { await cache.clearCredentials() }

    /// Forgets the credentials, the identity id and any cached developer token; the id is forgotten in
    /// memory even when removing it from the store fails (that error is thrown).
    public func clearIdentity() async throws(AuthCoreError) {
        // The cache is cleared before (no caller gets the old identity's credentials meanwhile) and
        // after (nothing a refresh cached in between survives).
        await cache.clearCredentials()
        do { try await resolver.clearIdentity() } catch {
            await cache.clearCredentials()
            throw error
        }
        await cache.clearCredentials()
    }

    /// Uses another login from now on. With `keepingIdentity` (unauthenticated → authenticated, or
    /// adding a login) the identity id stays and the new login is linked to it; without it (switching
    /// between authenticated providers) the identity is cleared as by ``clearIdentity()``. Either way
    /// the cached credentials are dropped.
    public func switchLogin(to login: any IdentityLoginSource, keepingIdentity: Bool) async throws(AuthCoreError) {
        await cache.clearCredentials()
        do { try await resolver.switchLogin(to: login, keepingIdentity: keepingIdentity) } catch {
            await cache.clearCredentials()
            throw error
        }
        await cache.clearCredentials()
    }

    /// Completed credentials refreshes (successful or not).
    public var refreshAttempts: Int { get async { await cache.refreshAttempts } }

    /// When the cached credentials will be refreshed, if any are cached.
    public func refreshTime() async -> Timestamp? { await cache.refreshTime() }
}

/// What happens to a ``CognitoIdentityCredentialsProvider`` (``CognitoIdentityCredentialsProvider/events()``).
public enum CognitoIdentityEvent: Sendable, Equatable {
    /// Fresh credentials were fetched; they expire at `expiresAt`.
    case credentialsRefreshed(expiresAt: Timestamp?)
    /// A refresh failed (the cached credentials, if still valid, are used meanwhile).
    case refreshFailed(AuthCoreError.Code)
    /// The identity id became known or changed (the stored one when first read, a new one from the
    /// service or the backend), or nil when it was forgotten
    /// (``CognitoIdentityCredentialsProvider/clearIdentity()``, a switch, an id the service no longer knows).
    case identityChanged(identityId: String?)
}

extension CognitoIdentityCredentialsProvider: CustomStringConvertible, CustomReflectable {
    public var description: String { "CognitoIdentityCredentialsProvider(\(identityPoolId))" }
    public var customMirror: Mirror { Mirror(self, children: ["identityPoolId": identityPoolId], displayStyle: .class) }
}
