public import AuthCore

/// A value read together with the counter it names: the value's first ``linkByteCount`` bytes, when
/// they are lowercase hex digits, complete a counter's key (``HandshakeStore/linkedValue(_:removing:counterPrefix:)``).
///
/// The app server stores each login state and each session as `link ‖ sealed record`, the link
/// being the SHA-256 of the user's name in hex ([`UserGeneration`]), so that one round trip
/// returns the record and the user's sign-out generation. The link is not trusted: the server
/// opens the record and refuses it unless the link is the one of the name sealed inside.
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
        return link.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) ? link : nil
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
    public init(generationKey: String, presentedGeneration: UInt64?, trusted: [(key: String, limit: Int)], untrusted: [(key: String, limit: Int)]) {
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

/// What a successful login writes, applied only when its attempt is within every limit
/// (``HandshakeStore/countAttempt(_:window:success:)``).
public struct SuccessWrites: Sendable {
    /// Counters removed (the client's own failure count).
    public var remove: [String] = []
    /// Counters taken one back from, removed at 0 (the attempt given back to the user-wide count).
    public var decrement: [String] = []
    /// Counters kept at least their lifetime from now, when present (the sign-out generation).
    public var keepAlive: [(key: String, lifetime: Duration)] = []
    /// A value stored unless its key is present (the new session); when it is, nothing else is written.
    public var insert: (key: String, value: [UInt8], lifetime: Duration)?

    /// Writes (all optional).
    public init(
        remove: [String] = [], decrement: [String] = [], keepAlive: [(key: String, lifetime: Duration)] = [],
        insert: (key: String, value: [UInt8], lifetime: Duration)? = nil
    ) {
        self.remove = remove
        self.decrement = decrement
        self.keepAlive = keepAlive
        self.insert = insert
    }
}

/// What ``HandshakeStore/countAttempt(_:window:success:)`` did.
public struct AttemptOutcome: Sendable, Equatable {
    /// What happened to the success writes.
    public enum Writes: Sendable, Equatable {
        /// Applied.
        case applied
        /// Not applied: a count went over its limit, or there were none to apply.
        case notApplied
        /// Not applied: the insert's key was present.
        case keyInUse
    }

    /// The new counts of the counters incremented, in order (the ones after the first over its
    /// limit are not incremented).
    public let counts: [Int]
    /// What happened to the success writes.
    public let writes: Writes

    /// An outcome.
    public init(counts: [Int], writes: Writes) {
        self.counts = counts
        self.writes = writes
    }
}

extension HandshakeStore {
    /// A ``take(_:)`` or ``value(_:)``, then the linked counter: two calls (a store in memory has no
    /// round trips to save).
    public func linkedValue(_ key: String, removing: Bool, counterPrefix: String) async throws(AuthCoreError) -> LinkedValue? {
        guard let value = removing ? try await take(key) : try await self.value(key) else { return nil }
        guard let link = LinkedValue.link(of: value) else { return LinkedValue(value: value, isLinked: false, counter: nil) }
        let counter = try await values([counterPrefix + String(decoding: link, as: UTF8.self)])[0]
        return LinkedValue(value: value, isLinked: true, counter: counter)
    }

    /// One read of the counters, then the insert.
    public func insert(_ value: [UInt8], forKey key: String, lifetime: Duration, admittedBy admission: LoginAdmission) async throws(AuthCoreError)
        -> AdmissionOutcome
    {
        let trusted = LoginAdmission.trusts(presented: admission.presentedGeneration, stored: try await values([admission.generationKey])[0])
        let limits = trusted ? admission.trusted : admission.untrusted
        let counts = try await values(limits.map(\.key)).map { $0.flatMap(StoredCounter.parse) ?? 0 }
        guard zip(counts, limits).allSatisfy({ $0 < $1.limit }) else { return .refused }
        return try await insert(value, forKey: key, lifetime: lifetime) ? .inserted : .keyInUse
    }

    /// ``incrementInTurn(_:window:)``, then the writes one call after another.
    public func countAttempt(_ counters: [(key: String, limit: Int)], window: Duration, success: SuccessWrites?) async throws(AuthCoreError)
        -> AttemptOutcome
    {
        let counts = try await incrementInTurn(counters, window: window)
        guard let success, counts.count == counters.count, zip(counts, counters).allSatisfy({ $0 <= $1.limit }) else {
            return AttemptOutcome(counts: counts, writes: .notApplied)
        }
        if let insert = success.insert, !(try await self.insert(insert.value, forKey: insert.key, lifetime: insert.lifetime)) {
            return AttemptOutcome(counts: counts, writes: .keyInUse)
        }
        try await settle(remove: success.remove, decrement: success.decrement, keepAlive: success.keepAlive)
        return AttemptOutcome(counts: counts, writes: .applied)
    }
}
