public import AuthCore

/// A cache around any credentials source that refreshes before expiry, once, however many callers wait.
///
/// - Refreshes when less than ``window`` remains (default 5 minutes); for credentials whose whole
///   lifetime is shorter than twice the window, at half their lifetime.
/// - Single flight: one refresh runs at a time; every caller that needs it awaits the same one.
/// - Callers inside the window whose credentials are still valid get them at once (a slow refresh
///   does not block them), while the refresh runs in the background; if it fails they keep getting
///   the current credentials until those expire. Callers after expiry wait for the refresh and get
///   its error if it fails.
/// - A failed refresh is retried no sooner than an exponential backoff (1 s doubling to 60 s, with
///   jitter: a random 50–100 % of the step), never in a tight loop; during the backoff, callers
///   without valid credentials get the last error.
/// - Credentials within ``safetyMargin`` (default 10 s) of their expiry are never handed out: they
///   count as expired, so a caller cannot get credentials that die on the way to the service.
/// - A refresh that returns credentials already expired, or living less than ``minimumLifetime``
///   (default 60 s, which would otherwise make almost every call a refresh), is an error and backs off.
/// - A source that does not answer within ``timeLimit`` (default 30 s) fails the refresh with
///   `AuthCoreError.Code.timedOut` (and is cancelled).
/// - A waiting caller whose task is cancelled stops waiting at once
///   (`AuthCoreError.Code.cancelled`); the shared refresh goes on for the others.
public actor RefreshingCredentialsProvider: CredentialsProvider {
    /// The source.
    public nonisolated let source: any CredentialsProvider
    /// Refresh when less than this many seconds remain.
    public nonisolated let window: Int64
    /// Credentials with less than this many seconds left are not handed out.
    public nonisolated let safetyMargin: Int64
    /// A refresh whose credentials live less than this many seconds is refused.
    public nonisolated let minimumLifetime: Int64
    /// How long one call of the source may take.
    public nonisolated let timeLimit: Duration
    /// The longest ``timeLimit``: one day.
    public static let longestTimeLimit: Duration = .seconds(86_400)
    nonisolated let clock: any SigningClock
    nonisolated let random: any SecureRandomGenerator

    private var cached: Credentials?
    private var fetchedAt: Timestamp?
    private var inflight: Task<Credentials, any Error>?
    private var failures = 0
    private var retryAfter: Timestamp?
    private var lastError: AuthCoreError?
    /// Bumped by `clearCredentials()`: a refresh that started before a clear hands its answer to the
    /// callers that waited for it but does not cache it.
    private var generation = 0
    /// Completed refreshes (successful or not), for observability and tests.
    public private(set) var refreshAttempts = 0
    /// Told of each refresh that completed for the current generation (not one a clear overtook):
    /// the fresh credentials' expiry, or the error.
    public let onRefresh: (@Sendable (Result<Timestamp?, AuthCoreError>) -> Void)?

    /// A cache around `source`.
    ///
    /// Negative windows and margins count as 0, the margin at most one day; the minimum lifetime is
    /// at least the safety margin plus one second; the time limit lies within 0 s…1 day.
    public init(
        source: any CredentialsProvider,
        window: Int64 = 300,
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        safetyMargin: Int64 = 10,
        minimumLifetime: Int64 = 60,
        timeLimit: Duration = .seconds(30),
        onRefresh: (@Sendable (Result<Timestamp?, AuthCoreError>) -> Void)? = nil
    ) {
        self.onRefresh = onRefresh
        self.source = source
        self.window = Swift.max(0, window)
        self.safetyMargin = Swift.min(Swift.max(0, safetyMargin), 86_400)
        self.minimumLifetime = Swift.max(self.safetyMargin + 1, minimumLifetime)
        self.timeLimit = Swift.min(Swift.max(timeLimit, .zero), Self.longestTimeLimit)
        self.clock = clock
        self.random = random
    }

    /// Whether `credentials` may still be handed out at `now`: not within the safety margin of expiry.
    private func usable(_ credentials: Credentials, at now: Timestamp) -> Bool {
        !credentials.isExpired(at: now.adding(seconds: safetyMargin))
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        let now = clock.now()
        if let current = cached, usable(current, at: now) {
            if needsRefresh(current, now: now), canAttempt(now: now) {
                _ = startRefresh()  // in the background: valid credentials are returned at once
            }
            return current
        }
        // No valid credentials: wait for a refresh (the one in flight, or a new one).
        if inflight == nil, !canAttempt(now: now), let lastError {
            throw lastError
        }
        return try await awaitResult(of: startRefresh(), describing: "the credentials refresh")
    }

    /// Forgets the cached credentials and any backoff; a refresh in flight is no longer waited for or
    /// cached. The next call fetches new credentials.
    public func clearCredentials() {
        generation += 1
        cached = nil
        fetchedAt = nil
        inflight = nil
        failures = 0
        retryAfter = nil
        lastError = nil
    }

    /// When the cached credentials will be refreshed, if any are cached.
    public func refreshTime() -> Timestamp? {
        guard let current = cached, let expiration = current.expiration else { return nil }
        return expiration.adding(seconds: -refreshLead(current))
    }

    // MARK: - Policy

    /// Seconds before expiry at which to refresh: the window, or half the lifetime when the lifetime
    /// is shorter than twice the window.
    private func refreshLead(_ credentials: Credentials) -> Int64 {
        guard let expiration = credentials.expiration, let fetchedAt else { return window }
        let lifetime = fetchedAt.seconds(until: expiration)
        return lifetime / 2 < window ? lifetime / 2 : window
    }

    private func needsRefresh(_ credentials: Credentials, now: Timestamp) -> Bool {
        guard let expiration = credentials.expiration else { return false }  // long-term keys never expire
        return now.seconds(until: expiration) <= refreshLead(credentials)
    }

    private func canAttempt(now: Timestamp) -> Bool {
        guard let retryAfter else { return true }
        return now >= retryAfter
    }

    // MARK: - Single flight

    private func startRefresh() -> Task<Credentials, any Error> {
        if let inflight { return inflight }
        let started = generation
        let task = Task { try await self.refresh(generation: started) }
        inflight = task
        return task
    }

    private func refresh(generation started: Int) async throws -> Credentials {
        defer { if generation == started { inflight = nil } }
        // The lifetime counts from when the request went out (the issuer's clock started no earlier),
        // so a slow answer makes the refresh come earlier, never later.
        let requested = clock.now()
        do {
            let source = self.source
            let fresh = try await awaitResult(
                of: Task { try await source.credentials() },
                timeLimit: timeLimit,
                describing: "the credentials source"
            )
            let now = clock.now()
            guard !fresh.isExpired(at: now) else {
                throw AuthCoreError(.expired, "the credentials source returned credentials that are already expired")
            }
            if let expiration = fresh.expiration, now.seconds(until: expiration) < minimumLifetime {
                throw AuthCoreError(
                    .expired,
                    "the credentials source returned credentials that expire in \(now.seconds(until: expiration)) s, less than the \(minimumLifetime) s minimum"
                )
            }
            refreshAttempts += 1
            AuthCoreLog.log(
                .info,
                "authcore.credentials",
                "credentials refreshed",
                [
                    "source": "\(type(of: source))", "expiration": fresh.expiration?.iso8601 ?? "none",
                ]
            )
            guard generation == started else { return fresh }  // cleared meanwhile: not cached
            onRefresh?(.success(fresh.expiration))
            cached = fresh
            fetchedAt = requested
            failures = 0
            retryAfter = nil
            lastError = nil
            return fresh
        } catch {
            refreshAttempts += 1
            let typed =
                error as? AuthCoreError
                ?? AuthCoreError(.credentialsUnavailable, "credentials refresh failed: \(type(of: error))").causedBy(
                    error
                )
            guard generation == started else { throw typed }
            failures += 1
            let step = Swift.min(60.0, Double(1 << Swift.min(failures - 1, 6)))
            var jitterByte: UInt8 = 0
            try? withUnsafeMutableBytes(of: &jitterByte) { try random.fill($0) }
            let delay = step * (0.5 + 0.5 * Double(jitterByte) / 255.0)
            retryAfter = clock.now().adding(seconds: Swift.max(1, Int64(delay.rounded(.up))))
            AuthCoreLog.log(
                .warning,
                "authcore.credentials",
                "credentials refresh failed",
                [
                    "source": "\(type(of: source))", "error": "\(typed.code)", "failures": String(failures),
                    // A service's refusal by its type, status and request id; never its message (server text).
                    "reason": typed.code == .serviceError ? AuthCoreLog.serviceRefusal(typed) : typed.reason,
                ]
            )
            lastError = typed
            onRefresh?(.failure(typed))
            throw typed
        }
    }
}
