public import AuthCore
public import AuthCoreClients
import Foundation

/// What `GET /distribute-token.json` hands a logged-in user: OSS STS credentials from Alibaba Cloud
/// STS `AssumeRole`, with a role session name per user (so STS and OSS logs name who acted) and a
/// session policy per user (``Role/policy`` with `${username}` placed, ``PerUserPolicy``), so the
/// credentials reach only that user's objects; kept in this instance's memory until five minutes
/// before they expire.
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
        /// The session policy narrowing the role's (JSON text, at most 2048 bytes once a name is
        /// placed), with `${username}` where each user's name goes:
        /// `{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject","oss:PutObject"],
        /// "Resource":["acs:oss:*:*:photos/users/${username}/*"]}]}`.
        public var policy: String?
        /// The role's external id, when its trust policy asks for one.
        public var externalId: String?
        /// Whether every user may get the same credentials (no policy, or one without
        /// `${username}`); without it such a role is refused.
        public var sharedAcrossUsers = false

        /// A role with 1-hour credentials and no narrowing policy.
        public init(roleArn: String) { self.roleArn = roleArn }

        /// Checks the policy template (see
        /// ``DistributeTokenVendor/init(client:role:credentials:clock:maximumCachedUsers:)``).
        func checked() throws(AuthCoreError) {
            guard let policy else {
                guard sharedAcrossUsers else {
                    throw AuthCoreError(
                        .malformedInput,
                        "distributeToken: without a policy every user's credentials reach every user's objects; give a policy with ${username} (or set sharedAcrossUsers)"
                    )
                }
                return
            }
            guard sharedAcrossUsers || PerUserPolicy.mentionsPlaceholder(policy) else {
                throw AuthCoreError(
                    .malformedInput,
                    "distributeToken.policy: the policy must contain ${username} so that each user's credentials reach only their objects (or set sharedAcrossUsers)"
                )
            }
            // JSON escapes are refused: the checks read the parsed document and the placeholder is
            // placed in the text, so the two must be the same text (`\u0024{username}` is
            // `${username}` to a parser, and nothing to the placement).
            guard !policy.utf8.contains(UInt8(ascii: "\\")) else {
                throw AuthCoreError(
                    .malformedInput,
                    "distributeToken.policy: write the policy without JSON escapes (\\)"
                )
            }
            let bytes = Array(policy.utf8)
            for index in bytes.indices where bytes[index...].starts(with: PerUserPolicy.placeholder.utf8) {
                let after = index + PerUserPolicy.placeholder.utf8.count
                guard after < bytes.count, bytes[after] == UInt8(ascii: "/") || bytes[after] == UInt8(ascii: "\"")
                else {
                    throw AuthCoreError(
                        .malformedInput,
                        "distributeToken.policy: ${username} must be followed by '/' or end its string (users/${username}/*)"
                    )
                }
            }
            // The longest name that can be placed must still give a JSON policy STS accepts.
            let longest = try PerUserPolicy.place(String(repeating: "x", count: 128), in: policy)
            guard longest.utf8.count <= 2048 else {
                throw AuthCoreError(
                    .malformedInput,
                    "distributeToken.policy: longer than 2048 bytes once a 128-byte username is placed"
                )
            }
            guard let document = (try? JSONSerialization.jsonObject(with: Data(policy.utf8))) as? [String: Any],
                (try? JSONSerialization.jsonObject(with: Data(longest.utf8))) is [String: Any]
            else { throw AuthCoreError(.malformedInput, "distributeToken.policy: not a JSON object") }
            var strings: [String] = []
            try Self.collectStrings(document, into: &strings)
            for text in strings {
                try PerUserPolicy.checkTemplate(text, boundedBySlash: false, what: "distributeToken.policy")
            }
            try PerUserPolicy.checkDisjoint(strings, what: "distributeToken.policy")
            if !sharedAcrossUsers { try Self.checkStatements(document) }
        }

        /// Every string value of the document; a member name with the placeholder is refused.
        private static func collectStrings(_ value: Any, into strings: inout [String]) throws(AuthCoreError) {
            switch value {
            case let text as String: strings.append(text)
            case let array as [Any]: for element in array { try collectStrings(element, into: &strings) }
            // bytes-lint: a policy document read to check its shape (member names fixed ASCII).
            case let object as [String: Any]:
                for (name, element) in object {
                    guard !PerUserPolicy.mentionsPlaceholder(name) else {
                        throw AuthCoreError(
                            .malformedInput,
                            "distributeToken.policy: ${username} belongs in values, not member names"
                        )
                    }
                    try collectStrings(element, into: &strings)
                }
            default: break
            }
        }

        /// Every statement that is not a `Deny` is bound to the user: it has a `Resource` (a string or
        /// strings, never `NotResource`) and every resource names `${username}`. A statement that
        /// names none, mixes per-user resources with others, or binds the user only in a `Condition`
        /// (whose operator could invert it) would reach every user's objects.
        // bytes-lint: a policy document read to check its shape (member names fixed ASCII).
        private static func checkStatements(_ document: [String: Any]) throws(AuthCoreError) {
            func refuse() -> AuthCoreError {
                AuthCoreError(
                    .malformedInput,
                    "distributeToken.policy: every Allow statement needs a Resource whose every entry contains ${username}; set sharedAcrossUsers to vend the same access to every user"
                )
            }
            let statements = (document["Statement"] as? [Any]) ?? (document["Statement"].map { [$0] } ?? [])
            guard !statements.isEmpty else { throw refuse() }
            for statement in statements {
                // bytes-lint: a policy document read to check its shape (member names fixed ASCII).
                guard let statement = statement as? [String: Any] else { throw refuse() }
                if (statement["Effect"] as? String) == "Deny" { continue }
                guard statement["NotResource"] == nil else { throw refuse() }
                let resources =
                    (statement["Resource"] as? [String]) ?? ((statement["Resource"] as? String).map { [$0] } ?? [])
                guard !resources.isEmpty, resources.allSatisfy(PerUserPolicy.mentionsPlaceholder) else {
                    throw refuse()
                }
            }
        }

        /// The session policy of `username`.
        func policy(for username: String) throws(AuthCoreError) -> String? {
            guard let policy, PerUserPolicy.mentionsPlaceholder(policy) else { return policy }
            return try PerUserPolicy.place(username, in: policy)
        }
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
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for a role without a per-user policy (unless
    ///   ``Role/sharedAcrossUsers``), a policy that misspells the placeholder, puts it anywhere
    ///   but before a `/` or at the end of a string, is not JSON, or is over 2048 bytes with a
    ///   128-byte name placed.
    public init(
        client: AliyunSTSClient,
        role: Role,
        credentials: Credentials,
        clock: any SigningClock = SystemClock(),
        maximumCachedUsers: Int = 10_000
    )
        throws(AuthCoreError)
    {
        try role.checked()
        self.client = client
        self.role = role
        self.credentials = credentials
        self.clock = clock
        self.maximumCachedUsers = max(1, maximumCachedUsers)
    }

    /// Credentials for `username`, from the cache while they have more than five minutes left.
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` for a name that cannot be placed in the policy;
    ///   what `AliyunSTSClient.assumeRole` throws.
    public func credentials(for username: String) async throws(AuthCoreError) -> Credentials {
        let policy = try role.policy(for: username)
        let now = clock.now()
        let key = Array(username.utf8)
        if let cached = cache[key], let expiration = cached.expiration,
            expiration > now.adding(seconds: Int64(Self.refreshMargin))
        {
            return cached
        }
        let task: Task<Credentials, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            let (client, role, credentials, name) = (client, role, credentials, Self.roleSessionName(for: username))
            task = Task {
                try await client.assumeRole(
                    roleArn: role.roleArn,
                    roleSessionName: name,
                    durationSeconds: role.durationSeconds,
                    policy: policy,
                    externalId: role.externalId,
                    credentials: credentials
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
        case .failure(let error):
            throw AuthCoreError(.credentialsUnavailable, "AssumeRole failed: \(type(of: error))").causedBy(error)
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
