/// A bounded, thread-safe cache of scoped signing keys (SigV4, OSS V4), kept as keyed HMAC states.
///
/// Deriving a signing key costs four HMACs (kDate → kRegion → kService → kSigning;
/// ``SigningScheme``); keying the final HMAC costs two more compression calls. The cache keeps the
/// keyed HMAC-SHA256 state of the result (its inner and outer SHA-256 states, RFC 2104 §2) per
/// (scheme, access key id, SHA-256 fingerprint of the secret, date, region, service) — never keyed
/// by the secret itself — evicts the least recently used entry beyond its capacity, and wipes an
/// entry's state when it is freed.
public final class SigningKeyCache: Sendable, CustomReflectable {
    /// What a signing key is cached under. Its hash is computed once, when it is made: one cold
    /// signature looks the key up to four times (hit, race check, eviction, insert).
    struct Key: Hashable {
        let scheme: SigningScheme
        let accessKeyId: String
        let fingerprint: Digest
        /// The day, `yyyymmdd` as a number (``AmzDate/day``): the date's bytes are its digits.
        let day: Int
        let region: String
        let service: String
        private let hashCode: Int

        init(
            scheme: SigningScheme,
            accessKeyId: String,
            fingerprint: Digest,
            day: Int,
            region: String,
            service: String
        ) {
            self.scheme = scheme
            self.accessKeyId = accessKeyId
            self.fingerprint = fingerprint
            self.day = day
            self.region = region
            self.service = service
            var hasher = Hasher()
            hasher.combine(scheme)
            hasher.combine(accessKeyId)
            fingerprint.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(day)
            hasher.combine(region)
            hasher.combine(service)
            hashCode = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }

        /// Byte for byte: the key is derived from the UTF-8 bytes, and String's `==` would equate
        /// canonically equivalent spellings (`é` and `e` + U+0301) of a region or service whose keys
        /// differ. (Byte-equal strings are `==`, so equal keys still hash alike.)
        static func == (a: Key, b: Key) -> Bool {
            a.hashCode == b.hashCode && a.scheme == b.scheme && a.fingerprint == b.fingerprint && a.day == b.day
                && sameBytes(a.accessKeyId, b.accessKeyId) && sameBytes(a.region, b.region)
                && sameBytes(a.service, b.service)
        }

        private static func sameBytes(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
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
