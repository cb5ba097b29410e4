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

    /// The counter's key: `authcore:session:generation:<SHA-256 of the username's bytes>`.
    static func key(_ username: String) -> String { "authcore:session:generation:\(userKey(username))" }

    /// A user's part of a store key: the SHA-256 of the name's bytes, 64 hex digits whatever its length.
    static func userKey(_ username: String) -> String { SHA256.hash(bytes: Array(username.utf8)).hexLowercased }
}
