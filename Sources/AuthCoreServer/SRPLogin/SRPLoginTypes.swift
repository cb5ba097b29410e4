public import AuthCore

/// The limits a login service applies.
public struct SRPLoginPolicy: Sendable {
    /// How long a begun login may wait for its second round trip.
    public var handshakeLifetime: Duration = .seconds(60)
    /// Failed attempts per user allowed within ``failureWindow``; the next begin or finish is refused
    /// until the window ends.
    public var maximumFailures = 5
    /// The window failures are counted in, from the first failure (also how long a locked-out user waits).
    public var failureWindow: Duration = .seconds(900)
    /// The longest username accepted, in UTF-8 bytes.
    public var maximumUsernameBytes = 256

    /// The defaults: 60 s per handshake, 5 failures per 15 minutes, 256-byte usernames.
    public init() {}
}

/// The answer to the first round trip: what the client needs to compute its proof.
public struct SRPLoginChallenge: Sendable, Equatable {
    /// The handle of this login for the second round trip (32 hex digits, random).
    public let loginId: String
    /// The user's salt (for an unknown user, one derived from the server secret).
    public let salt: [UInt8]
    /// `B`, big-endian at N's width.
    public let serverPublicValue: [UInt8]
}

/// A finished login: the client's proof verified.
public struct SRPLoginSuccess: Sendable, CustomStringConvertible {
    /// Who logged in.
    public let username: String
    /// `M2`, for the client to check the server.
    public let serverProof: [UInt8]
    /// `K`, the shared session key.
    public let sessionKey: SecureBytes

    public var description: String { "SRPLoginSuccess(\(username), key \(sessionKey.count) bytes)" }
}
