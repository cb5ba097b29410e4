import AuthCore

/// A user's sign-out generation: a counter in the shared store that ``AppSessions/revokeAll(for:)``
/// advances. Every session and every device token is sealed with the value current when it was
/// issued, and one sealed with a lower value than the current one is refused: "sign out
/// everywhere" ends the user's sessions and forgets the user's devices on every instance.
///
/// The counter is kept for ``lifetime`` from each advance, longer than any session (7 days at
/// most) or device token (400 days at most) can live, so when it expires and reads 0 again nothing
/// sealed before the advance is still alive.
enum UserGeneration {
    /// How long a counter is kept after it is advanced: 400 days.
    static let lifetime: Duration = .seconds(400 * 86_400)

    /// What precedes a user's part in the counter's key (and a ``LinkedValue``'s link).
    static let keyPrefix = "authcore:session:generation:"

    /// The counter's key: `authcore:session:generation:<SHA-256 of the username's bytes>`.
    static func key(_ username: String) -> String { keyPrefix + userKey(username) }

    /// The generation a read of the counter gives: 0 when absent, nil when the value is not a
    /// counter (a store that lost or garbled it: nothing sealed with any generation is trusted).
    static func parse(_ stored: [UInt8]?) -> UInt64? {
        guard let stored else { return 0 }
        return StoredCounter.parse(stored).map(UInt64.init)
    }

    /// A user's part of a store key: the SHA-256 of the name's bytes, 64 hex digits whatever its length.
    static func userKey(_ username: String) -> String { SHA256.hash(bytes: Array(username.utf8)).hexLowercased }
}
