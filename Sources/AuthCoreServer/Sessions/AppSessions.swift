public import AuthCore

/// App session tokens, issued after a login and checked on every later request, kept in the same
/// ``HandshakeStore`` as the logins so that any instance accepts a token another issued.
///
/// A token is 32 bytes from the system generator, URL-safe Base64 without padding (43 characters,
/// RFC 4648 §5), sent as `Authorization: Bearer <token>` (RFC 6750 §2.1). The store holds only its
/// SHA-256 (a copy of the store gives no usable token) under `authcore:session:<hex>`, mapped to a
/// record sealed with AES-256-GCM under a key of the server secret (``ServerKeys``), with that
/// store key as associated data: `version (1) ‖ expiry, ms since 1970 (8) ‖ the user's session
/// generation (8) ‖ username`, after a link to the user's generation counter (``LinkedValue``:
/// checking a session is one round trip). The link is the SHA-256 of the username in hex, which the
/// generation counter's key carries already: someone who can read the store and guess usernames
/// can tell whose sessions are there (not use them). So a store writer can delete a session, or put back one it saw
/// within its lifetime, but cannot make one for any user, extend one, or move one to another
/// token: each is a record that does not open, and the request is refused as if the token were
/// unknown.
///
/// Ending sessions: ``revoke(_:)`` removes one; ``revokeAll(for:)`` advances the user's sign-out
/// generation (a counter in the store, kept 400 days), and a session sealed with an older generation than the current
/// one is refused; so are the user's device tokens (``SRPLoginService``).
public struct AppSessions: Sendable {
    /// How long a token is valid.
    public let lifetime: Duration
    private let store: any HandshakeStore
    private let sealingKey: SecureBytes
    private let clock: any SigningClock

    /// The characters of a token.
    static let tokenByteCount = 43
    static let recordVersion: UInt8 = 1

    /// Sessions in `store` lasting `lifetime` (1 s … 7 days), sealed under `keys`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a lifetime outside that range.
    public init(
        store: any HandshakeStore,
        keys: ServerKeys,
        lifetime: Duration = .seconds(3600),
        clock: any SigningClock = SystemClock()
    )
        throws(AuthCoreError)
    {
        guard lifetime >= .seconds(1), lifetime <= .seconds(7 * 86_400) else {
            throw AuthCoreError(.invalidParameter, "a session lifetime is 1 second to 7 days")
        }
        self.lifetime = lifetime
        self.store = store
        self.sealingKey = keys.sessionSealing
        self.clock = clock
    }

    /// Sessions in `store` sealed under the keys of `serverSecret` (see ``ServerKeys``).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a lifetime outside 1 s … 7 days or a
    ///   secret shorter than 32 bytes.
    public init(
        store: any HandshakeStore,
        serverSecret: SecureBytes,
        lifetime: Duration = .seconds(3600),
        clock: any SigningClock = SystemClock()
    ) throws(AuthCoreError) {
        try self.init(store: store, keys: try ServerKeys(serverSecret: serverSecret), lifetime: lifetime, clock: clock)
    }

    /// A new session for `username`.
    ///
    /// - Throws: `AuthCoreError.Code.randomFailure`, and the store's errors (then no token exists).
    public func issue(for username: String) async throws(AuthCoreError) -> AppSession {
        // Read, and kept alive for this session's lifetime: a revocation that comes later advances it.
        let generation = try await store.counter(UserGeneration.key(username), keepingFor: lifetime)
        let prepared = try prepare(for: username, generation: UInt64(generation))
        guard try await store.insert(prepared.value, forKey: prepared.key, lifetime: lifetime) else {
            throw AuthCoreError(.randomFailure, "a fresh session token was already in use")
        }
        return prepared.session
    }

    /// A new session for `username` sealed with `generation`, not yet stored: the store key and the
    /// value to insert there (for `lifetime`), `link ‖ sealed record` (``LinkedValue``). The caller
    /// keeps the user's generation counter alive at least as long.
    package func prepare(
        for username: String,
        generation: UInt64
    ) throws(AuthCoreError) -> (session: AppSession, key: String, value: [UInt8]) {
        let token = Base64.encode(
            try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) },
            alphabet: .urlSafe,
            padding: false
        )
        let expiresAt = clock.now().adding(lifetime)
        var record = RecordWriter(capacity: 17 + username.utf8.count)  // version, expiry, generation, name
        record.byte(Self.recordVersion)
        record.uint64(UInt64(bitPattern: SRPLoginService.milliseconds(expiresAt)))
        record.uint64(generation)
        record.raw(username.utf8)
        let key = Self.key(token)
        let sealed = try StoreSeal.seal(record.bytes, key: sealingKey, associatedData: Array(key.utf8))
        let session = AppSession(token: SecureBytes(Array(token.utf8)), username: username, expiresAt: expiresAt)
        return (session, key, Array(UserGeneration.userKey(username).utf8) + sealed)
    }

    /// The user of a live session: one round trip (the record and the user's generation, through
    /// the record's link).
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` for a token that is malformed, unknown, expired,
    ///   revoked or whose record does not open (one message for all: the answer says nothing about
    ///   which), and the store's errors.
    public func username(for token: String) async throws(AuthCoreError) -> String {
        let refused = AuthCoreError(.notPermitted, "the session token is missing, unknown or expired")
        guard Self.isWellFormed(token) else { throw refused }
        let key = Self.key(token)
        guard let stored = try await store.linkedValue(key, removing: false, counterPrefix: UserGeneration.keyPrefix)
        else { throw refused }
        // A record written before links (one round trip more) opens as a whole.
        let sealed = stored.isLinked ? Array(stored.value.dropFirst(LinkedValue.linkByteCount)) : stored.value
        let username: [UInt8]
        let generation: UInt64
        do {
            var record = RecordReader(
                try StoreSeal.open(sealed, key: sealingKey, associatedData: Array(key.utf8)).withUnsafeBytes {
                    Array($0)
                }
            )
            guard try record.byte() == Self.recordVersion else { throw refused }
            guard SRPLoginService.milliseconds(clock.now()) < Int64(bitPattern: try record.uint64()) else {
                throw refused
            }
            generation = try record.uint64()
            username = record.rest()
        } catch {
            throw refused
        }
        let name = String(decoding: username, as: UTF8.self)
        // The link is the store's word, not the record's: it must name this user's counter. The
        // generation of an unlinked record is read only once it opened (a forged entry costs one
        // round trip).
        let counter: [UInt8]?
        if stored.isLinked {
            guard stored.value.prefix(LinkedValue.linkByteCount).elementsEqual(UserGeneration.userKey(name).utf8) else {
                throw refused
            }
            counter = stored.counter
        } else {
            counter = try await store.values([UserGeneration.key(name)]).first ?? nil
        }
        guard let current = UserGeneration.parse(counter), generation >= current else { throw refused }
        return name
    }

    /// Ends a session (a later lookup fails); nothing happens for an unknown token.
    public func revoke(_ token: String) async throws(AuthCoreError) {
        guard Self.isWellFormed(token) else { return }
        try await store.remove(Self.key(token))
    }

    /// Ends every session of `username` issued so far and forgets the user's device tokens, on
    /// every instance (sessions issued later are not affected).
    ///
    /// - Throws: the store's errors (then nothing changed).
    public func revokeAll(for username: String) async throws(AuthCoreError) {
        _ = try await store.advance(UserGeneration.key(username), keepingFor: UserGeneration.lifetime)
    }

    /// 43 characters of the URL-safe alphabet that decode to 32 bytes.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == tokenByteCount && (try? Base64.decode(token, alphabet: .urlSafe))?.count == 32
    }

    static func key(_ token: String) -> String { "authcore:session:\(SHA256.hash(string: token).hexLowercased)" }
}

/// A session just issued: the bearer token for the app, and whose it is.
public struct AppSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The bearer token (ASCII), secret.
    public let token: SecureBytes
    /// Who logged in.
    public let username: String
    /// When the token stops being accepted.
    public let expiresAt: Timestamp

    /// The user and expiry, never the token.
    public var description: String { "AppSession(\(username), until \(expiresAt.iso8601))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "expiresAt": expiresAt], displayStyle: .struct)
    }
}
