public import AuthCore
public import AuthCoreClients

/// What `GET /distribute-token.json` hands a logged-in user: OSS STS credentials from Alibaba Cloud
/// STS `AssumeRole`, with a role session name per user (so STS and OSS logs name who acted), kept in
/// this instance's memory until five minutes before they expire.
///
/// Concurrent requests for one user share one `AssumeRole` call. The cache holds at most
/// ``maximumCachedUsers`` users (expired entries are dropped first when it is full); credentials
/// are never written to the shared store.
public actor DistributeTokenVendor {
    /// The role, the lifetime and how much the credentials may do.
    public struct Role: Sendable {
        /// `acs:ram::<account>:role/<name>`.
        public var roleArn: String
        /// 900…43200 seconds.
        public var durationSeconds = 3600
        /// A policy narrowing the role's (JSON text, at most 2048 bytes).
        public var policy: String?
        /// The role's external id, when its trust policy asks for one.
        public var externalId: String?

        /// A role with 1-hour credentials and no narrowing policy.
        public init(roleArn: String) { self.roleArn = roleArn }
    }

    /// How long before expiry cached credentials are replaced.
    public static let refreshMargin = 300
    /// The most users whose credentials are cached.
    public let maximumCachedUsers: Int

    private let client: AliyunSTSClient
    private let role: Role
    private let credentials: Credentials
    private let clock: any SigningClock
    // Keyed by the username's UTF-8 bytes, as the verifier store and the session name are: String
    // keys compare by canonical equivalence, so "jos\u{E9}" and "jose\u{301}" (two accounts) would
    // share one user's credentials.
    private var cache: [[UInt8]: Credentials] = [:]
    private var inFlight: [[UInt8]: Task<Credentials, any Error>] = [:]

    /// A vendor calling `client` with the long-term `credentials`.
    public init(client: AliyunSTSClient, role: Role, credentials: Credentials, clock: any SigningClock = SystemClock(), maximumCachedUsers: Int = 10_000) {
        self.client = client
        self.role = role
        self.credentials = credentials
        self.clock = clock
        self.maximumCachedUsers = max(1, maximumCachedUsers)
    }

    /// Credentials for `username`, from the cache while they have more than five minutes left.
    ///
    /// - Throws: what `AliyunSTSClient.assumeRole` throws.
    public func credentials(for username: String) async throws(AuthCoreError) -> Credentials {
        let now = clock.now()
        let key = Array(username.utf8)
        if let cached = cache[key], let expiration = cached.expiration, expiration > now.adding(seconds: Int64(Self.refreshMargin)) {
            return cached
        }
        let task: Task<Credentials, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            let (client, role, credentials, name) = (client, role, credentials, Self.roleSessionName(for: username))
            task = Task {
                try await client.assumeRole(
                    roleArn: role.roleArn, roleSessionName: name, durationSeconds: role.durationSeconds, policy: role.policy,
                    externalId: role.externalId, credentials: credentials
                ).credentials
            }
            inFlight[key] = task
        }
        let result = await task.result
        if inFlight[key] == task { inFlight[key] = nil }  // not a newer call's task
        switch result {
        case .success(let issued):
            store(issued, for: key)
            return issued
        case .failure(let error as AuthCoreError): throw error
        case .failure(let error): throw AuthCoreError(.credentialsUnavailable, "AssumeRole failed: \(type(of: error))").causedBy(error)
        }
    }

    private func store(_ issued: Credentials, for key: [UInt8]) {
        if cache.count >= maximumCachedUsers, cache[key] == nil {
            let now = clock.now()
            cache = cache.filter { $0.value.expiration.map { $0 > now } ?? false }
            if cache.count >= maximumCachedUsers, let some = cache.keys.first { cache[some] = nil }
        }
        cache[key] = issued
    }

    /// The `RoleSessionName` for a user: the username itself when STS accepts it (2–64 characters of
    /// `A-Za-z0-9.@-_`) and it does not start with `h.`; otherwise `h.` and the first 40 hex digits of
    /// its SHA-256 (names with other characters stay distinct and traceable).
    public static func roleSessionName(for username: String) -> String {
        if AliyunSTSClient.isValidRoleSessionName(username), !username.hasPrefix("h.") { return username }
        return "h." + SHA256.hash(string: username).hexLowercased.prefix(40)
    }
}
