
/// A bounded, thread-safe cache of SigV4 signing keys and their keyed HMAC contexts.
///
/// Deriving a signing key costs four HMACs (kDate → kRegion → kService → kSigning; SigV4 "Calculate
/// the signature"); keying the final HMAC costs two more compression calls. The cache keeps both per
/// (access key id, SHA-256 fingerprint of the secret, date, region, service) — never keyed by the
/// secret itself — evicts the least recently used entry beyond its capacity, and wipes an entry's key
/// and context when it is freed.
public final class SigningKeyCache: Sendable, CustomReflectable {
    struct Key: Hashable {
        /// Which derivation: 0 = AWS SigV4 ("AWS4", "aws4_request"), 1 = OSS V4 ("aliyun_v4", "aliyun_v4_request").
        var scheme: UInt8 = 0
        let accessKeyId: String
        let fingerprint: [UInt8]
        let date: String
        let region: String
        let service: String
    }

    /// A signing key and its keyed HMAC-SHA256 context.
    final class Entry: Sendable {
        let signingKey: SecureBytes
        let mac: Locked<KeyedHMAC>

        init(signingKey: SecureBytes) {
            self.signingKey = signingKey
            self.mac = Locked(KeyedHMAC(algorithm: .sha256, key: signingKey))
        }

        /// HMAC-SHA256 under the signing key.
        func authenticate(_ message: UnsafeRawBufferPointer) -> Digest {
            mac.withLock { $0.authenticationCode(for: message) }
        }
    }

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

    func entry(for key: Key, derive: () -> SecureBytes) -> Entry {
        if let found = state.withLock({ state -> Entry? in
            guard let hit = state.entries[key] else { return nil }
            state.clock &+= 1
            state.entries[key] = (hit.entry, state.clock)
            return hit.entry
        }) {
            return found
        }
        let entry = Entry(signingKey: derive())  // derived outside the lock
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

/// A signer's memo of the signing key for the last day it signed on, with its own keyed HMAC context:
/// the hot path is one lock and one integer compare, skipping the shared cache's hashing of its key
/// and the shared entry's lock.
final class SigningKeyMemo: Sendable {
    private struct Remembered: ~Copyable {
        var day: Int
        var entry: SigningKeyCache.Entry?
        /// The memo's own keyed context, made at the second signature of a day: a signer used once
        /// (a server signing for many users' credentials) never pays for it, nor for a placeholder.
        var mac: KeyedHMAC?
    }

    private let state = Locked(Remembered(day: Int.min, entry: nil, mac: nil))

    /// HMAC-SHA256 of `message` under the remembered key, or nil when the memo holds another day.
    func authenticate(day: Int, _ message: UnsafeRawBufferPointer) -> Digest? {
        state.withLock { remembered in
            guard remembered.day == day else { return nil }
            if let digest = remembered.mac?.authenticationCode(for: message) { return digest }
            guard let entry = remembered.entry else { return nil }
            remembered.mac = KeyedHMAC(algorithm: .sha256, key: entry.signingKey)
            return remembered.mac?.authenticationCode(for: message)
        }
    }

    /// The signature of the string to sign for `date` and `hash`, or nil when the memo holds another day.
    func authenticateStringToSign(date: AmzDate, hash: Digest, scopeSuffix: [UInt8]) -> Digest? {
        withStringToSign(date: date, hash: hash, scopeSuffix: scopeSuffix) { authenticate(day: date.day, $0) }
    }

    func lookup(day: Int) -> SigningKeyCache.Entry? {
        state.withLock { $0.day == day ? $0.entry : nil }
    }

    func store(day: Int, entry: SigningKeyCache.Entry) {
        state.withLock { remembered in
            remembered.day = day
            remembered.entry = entry
            remembered.mac = nil  // keyed when the day's second signature asks for it
        }
    }
}

extension SigningKeyCache {
    /// The capacity only: entries hold signing keys and keyed MAC contexts.
    public var customMirror: Mirror { Mirror(self, children: ["capacity": capacity], displayStyle: .class) }
}
