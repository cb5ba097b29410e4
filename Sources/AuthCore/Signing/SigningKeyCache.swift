/// A bounded, thread-safe cache of scoped signing keys (SigV4, OSS V4), kept as keyed HMAC states.
///
/// Deriving a signing key costs four HMACs (kDate → kRegion → kService → kSigning;
/// ``SigningScheme``); keying the final HMAC costs two more compression calls. The cache keeps the
/// keyed HMAC-SHA256 state of the result (its inner and outer SHA-256 states, RFC 2104 §2) per
/// day and scope, the scope named by a SHA-256 of (scheme, access key id, region, service, secret)
/// — never keyed by the secret itself — evicts the least recently used entry beyond its capacity, and wipes an
/// entry's state when it is freed.
public final class SigningKeyCache: Sendable, CustomReflectable {
    /// What a signing key is cached under: its scope's identity (SHA-256 of the scheme, access key
    /// id, region, service and secret: ``ScopedSigningKeys/cacheIdentity(scheme:accessKeyId:region:service:secret:)``)
    /// and its day. Equal identities are equal scopes unless SHA-256 collides, so a lookup hashes one
    /// word and compares 32 bytes and a number: no string is hashed, compared or retained.
    struct Key: Hashable {
        let scope: Digest
        /// The day, `yyyymmdd` as a number (``AmzDate/day``): the date's bytes are its digits.
        let day: Int

        /// The identity's first eight bytes (uniform: a SHA-256 output) with the day mixed in by an
        /// odd multiplier (a bijection, so two days of one scope never share it). The dictionary
        /// still passes it through its own seeded hash.
        func hash(into hasher: inout Hasher) {
            let word = scope.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            hasher.combine(word ^ (UInt64(bitPattern: Int64(day)) &* 0x9E37_79B9_7F4A_7C15))
        }
    }

    /// A signing key's HMAC-SHA256 schedule (the key itself is not kept: the schedule is all a
    /// signature needs). Immutable, so signatures under it need no lock; one heap object (its saved
    /// states in the object's tail), copied as one reference.
    typealias Entry = HMACSHA256Schedule

    private struct State {
        var entries: [Key: (entry: Entry, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let state = Locked(State())
    /// The most entries kept.
    public let capacity: Int

    /// A cache of at most `capacity` keys.
    public init(capacity: Int = 64) { self.capacity = Swift.max(1, capacity) }

    /// The process-wide cache the signers use by default.
    public static let shared = SigningKeyCache()

    /// The number of cached keys.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Drops every entry (their keys are wiped when the last signer using them lets go).
    public func removeAll() { state.withLock { $0.entries.removeAll() } }

    func entry(for key: Key, derive: () -> Entry) -> Entry {
        if let found = state.withLock({ state -> Entry? in
            guard let hit = state.entries[key] else { return nil }
            state.clock &+= 1
            state.entries[key] = (hit.entry, state.clock)
            return hit.entry
        }) {
            return found
        }
        let entry = derive()  // derived outside the lock
        return state.withLock { state in
            state.clock &+= 1
            if let raced = state.entries[key] {
                state.entries[key] = (raced.entry, state.clock)
                return raced.entry
            }
            if state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries.removeValue(forKey: oldest)
            }
            state.entries[key] = (entry, state.clock)
            return entry
        }
    }
}

extension SigningKeyCache {
    /// The capacity only: entries hold keyed MAC states.
    public var customMirror: Mirror { Mirror(self, children: ["capacity": capacity], displayStyle: .class) }
}
