public import AuthCore

/// Where the app server keeps what must outlive one request and be seen by every instance: sealed
/// handshake states (one-time, with a lifetime), sealed sessions, failure counters (with a window)
/// and per-user session generations (kept alive while they are in use).
///
/// The operations are the ones Redis gives atomically (`SET … PX … NX`, `GETDEL`, `INCR` +
/// `PEXPIRE`, `GET`, `MGET`, `DEL`, and scripts of them), so an implementation over a shared server
/// lets any instance finish a login another began, and counts failures made on all of them. Nothing
/// read from a store is trusted for integrity: what the server must not have forged is sealed before
/// it is stored, and what is stored in clear beside it to save a round trip (a user link, a
/// ``LoginStateHeader``) is checked against the sealed contents before the answer depends on it.
///
/// The composite operations (``incrementInTurn(_:window:)``, ``settle(remove:decrement:keepAlive:insert:)``,
/// ``linkedValue(_:removing:counterPrefix:)``, ``insert(_:forKey:lifetime:admittedBy:)``,
/// ``takeLogin(_:counting:)``) have definitions made of the others, one call at a time, which a store
/// in one process's memory can use; a store over a shared server should make each one round trip
/// and atomic, as ``RedisHandshakeStore`` does (else two instances can interleave within one).
public protocol HandshakeStore: Sendable {
    /// Stores `value` under `key` for `lifetime`, unless `key` is present.
    ///
    /// - Returns: false when `key` was present (nothing changed).
    func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) -> Bool
    /// Stores `value` under `key` for `lifetime`, replacing whatever is there.
    func put(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError)
    /// Removes the value under `key` and returns it; nil when absent or expired. Of several callers
    /// taking the same key at once, at most one gets the value.
    func take(_ key: String) async throws(AuthCoreError) -> [UInt8]?
    /// The value under `key` (left in place); nil when absent or expired.
    func value(_ key: String) async throws(AuthCoreError) -> [UInt8]?
    /// Adds one to the counter under `key` and returns the new count; a counter created by this call
    /// expires `window` later (later increments do not extend it).
    func increment(_ key: String, window: Duration) async throws(AuthCoreError) -> Int
    /// Takes one back from the counter under `key` (an attempt that succeeded), removing it at 0;
    /// nothing for an absent counter. Its lifetime is left as it is.
    func decrement(_ key: String) async throws(AuthCoreError)
    /// The counter under `key`, 0 when absent or expired.
    func count(_ key: String) async throws(AuthCoreError) -> Int
    /// Removes whatever is under `key`.
    func remove(_ key: String) async throws(AuthCoreError)
    /// The values under `keys`, in order, read at one instant (nil where absent or expired; a
    /// counter reads as its decimal digits).
    func values(_ keys: [String]) async throws(AuthCoreError) -> [[UInt8]?]
    /// The counter under `key` (0 when absent or expired); a present counter is kept at least
    /// `lifetime` from now.
    func counter(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int
    /// Adds one to the counter under `key` (creating it at 1) and keeps it at least `lifetime` from
    /// now; returns the new count.
    func advance(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int
    /// Checks that the store answers now (`GET /readyz`); throws the reason it does not.
    func ping() async throws(AuthCoreError)
    /// Increments the counters in turn, each with `window` like ``increment(_:window:)``, and stops
    /// after the first whose new count is over its limit (the later ones are left alone): a login
    /// attempt counted against its client and then its user, in one round trip on Redis (one
    /// script, atomic). Returns the new counts of the counters incremented, in order.
    func incrementInTurn(_ counters: [(key: String, limit: Int)], window: Duration) async throws(AuthCoreError) -> [Int]
    /// A successful login's bookkeeping: stores `insert` (the new session) unless its key is
    /// present, and then removes `remove`, takes one back from `decrement` (like ``decrement(_:)``)
    /// and keeps `keepAlive`'s counter at least its lifetime from now (like
    /// ``counter(_:keepingFor:)``) — in one round trip on Redis (one script, atomic), never sent
    /// twice (a decrement run twice would forgive a failure).
    ///
    /// - Returns: false when `insert`'s key was present (then nothing was written).
    func settle(
        remove: [String],
        decrement: [String],
        keepAlive: [(key: String, lifetime: Duration)],
        insert: (key: String, value: [UInt8], lifetime: Duration)?
    ) async throws(AuthCoreError) -> Bool
    /// The value under `key` (removed when `removing`: of several callers at once, at most one gets
    /// it) and, when it begins with a link (``LinkedValue``), the value under `counterPrefix` ‖ link:
    /// one round trip on Redis (one script, atomic). Nil when `key` is absent or expired.
    func linkedValue(_ key: String, removing: Bool, counterPrefix: String) async throws(AuthCoreError) -> LinkedValue?
    /// Stores `value` under `key` for `lifetime` when `admission`'s counters are below their limits
    /// and `key` is absent: a login's lockout check and its state's insert, in one round trip on
    /// Redis (one script, atomic).
    func insert(
        _ value: [UInt8],
        forKey key: String,
        lifetime: Duration,
        admittedBy admission: LoginAdmission
    ) async throws(AuthCoreError)
        -> AdmissionOutcome
    /// Takes a begun login's state (removed: of several callers at once, at most one gets it) and,
    /// when it begins with a ``LoginStateHeader``, reads the user's generation, decides whether the
    /// client is trusted and counts the attempt (``LoginCounting``, in turn like
    /// ``incrementInTurn(_:window:)``) — before the proof is checked, in one round trip on Redis
    /// (one script, atomic). Nil when `key` is absent or expired.
    func takeLogin(_ key: String, counting: LoginCounting) async throws(AuthCoreError) -> TakenLogin?
}

extension HandshakeStore {
    /// A store in this process's memory always answers.
    public func ping() async throws(AuthCoreError) {}

    /// One ``increment(_:window:)`` after another (a store in memory has no round trips to save).
    public func incrementInTurn(
        _ counters: [(key: String, limit: Int)],
        window: Duration
    ) async throws(AuthCoreError) -> [Int] {
        var counts: [Int] = []
        for counter in counters {
            let count = try await increment(counter.key, window: window)
            counts.append(count)
            if count > counter.limit { break }
        }
        return counts
    }

    /// One call after another.
    public func settle(
        remove: [String],
        decrement: [String],
        keepAlive: [(key: String, lifetime: Duration)],
        insert: (key: String, value: [UInt8], lifetime: Duration)?
    ) async throws(AuthCoreError) -> Bool {
        if let insert, !(try await self.insert(insert.value, forKey: insert.key, lifetime: insert.lifetime)) {
            return false
        }
        for key in remove { try await self.remove(key) }
        for key in decrement { try await self.decrement(key) }
        for (key, lifetime) in keepAlive { _ = try await counter(key, keepingFor: lifetime) }
        return true
    }
}

/// A counter as a store holds it: 1 to 18 decimal digits (Redis keeps `INCR` counters so).
enum StoredCounter {
    /// The count in `bytes`, nil when they are not a counter's.
    static func parse(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    static func text(_ count: Int) -> [UInt8] { Array(String(count).utf8) }
}

/// A ``HandshakeStore`` in this process's memory: the embedded default for one instance. Expired
/// entries are dropped when touched and swept every 1024 writes, so memory stays bounded by what
/// is live.
public actor InMemoryHandshakeStore: HandshakeStore {
    private enum Entry {
        case value([UInt8], expires: Timestamp)
        case counter(Int, expires: Timestamp)

        var expires: Timestamp {
            switch self {
            case .value(_, let expires), .counter(_, let expires): expires
            }
        }
    }

    // bytes-lint: store keys: ASCII (prefixes and hex digests), never a name as written.
    private var entries: [String: Entry] = [:]
    private var writesSinceSweep = 0
    private let clock: any SigningClock

    /// A store whose lifetimes run on `clock`.
    public init(clock: any SigningClock = SystemClock()) { self.clock = clock }

    /// The number of live entries (for tests and metrics).
    public var liveEntryCount: Int {
        let now = clock.now()
        return entries.values.filter { $0.expires > now }.count
    }

    public func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) throws(AuthCoreError) -> Bool {
        let now = clock.now()
        if let entry = entries[key], entry.expires > now { return false }
        entries[key] = .value(value, expires: now.adding(lifetime))
        sweepIfDue(now)
        return true
    }

    public func put(_ value: [UInt8], forKey key: String, lifetime: Duration) throws(AuthCoreError) {
        let now = clock.now()
        entries[key] = .value(value, expires: now.adding(lifetime))
        sweepIfDue(now)
    }

    public func take(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        guard let entry = entries.removeValue(forKey: key), entry.expires > clock.now(),
            case .value(let value, _) = entry
        else { return nil }
        return value
    }

    public func value(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        guard let entry = entries[key], entry.expires > clock.now(), case .value(let value, _) = entry else {
            return nil
        }
        return value
    }

    public func increment(_ key: String, window: Duration) throws(AuthCoreError) -> Int {
        let now = clock.now()
        if let entry = entries[key], entry.expires > now, case .counter(let count, let expires) = entry {
            let (next, overflow) = count.addingReportingOverflow(1)
            entries[key] = .counter(overflow ? count : next, expires: expires)
            return overflow ? count : next
        }
        entries[key] = .counter(1, expires: now.adding(window))
        sweepIfDue(now)
        return 1
    }

    public func decrement(_ key: String) throws(AuthCoreError) {
        guard let entry = entries[key], entry.expires > clock.now(), case .counter(let count, let expires) = entry
        else { return }
        entries[key] = count > 1 ? .counter(count - 1, expires: expires) : nil
    }

    public func count(_ key: String) throws(AuthCoreError) -> Int {
        guard let entry = entries[key], entry.expires > clock.now(), case .counter(let count, _) = entry else {
            return 0
        }
        return count
    }

    public func remove(_ key: String) throws(AuthCoreError) {
        entries[key] = nil
    }

    public func values(_ keys: [String]) throws(AuthCoreError) -> [[UInt8]?] {
        let now = clock.now()
        return keys.map { key in
            switch entries[key] {
            case .value(let value, let expires)? where expires > now: value
            case .counter(let count, let expires)? where expires > now: StoredCounter.text(count)
            default: nil
            }
        }
    }

    public func counter(_ key: String, keepingFor lifetime: Duration) throws(AuthCoreError) -> Int {
        let now = clock.now()
        guard let entry = entries[key], entry.expires > now, case .counter(let count, let expires) = entry else {
            return 0
        }
        entries[key] = .counter(count, expires: Swift.max(expires, now.adding(lifetime)))
        return count
    }

    public func advance(_ key: String, keepingFor lifetime: Duration) throws(AuthCoreError) -> Int {
        let now = clock.now()
        var next = 1
        var expires = now.adding(lifetime)
        if let entry = entries[key], entry.expires > now, case .counter(let count, let current) = entry {
            next = count.addingReportingOverflow(1).overflow ? count : count + 1
            expires = Swift.max(current, expires)
        }
        entries[key] = .counter(next, expires: expires)
        sweepIfDue(now)
        return next
    }

    private func sweepIfDue(_ now: Timestamp) {
        writesSinceSweep += 1
        guard writesSinceSweep >= 1024 else { return }
        writesSinceSweep = 0
        entries = entries.filter { $0.value.expires > now }
    }
}
