public import AuthCore

/// The limits a login service applies.
///
/// Failed proofs are counted in three places, each for ``failureWindow`` from its first failure,
/// so that a guesser is stopped without handing an outsider a way to lock someone else out:
/// - per user and client address (``maximumFailures``): brute force from one address stops;
/// - per user and device token (``maximumFailures``): a client that logged in as this user before
///   shows its token and is counted apart, so guesses from elsewhere never block it;
/// - per user, for every client without a device token (``maximumFailuresPerUser``): the bound on
///   a guess rate spread over many addresses.
public struct SRPLoginPolicy: Sendable {
    /// How long a begun login may wait for its second round trip.
    public var handshakeLifetime: Duration = .seconds(60)
    /// Failed proofs allowed per user and client address (and per user and device token) within
    /// ``failureWindow``; past it that address (or token) is refused for that user until the window ends.
    public var maximumFailures = 5
    /// Failed proofs allowed per user within ``failureWindow`` from every client without a device
    /// token together (successful logins are not counted); past it only clients with one of the
    /// user's device tokens are served.
    public var maximumFailuresPerUser = 20
    /// The window failures are counted in, from the first failure (also how long a refused client waits).
    public var failureWindow: Duration = .seconds(900)
    /// The longest username accepted, in UTF-8 bytes.
    public var maximumUsernameBytes = 256
    /// How long a device token (given with every successful login) is honoured.
    public var deviceTokenLifetime: Duration = .seconds(30 * 86_400)

    /// The defaults: 60 s per handshake; 5 failures per address or device and 20 per user without a
    /// device token, per 15 minutes; 256-byte usernames; device tokens for 30 days.
    public init() {}
}

/// Who asks for a login, as far as failure counting is concerned.
public struct LoginOrigin: Sendable {
    /// The client's network address (nil for callers in this process: they share one count).
    public var address: ClientAddress?
    /// The device token the client got from an earlier successful login, if it has one.
    public var deviceToken: String?
    /// Where `finish` records the user of the login it opened (before the proof is checked, so a
    /// failed login's access and audit lines name the user too); nil when nobody logs.
    public var notes: RequestNotes?

    /// An origin (all parts optional).
    public init(address: ClientAddress? = nil, deviceToken: String? = nil, notes: RequestNotes? = nil) {
        self.address = address
        self.deviceToken = deviceToken
        self.notes = notes
    }
}

/// The answer to the first round trip: what the client needs to compute its proof.
public struct SRPLoginChallenge: Sendable, Equatable {
    /// The handle of this login for the second round trip (32 hex digits, random).
    public let loginId: String
    /// The user's salt (for an unknown user, one derived from the server secret, of the same length).
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
    /// The device token for the client's next logins (secret: it lets its holder be counted apart
    /// from guessers).
    public let deviceToken: String
    /// The app session issued with the login, when `finish` was given ``AppSessions``.
    public let session: AppSession?

    public var description: String { "SRPLoginSuccess(\(username), key \(sessionKey.count) bytes)" }
}
