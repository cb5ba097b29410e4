public import AuthCore

/// App session tokens, issued after a login and checked on every later request, kept in the same
/// ``HandshakeStore`` as the logins so that any instance accepts a token another issued.
///
/// A token is 32 bytes from the system generator, URL-safe Base64 without padding (43 characters,
/// RFC 4648 §5), sent as `Authorization: Bearer <token>` (RFC 6750 §2.1). The store holds only its
/// SHA-256 (a copy of the store gives no usable token) mapped to the user and the expiry; the
/// expiry is checked on each lookup as well as set as the entry's lifetime.
public struct AppSessions: Sendable {
    /// How long a token is valid.
    public let lifetime: Duration
    private let store: any HandshakeStore
    private let clock: any SigningClock

    /// The characters of a token.
    static let tokenByteCount = 43

    /// Sessions in `store` lasting `lifetime` (1 s … 7 days).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a lifetime outside that range.
    public init(store: any HandshakeStore, lifetime: Duration = .seconds(3600), clock: any SigningClock = SystemClock()) throws(AuthCoreError) {
        guard lifetime >= .seconds(1), lifetime <= .seconds(7 * 86_400) else {
            throw AuthCoreError(.invalidParameter, "a session lifetime is 1 second to 7 days")
        }
        self.lifetime = lifetime
        self.store = store
        self.clock = clock
    }

    /// A new session for `username`.
    ///
    /// - Throws: `AuthCoreError.Code.randomFailure`, and the store's errors (then no token exists).
    public func issue(for username: String) async throws(AuthCoreError) -> AppSession {
        let token = Base64.encode(try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) }, alphabet: .urlSafe, padding: false)
        let expiresAt = clock.now().adding(lifetime)
        var value = withUnsafeBytes(of: SRPLoginService.milliseconds(expiresAt).bigEndian) { Array($0) }
        value.append(contentsOf: username.utf8)
        guard try await store.insert(value, forKey: Self.key(token), lifetime: lifetime) else {
            throw AuthCoreError(.randomFailure, "a fresh session token was already in use")
        }
        return AppSession(token: SecureBytes(Array(token.utf8)), username: username, expiresAt: expiresAt)
    }

    /// The user of a live session.
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` for a token that is malformed, unknown, expired
    ///   or revoked (one message for all: the answer says nothing about which), and the store's errors.
    public func username(for token: String) async throws(AuthCoreError) -> String {
        let refused = AuthCoreError(.notPermitted, "the session token is missing, unknown or expired")
        guard token.utf8.count == Self.tokenByteCount, (try? Base64.decode(token, alphabet: .urlSafe))?.count == 32,
            let value = try await store.value(Self.key(token)), value.count > 8
        else { throw refused }
        let expiry = value.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard SRPLoginService.milliseconds(clock.now()) < expiry else { throw refused }
        return String(decoding: value.dropFirst(8), as: UTF8.self)
    }

    /// Ends a session (a later lookup fails); nothing happens for an unknown token.
    public func revoke(_ token: String) async throws(AuthCoreError) {
        guard token.utf8.count == Self.tokenByteCount else { return }
        try await store.remove(Self.key(token))
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
    public var customMirror: Mirror { Mirror(self, children: ["username": username, "expiresAt": expiresAt], displayStyle: .struct) }
}
