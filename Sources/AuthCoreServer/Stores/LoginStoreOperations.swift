public import AuthCore

/// A value read together with the counter it names: the value's first ``linkByteCount`` bytes, when
/// they are lowercase hex digits, complete a counter's key (``HandshakeStore/linkedValue(_:removing:counterPrefix:)``).
///
/// The app server stores each session as `link ‖ sealed record`, the link being the SHA-256 of
/// the user's name in hex, so that one round trip returns the record and the user's sign-out
/// generation (a begun login's state has a longer header, ``LoginStateHeader``). The link is not
/// trusted: the server opens the record and refuses it unless the link is the one of the name
/// sealed inside.
public struct LinkedValue: Sendable, Equatable {
    /// The number of bytes of a link: 64 lowercase hex digits.
    public static let linkByteCount = 64

    /// The value as stored, link included.
    public let value: [UInt8]
    /// Whether the value began with a link (and ``counter`` is what it names).
    public let isLinked: Bool
    /// The counter the link names (nil when absent or when the value has no link).
    public let counter: [UInt8]?

    /// A value and what its link named.
    public init(value: [UInt8], isLinked: Bool, counter: [UInt8]?) {
        self.value = value
        self.isLinked = isLinked
        self.counter = counter
    }

    /// The link of `value`, if its first ``linkByteCount`` bytes are lowercase hex digits.
    static func link(of value: [UInt8]) -> ArraySlice<UInt8>? {
        guard value.count >= linkByteCount else { return nil }
        let link = value[..<linkByteCount]
        return link.allSatisfy(Hex.isLowerDigit) ? link : nil
    }
}

/// What ``HandshakeStore/insert(_:forKey:lifetime:admittedBy:)`` checks before it inserts: a
/// login's lockout, decided on the user's current sign-out generation.
///
/// The client is *trusted* when it showed a device token whose generation is at least the one
/// stored under ``generationKey`` (absent reads 0; a value that is not a counter trusts nobody):
/// then ``trusted``'s counters are checked, else ``untrusted``'s. Each counter must be below its
/// limit (absent, or not a counter, reads 0).
public struct LoginAdmission: Sendable {
    /// The user's sign-out generation counter.
    public var generationKey: String
    /// The generation sealed in the device token the client showed; nil without one.
    public var presentedGeneration: UInt64?
    /// The counters checked for a trusted client, with their limits.
    public var trusted: [(key: String, limit: Int)]
    /// The counters checked for every other client, with their limits.
    public var untrusted: [(key: String, limit: Int)]

    /// An admission check.
    public init(
        generationKey: String,
        presentedGeneration: UInt64?,
        trusted: [(key: String, limit: Int)],
        untrusted: [(key: String, limit: Int)]
    ) {
        self.generationKey = generationKey
        self.presentedGeneration = presentedGeneration
        self.trusted = trusted
        self.untrusted = untrusted
    }

    /// Whether a client that showed `presented` is trusted when the generation counter reads
    /// `stored` (nil: absent).
    static func trusts(presented: UInt64?, stored: [UInt8]?) -> Bool {
        guard let presented else { return false }
        guard let stored else { return true }
        guard let current = StoredCounter.parse(stored) else { return false }
        return presented >= UInt64(current)
    }
}

/// The outcome of an admitted insert.
public enum AdmissionOutcome: Sendable, Equatable {
    /// The value was stored.
    case inserted
    /// A counter was at its limit: nothing was stored.
    case refused
    /// The key was present: nothing was stored.
    case keyInUse
}

/// The clear header before a begun login's sealed state in the store, which lets one round trip
/// take the state and count its attempt (``HandshakeStore/takeLogin(_:counting:)``): `user link (64
/// lowercase hex: the SHA-256 of the name) ‖ device id (32 lowercase hex; all "0" without a device
/// token) ‖ the device token's sign-out generation (20 decimal digits)`.
///
/// The header is the store's word: the service opens the sealed state after it and refuses the
/// login unless the header says exactly what the state says. A store writer who changes it can
/// make one attempt count against other counters (or not count): no more than writing counters,
/// which such a writer can do anyway.
public struct LoginStateHeader: Sendable, Equatable {
    /// The header's length in bytes.
    public static let byteCount = 116
    /// The user link: 64 lowercase hex digits.
    public let userLink: [UInt8]
    /// The device id in lowercase hex (32 digits, all "0" without a device).
    public let deviceHex: [UInt8]
    /// The device token's generation (0 without a device).
    public let deviceGeneration: UInt64

    static let noDeviceHex = [UInt8](repeating: 0x30, count: 32)

    /// The header of a login by `username` with `deviceId` (nil: none) carrying `deviceGeneration`.
    init(username: String, deviceId: [UInt8]?, deviceGeneration: UInt64) {
        userLink = Array(UserGeneration.userKey(username).utf8)
        deviceHex = deviceId.map { Array(Hex.encode($0).utf8) } ?? Self.noDeviceHex
        self.deviceGeneration = deviceGeneration
    }

    /// The header at the start of `value`, nil when it is not one.
    init?(parsing value: [UInt8]) {
        guard value.count >= Self.byteCount else { return nil }
        let link = Array(value[0..<64])
        let device = Array(value[64..<96])
        let generation = value[96..<116]
        guard link.allSatisfy(Hex.isLowerDigit), device.allSatisfy(Hex.isLowerDigit),
            generation.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        var number: UInt64 = 0
        for digit in generation {
            let (times, overflowed) = number.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times.addingReportingOverflow(UInt64(digit - 0x30))
            guard !overflowed, !carried else { return nil }
            number = sum
        }
        userLink = link
        deviceHex = device
        deviceGeneration = number
    }

    /// Whether the header names a device.
    var hasDevice: Bool { deviceHex != Self.noDeviceHex }

    /// The header's bytes.
    var bytes: [UInt8] {
        let digits = Array(String(deviceGeneration).utf8)
        return userLink + deviceHex + [UInt8](repeating: 0x30, count: 20 - digits.count) + digits
    }
}

/// How ``HandshakeStore/takeLogin(_:counting:)`` counts a login's attempt: the counters' keys are
/// `failurePrefix ‖ user link ‖ suffix`, the suffix `deviceSuffix ‖ device id` for a trusted
/// client and `addressSuffix`, then `untrustedSuffix`, for every other.
public struct LoginCounting: Sendable {
    /// What precedes the user link in the generation counter's key.
    public var generationPrefix: String
    /// What precedes the user link in a failure counter's key.
    public var failurePrefix: String
    /// What follows the user link in a trusted client's counter, before the device id.
    public var deviceSuffix: String
    /// What follows the user link in the client's address counter.
    public var addressSuffix: String
    /// What follows the user link in the user-wide counter of untrusted clients.
    public var untrustedSuffix: String
    /// The counters' window (from the first count).
    public var window: Duration
    /// The limit of the client's own counter (address or device).
    public var maximumFailures: Int
    /// The limit of the user-wide counter.
    public var maximumFailuresPerUser: Int

    /// A counting rule.
    public init(
        generationPrefix: String,
        failurePrefix: String,
        deviceSuffix: String,
        addressSuffix: String,
        untrustedSuffix: String,
        window: Duration,
        maximumFailures: Int,
        maximumFailuresPerUser: Int
    ) {
        self.generationPrefix = generationPrefix
        self.failurePrefix = failurePrefix
        self.deviceSuffix = deviceSuffix
        self.addressSuffix = addressSuffix
        self.untrustedSuffix = untrustedSuffix
        self.window = window
        self.maximumFailures = maximumFailures
        self.maximumFailuresPerUser = maximumFailuresPerUser
    }

    /// The counters an attempt of a login with `header` counts, in turn, with their limits.
    func counters(_ header: LoginStateHeader, trusted: Bool) -> [(key: String, limit: Int)] {
        let base = failurePrefix + String(decoding: header.userLink, as: UTF8.self)
        if trusted {
            return [(base + deviceSuffix + String(decoding: header.deviceHex, as: UTF8.self), maximumFailures)]
        }
        return [(base + addressSuffix, maximumFailures), (base + untrustedSuffix, maximumFailuresPerUser)]
    }
}

/// A begun login taken out of the store with its attempt counted (``HandshakeStore/takeLogin(_:counting:)``).
public struct TakenLogin: Sendable, Equatable {
    /// The value as stored, header included.
    public let value: [UInt8]
    /// Whether the value began with a ``LoginStateHeader`` (nothing was counted otherwise).
    public let hasHeader: Bool
    /// The user's generation counter as read (nil when absent).
    public let generation: [UInt8]?
    /// Whether the client was counted as trusted (a device token at least as new as the generation).
    public let trusted: Bool
    /// The new counts of the counters incremented, in order (up to the first over its limit).
    public let counts: [Int]

    /// A taken login.
    public init(value: [UInt8], hasHeader: Bool, generation: [UInt8]?, trusted: Bool, counts: [Int]) {
        self.value = value
        self.hasHeader = hasHeader
        self.generation = generation
        self.trusted = trusted
        self.counts = counts
    }
}

extension HandshakeStore {
    /// A ``take(_:)`` or ``value(_:)``, then the linked counter: two calls (a store in memory has no
    /// round trips to save).
    public func linkedValue(
        _ key: String,
        removing: Bool,
        counterPrefix: String
    ) async throws(AuthCoreError) -> LinkedValue? {
        guard let value = removing ? try await take(key) : try await self.value(key) else { return nil }
        guard let link = LinkedValue.link(of: value) else {
            return LinkedValue(value: value, isLinked: false, counter: nil)
        }
        let counter = try await values([counterPrefix + String(decoding: link, as: UTF8.self)]).first ?? nil
        return LinkedValue(value: value, isLinked: true, counter: counter)
    }

    /// A read of the generation, one of the counters, then the insert.
    public func insert(
        _ value: [UInt8],
        forKey key: String,
        lifetime: Duration,
        admittedBy admission: LoginAdmission
    ) async throws(AuthCoreError)
        -> AdmissionOutcome
    {
        let generation = try await values([admission.generationKey]).first ?? nil
        let limits =
            LoginAdmission.trusts(presented: admission.presentedGeneration, stored: generation)
            ? admission.trusted : admission.untrusted
        let read = try await values(limits.map(\.key))
        guard read.count == limits.count else {
            throw AuthCoreError(.malformedResponse, "the store read \(read.count) values for \(limits.count) keys")
        }
        guard zip(read, limits).allSatisfy({ ($0.flatMap(StoredCounter.parse) ?? 0) < $1.limit }) else {
            return .refused
        }
        return try await insert(value, forKey: key, lifetime: lifetime) ? .inserted : .keyInUse
    }

    /// ``take(_:)``, a read of the generation, then ``incrementInTurn(_:window:)``.
    public func takeLogin(_ key: String, counting: LoginCounting) async throws(AuthCoreError) -> TakenLogin? {
        guard let value = try await take(key) else { return nil }
        guard let header = LoginStateHeader(parsing: value) else {
            return TakenLogin(value: value, hasHeader: false, generation: nil, trusted: false, counts: [])
        }
        let generation =
            try await values([counting.generationPrefix + String(decoding: header.userLink, as: UTF8.self)]).first
            ?? nil
        let trusted = header.hasDevice && LoginAdmission.trusts(presented: header.deviceGeneration, stored: generation)
        let counts = try await incrementInTurn(counting.counters(header, trusted: trusted), window: counting.window)
        return TakenLogin(value: value, hasHeader: true, generation: generation, trusted: trusted, counts: counts)
    }
}
