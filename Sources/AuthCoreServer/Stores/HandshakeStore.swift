public import AuthCore

/// Where a login service keeps what must outlive one request and be seen by every instance: sealed
/// handshake states (one-time, with a lifetime) and failure counters (with a window).
///
/// The operations are the ones Redis gives atomically (`SET … PX … NX`, `GETDEL`, `INCR` +
/// `PEXPIRE`, `GET`, `DEL`), so an implementation over a shared server lets any instance finish a
/// login another began, and counts failures made on all of them.
public protocol HandshakeStore: Sendable {
    /// Stores `value` under `key` for `lifetime`, unless `key` is present.
    ///
    /// - Returns: false when `key` was present (nothing changed).
    func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) -> Bool
    /// Removes the value under `key` and returns it; nil when absent or expired. Of several callers
    /// taking the same key at once, at most one gets the value.
    func take(_ key: String) async throws(AuthCoreError) -> [UInt8]?
    /// The value under `key` (left in place); nil when absent or expired.
    func value(_ key: String) async throws(AuthCoreError) -> [UInt8]?
    /// Adds one to the counter under `key` and returns the new count; a counter created by this call
    /// expires `window` later (later increments do not extend it).
    func increment(_ key: String, window: Duration) async throws(AuthCoreError) -> Int
    /// The counter under `key`, 0 when absent or expired.
    func count(_ key: String) async throws(AuthCoreError) -> Int
    /// Removes whatever is under `key`.
    func remove(_ key: String) async throws(AuthCoreError)
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

    public func take(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        guard let entry = entries.removeValue(forKey: key), entry.expires > clock.now(), case .value(let value, _) = entry else { return nil }
        return value
    }

    public func value(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        guard let entry = entries[key], entry.expires > clock.now(), case .value(let value, _) = entry else { return nil }
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

    public func count(_ key: String) throws(AuthCoreError) -> Int {
        guard let entry = entries[key], entry.expires > clock.now(), case .counter(let count, _) = entry else { return 0 }
        return count
    }

    public func remove(_ key: String) throws(AuthCoreError) {
        entries[key] = nil
    }

    private func sweepIfDue(_ now: Timestamp) {
        writesSinceSweep += 1
        guard writesSinceSweep >= 1024 else { return }
        writesSinceSweep = 0
        entries = entries.filter { $0.value.expires > now }
    }
}
