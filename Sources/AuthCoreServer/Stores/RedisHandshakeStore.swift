public import AuthCore
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``HandshakeStore`` on a Redis server (6.2 or later: `GETDEL`) through hiredis, shared by every instance
/// that points at it: one server, or the master of a Sentinel set (``Configuration/sentinel``),
/// followed across failovers.
///
/// Each operation is one atomic Redis command or script:
/// - `insert`: `SET key value PX ms NX`; `put`: `SET key value PX ms`;
/// - `take`: `GETDEL key` (at most one of several instances gets the value);
/// - `increment`: one script, `INCR` and `PEXPIRE` when the counter has no lifetime yet (a counter
///   without an expiry would lock its user out for good);
/// - `value` and `count`: `GET`; `values`: `MGET`; `remove`: `DEL`; `decrement`: one script, `DECR` or
///   `DEL` at 0;
/// - `counter` and `advance`: one script each, `GET` or `INCR`, `PTTL` and `PEXPIRE` (a lifetime is
///   only ever extended);
/// - `incrementInTurn`: one script (the counters in turn, up to the first over its limit);
/// - `settle`: `DEL` and the decrement and counter scripts pipelined — one round trip, not atomic as
///   a whole, never sent twice (its decrement would forgive a failure twice), and sent even when
///   its request has run out of time.
///
/// Commands go over a pool of connections (``Configuration/poolSize``), each made on first use and
/// again after a failure: when Redis restarts, a call that meets the old connection closed sends its
/// command again on a new one (all but `decrement` and `settle`), so a restart costs only the logins
/// in flight (their states were in the lost memory). An unreachable server is `transportFailure` and
/// no single operation is half-done. Values are binary-safe; commands wait at most
/// ``Configuration/timeout``.
///
/// Replication is asynchronous: a write the master acknowledged and had not yet sent to a replica
/// is lost if that replica is promoted (the window is the replication lag; on one host, well under a
/// millisecond). Some losses are safe: a lost handshake state fails that login (`LoginExpired`), a
/// lost session is refused (`401`). Others are not: a lost failure count counts one failure fewer, a
/// lost `GETDEL` lets the client that began a login finish it a second time, a lost revocation or
/// sign-out brings sessions back. Set ``Configuration/replicasToAcknowledge`` to close the window
/// (every write then waits for a replica's acknowledgement, in the same round trip), and give the
/// master `min-replicas-to-write` so that a master cut off from its replicas stops taking writes.
public final class RedisHandshakeStore: HandshakeStore, Sendable {
    /// Where the server is, how to log in to it and how long to wait for it.
    public struct Configuration: Sendable {
        /// A server's address.
        public struct Address: Sendable, Equatable {
            /// A host name or a numeric address.
            public var host: String
            /// The port.
            public var port: Int

            /// An address.
            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }
        }

        /// A Sentinel set watching the master (Redis Sentinel): the master is found through them.
        public struct Sentinel: Sendable, Equatable {
            /// The name the sentinels know the master by (`sentinel monitor <name> …`).
            public var masterName: String
            /// The sentinels, asked in order.
            public var addresses: [Address]
            /// The sentinels' ACL user, when they require one (the password is
            /// ``Configuration/sentinelPassword``).
            public var username: String?

            /// A Sentinel set.
            public init(masterName: String, addresses: [Address], username: String? = nil) {
                self.masterName = masterName
                self.addresses = addresses
                self.username = username
            }
        }

        /// The server's address (loopback by default); unused with ``sentinel``.
        public var host = "127.0.0.1"
        /// The server's port; unused with ``sentinel``.
        public var port = 6379
        /// The sentinels that name the master, instead of ``host`` and ``port``.
        public var sentinel: Sentinel?
        /// The longest wait to connect and for each reply.
        public var timeout: Duration = .seconds(1)
        /// The ACL user for `AUTH user password` (Redis 6 and later); nil for `AUTH password`.
        public var username: String?
        /// The password for `AUTH`, if the server requires one (from the environment, never argv).
        public var password: SecureBytes?
        /// The database index (`SELECT`), 0 by default.
        public var database = 0
        /// Connections kept to the server (each carries one command at a time).
        public var poolSize = 4
        /// The sentinels' password (`AUTH` to each sentinel), when they require one; from the
        /// environment, never argv.
        public var sentinelPassword: SecureBytes?
        /// Replicas that must acknowledge each write (`WAIT`, sent in the same round trip, half of
        /// ``timeout`` at most) before it counts; 0 (the default) does not wait. With 1, a write the
        /// server confirmed survives a failover to an up-to-date replica.
        public var replicasToAcknowledge = 0

        /// Redis on 127.0.0.1:6379, 1 s per operation, no password, database 0, four connections.
        public init() {}
    }

    public let configuration: Configuration
    private let pool: RedisConnectionPool

    /// A store on the server `configuration` names (no connection is made until the first call).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pool = RedisConnectionPool(configuration: configuration)
    }

    public func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) -> Bool {
        switch try await command(["SET", key].map(Self.bytes) + [value] + ["PX", String(Self.milliseconds(lifetime)), "NX"].map(Self.bytes), writes: true) {
        case .status("OK"): return true
        case .null: return false
        default: throw unexpected("SET")
        }
    }

    public func put(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) {
        guard case .status("OK") = try await command(["SET", key].map(Self.bytes) + [value] + ["PX", String(Self.milliseconds(lifetime))].map(Self.bytes), writes: true) else {
            throw unexpected("SET")
        }
    }

    public func take(_ key: String) async throws(AuthCoreError) -> [UInt8]? {
        switch try await command(["GETDEL", key].map(Self.bytes), writes: true) {
        case .bytes(let value): return value
        case .null: return nil
        default: throw unexpected("GETDEL")
        }
    }

    public func value(_ key: String) async throws(AuthCoreError) -> [UInt8]? {
        switch try await command(["GET", key].map(Self.bytes)) {
        case .bytes(let value): return value
        case .null: return nil
        default: throw unexpected("GET")
        }
    }

    /// `INCR`, and a lifetime for a counter that has none, in one script (atomic in Redis): a counter
    /// can never be left without an expiry, which would lock its user out for good.
    static let incrementScript = """
        local count = redis.call('INCR', KEYS[1])
        if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """

    public func increment(_ key: String, window: Duration) async throws(AuthCoreError) -> Int {
        let reply = try await command(["EVAL", Self.incrementScript, "1", key, String(Self.milliseconds(window))].map(Self.bytes), writes: true)
        guard case .integer(let count) = reply, let value = Int(exactly: count) else {
            throw unexpected("INCR")
        }
        return value
    }

    /// `DECR`, and `DEL` at 0, in one script; nothing for an absent key.
    static let decrementScript = """
        local count = redis.call('GET', KEYS[1])
        if not count then return 0 end
        if tonumber(count) <= 1 then redis.call('DEL', KEYS[1]) return 0 end
        return redis.call('DECR', KEYS[1])
        """

    public func decrement(_ key: String) async throws(AuthCoreError) {
        guard case .integer = try await command(["EVAL", Self.decrementScript, "1", key].map(Self.bytes), retryable: false, writes: true) else { throw unexpected("DECR") }
    }

    public func count(_ key: String) async throws(AuthCoreError) -> Int {
        switch try await command(["GET", key].map(Self.bytes)) {
        case .null: return 0
        case .bytes(let text):
            // A counter holds decimal digits; anything else under the key is not ours.
            guard let value = StoredCounter.parse(text) else { throw unexpected("GET (not a counter)") }
            return value
        default: throw unexpected("GET")
        }
    }

    public func values(_ keys: [String]) async throws(AuthCoreError) -> [[UInt8]?] {
        guard !keys.isEmpty else { return [] }
        guard case .array(let replies) = try await command((["MGET"] + keys).map(Self.bytes)), replies.count == keys.count else {
            throw unexpected("MGET")
        }
        return try replies.map { reply throws(AuthCoreError) -> [UInt8]? in
            switch reply {
            case .bytes(let value): return value
            case .null: return nil
            default: throw unexpected("MGET")
            }
        }
    }

    /// `GET`, and a longer lifetime for a counter that is there, in one script (a lifetime is only
    /// ever extended; written without `PEXPIRE … GT`, so Redis before 7.0 runs it too).
    static let counterScript = """
        local count = redis.call('GET', KEYS[1])
        if not count then return '0' end
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """

    public func counter(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int {
        guard case .bytes(let text) = try await command(["EVAL", Self.counterScript, "1", key, String(Self.milliseconds(lifetime))].map(Self.bytes), writes: true),
            let value = StoredCounter.parse(text)
        else { throw unexpected("GET (not a counter)") }
        return value
    }

    /// `INCR`, and a lifetime at least `ARGV[1]` from now, in one script (never shortened; a
    /// counter `INCR` creates has none yet).
    static let advanceScript = """
        local count = redis.call('INCR', KEYS[1])
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """

    public func advance(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int {
        let reply = try await command(["EVAL", Self.advanceScript, "1", key, String(Self.milliseconds(lifetime))].map(Self.bytes), writes: true)
        guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
        return value
    }

    /// `INCR` (with a lifetime for a counter that has none) on each key in turn, stopping after the
    /// first over its limit (`ARGV[2…]`): one script, so the attempt is counted against its client
    /// and its user in one round trip and atomically.
    static let incrementInTurnScript = """
        local counts = {}
        for i, key in ipairs(KEYS) do
          local count = redis.call('INCR', key)
          if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
          counts[i] = count
          if count > tonumber(ARGV[i + 1]) then break end
        end
        return counts
        """

    public func incrementInTurn(_ counters: [(key: String, limit: Int)], window: Duration) async throws(AuthCoreError) -> [Int] {
        guard !counters.isEmpty else { return [] }
        let arguments = ["EVAL", Self.incrementInTurnScript, String(counters.count)] + counters.map(\.key) + [String(Self.milliseconds(window))]
            + counters.map { String($0.limit) }
        guard case .array(let replies) = try await command(arguments.map(Self.bytes), writes: true), (1...counters.count).contains(replies.count) else {
            throw unexpected("INCR")
        }
        return try replies.map { reply throws(AuthCoreError) -> Int in
            guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
            return value
        }
    }

    /// `DEL`, the decrement script and the keep-alive script, pipelined: one round trip. Not sent a
    /// second time after a doubtful failure (a decrement run twice would forgive a failure).
    public func settle(remove: [String], decrement: [String], keepAlive: [(key: String, lifetime: Duration)]) async throws(AuthCoreError) {
        var commands: [[[UInt8]]] = []
        if !remove.isEmpty { commands.append((["DEL"] + remove).map(Self.bytes)) }
        for key in decrement { commands.append(["EVAL", Self.decrementScript, "1", key].map(Self.bytes)) }
        for (key, lifetime) in keepAlive { commands.append(["EVAL", Self.counterScript, "1", key, String(Self.milliseconds(lifetime))].map(Self.bytes)) }
        guard !commands.isEmpty else { return }
        for reply in try await pool.run(commands, retryable: false, writes: true, evenIfCancelled: true) {
            if case .error(let text) = reply { throw AuthCoreError(.serviceError, "\(origin): Redis refused the command: \(RedisConnection.errorWord(text))") }
        }
    }

    /// `GET` or `GETDEL`, and `GET` of the counter its link names (``LinkedValue``), in one script.
    /// The counter's key is built from the value, so the script names a key it was not given: fine
    /// on one server or a Sentinel set, not on Redis Cluster (which the store does not support).
    static let linkedValueScript = """
        local value
        if ARGV[2] == '1' then value = redis.call('GETDEL', KEYS[1]) else value = redis.call('GET', KEYS[1]) end
        if not value then return false end
        local link = string.sub(value, 1, 64)
        if string.len(link) < 64 or string.find(link, '[^0-9a-f]') then return {value} end
        return {value, redis.call('GET', ARGV[1] .. link)}
        """

    public func linkedValue(_ key: String, removing: Bool, counterPrefix: String) async throws(AuthCoreError) -> LinkedValue? {
        let reply = try await command(
            ["EVAL", Self.linkedValueScript, "1", key, counterPrefix, removing ? "1" : "0"].map(Self.bytes), writes: removing)
        switch reply {
        case .null: return nil
        case .array(let parts):
            switch (parts.first, parts.count) {
            case (.bytes(let value)?, 1) where LinkedValue.link(of: value) == nil: return LinkedValue(value: value, isLinked: false, counter: nil)
            case (.bytes(let value)?, 2) where LinkedValue.link(of: value) != nil:
                switch parts[1] {
                case .bytes(let counter): return LinkedValue(value: value, isLinked: true, counter: counter)
                case .null: return LinkedValue(value: value, isLinked: true, counter: nil)
                default: throw unexpected("GET")
                }
            default: throw unexpected("GET")
            }
        default: throw unexpected("GET")
        }
    }

    /// A login's lockout check and insert (``LoginAdmission``), in one script: `KEYS` = the key,
    /// the generation counter, the trusted counters, the untrusted ones; `ARGV` = the value, its
    /// lifetime in ms, the presented generation (empty for none), the number of trusted counters,
    /// then each counter's limit. Counters are compared as decimal digits (no float rounding);
    /// one that is not 1 to 18 digits reads 0, a generation that is not trusts nobody. Returns 1
    /// (inserted), 0 (refused) or 2 (the key was present).
    static let admissionScript = """
        local function digits(value, longest)
          if not value or string.len(value) == 0 or string.len(value) > longest or string.find(value, '[^0-9]') then return nil end
          local trimmed = string.gsub(value, '^0+', '')
          return trimmed
        end
        local function atLeast(a, b)
          if string.len(a) ~= string.len(b) then return string.len(a) > string.len(b) end
          return a >= b
        end
        local trusted = false
        if ARGV[3] ~= '' then
          local stored = redis.call('GET', KEYS[2])
          if not stored then trusted = true else
            local current = digits(stored, 18)
            trusted = current ~= nil and atLeast(digits(ARGV[3], 20), current)
          end
        end
        local split = 2 + tonumber(ARGV[4])
        local first, last = split + 1, #KEYS
        if trusted then first, last = 3, split end
        for i = first, last do
          local count = digits(redis.call('GET', KEYS[i]), 18) or ''
          if atLeast(count, digits(ARGV[i + 2], 20)) then return 0 end
        end
        if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
        return 2
        """

    public func insert(_ value: [UInt8], forKey key: String, lifetime: Duration, admittedBy admission: LoginAdmission) async throws(AuthCoreError)
        -> AdmissionOutcome
    {
        let counters = admission.trusted + admission.untrusted
        let keys = [key, admission.generationKey] + counters.map(\.key)
        let presented: String = admission.presentedGeneration.map { String($0) } ?? ""
        let numbers: [String] = [String(Self.milliseconds(lifetime)), presented, String(admission.trusted.count)] + counters.map { String(Swift.max(0, $0.limit)) }
        var arguments: [[UInt8]] = ["EVAL", Self.admissionScript, String(keys.count)].map(Self.bytes)
        arguments += keys.map(Self.bytes)
        arguments.append(value)
        arguments += numbers.map(Self.bytes)
        switch try await command(arguments, writes: true) {
        case .integer(1): return .inserted
        case .integer(0): return .refused
        case .integer(2): return .keyInUse
        default: throw unexpected("SET")
        }
    }

    /// A login attempt counted, and a success's writes (``SuccessWrites``) when every count is
    /// within its limit, in one script: `KEYS` = the counters, then the keys to remove, decrement
    /// and keep alive, then the key to insert (if any); `ARGV` = the window in ms, the five
    /// group sizes (counters, removals, decrements, keep-alives, inserts: 0 or 1), whether to apply
    /// the writes (1 or 0), the counters' limits, the keep-alive lifetimes, then the insert's value
    /// and lifetime. Returns the counts followed by 1 (applied), 0 (not) or 2 (the insert's key was
    /// present: nothing written but the counts).
    static let attemptScript = """
        local n, nr, nd, nk, ni = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
        local counts = {}
        local within = true
        for i = 1, n do
          local count = redis.call('INCR', KEYS[i])
          if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
          counts[i] = count
          if count > tonumber(ARGV[7 + i]) then within = false break end
        end
        if not within or ARGV[7] ~= '1' then counts[#counts + 1] = 0 return counts end
        local lifetimes = 7 + n
        if ni == 1 then
          local key = KEYS[n + nr + nd + nk + 1]
          if not redis.call('SET', key, ARGV[lifetimes + nk + 1], 'PX', ARGV[lifetimes + nk + 2], 'NX') then
            counts[#counts + 1] = 2
            return counts
          end
        end
        for i = n + 1, n + nr do redis.call('DEL', KEYS[i]) end
        for i = n + nr + 1, n + nr + nd do
          local count = redis.call('GET', KEYS[i])
          if count then
            if tonumber(count) <= 1 then redis.call('DEL', KEYS[i]) else redis.call('DECR', KEYS[i]) end
          end
        end
        for i = 1, nk do
          local key = KEYS[n + nr + nd + i]
          local ttl = redis.call('PTTL', key)
          if ttl >= 0 and ttl < tonumber(ARGV[lifetimes + i]) then redis.call('PEXPIRE', key, ARGV[lifetimes + i]) end
        end
        counts[#counts + 1] = 1
        return counts
        """

    public func countAttempt(_ counters: [(key: String, limit: Int)], window: Duration, success: SuccessWrites?) async throws(AuthCoreError)
        -> AttemptOutcome
    {
        let writes = success ?? SuccessWrites()
        let keys = counters.map(\.key) + writes.remove + writes.decrement + writes.keepAlive.map(\.key) + (writes.insert.map { [$0.key] } ?? [])
        var arguments = ["EVAL", Self.attemptScript, String(keys.count)].map(Self.bytes) + keys.map(Self.bytes)
        arguments += [
            String(Self.milliseconds(window)), String(counters.count), String(writes.remove.count), String(writes.decrement.count),
            String(writes.keepAlive.count), writes.insert == nil ? "0" : "1", success == nil ? "0" : "1",
        ].map(Self.bytes)
        arguments += counters.map { Self.bytes(String($0.limit)) } + writes.keepAlive.map { Self.bytes(String(Self.milliseconds($0.lifetime))) }
        if let insert = writes.insert { arguments += [insert.value, Self.bytes(String(Self.milliseconds(insert.lifetime)))] }
        // Not sent twice: a second run would find its insert's key present and count the attempt again.
        guard case .array(let replies) = try await command(arguments, retryable: false, writes: true), (1...(counters.count + 1)).contains(replies.count)
        else { throw unexpected("INCR") }
        let numbers = try replies.map { reply throws(AuthCoreError) -> Int in
            guard case .integer(let value) = reply, let number = Int(exactly: value) else { throw unexpected("INCR") }
            return number
        }
        let outcome: AttemptOutcome.Writes
        switch numbers[numbers.count - 1] {
        case 1: outcome = .applied
        case 2: outcome = .keyInUse
        default: outcome = .notApplied
        }
        return AttemptOutcome(counts: Array(numbers.dropLast()), writes: outcome)
    }

    public func ping() async throws(AuthCoreError) {
        guard case .status("PONG") = try await command([Self.bytes("PING")]) else { throw unexpected("PING") }
    }

    public func remove(_ key: String) async throws(AuthCoreError) {
        _ = try await command(["DEL", key].map(Self.bytes), writes: true)
    }

    // MARK: - Commands

    private var origin: String { pool.origin }

    private func unexpected(_ what: String) -> AuthCoreError {
        AuthCoreError(.malformedResponse, "\(origin): unexpected reply to \(what)")
    }

    /// Sends one command on one of the pool's connections and reads its reply; an error reply is
    /// `serviceError` with its first word only (the rest can echo arguments).
    package func command(_ arguments: [[UInt8]], retryable: Bool = true, writes: Bool = false) async throws(AuthCoreError) -> RedisReply {
        let reply = try await pool.run([arguments], retryable: retryable, writes: writes)[0]
        if case .error(let text) = reply { throw AuthCoreError(.serviceError, "\(origin): Redis refused the command: \(RedisConnection.errorWord(text))") }
        return reply
    }

    /// Whether the server answers `PING` now (a blocking call, for start-up probes).
    package func answersPing() -> Bool { pool.answersPing() }

    /// The round trips this store's calls have made so far (connection set-up not counted).
    package var roundTripCount: Int { pool.roundTrips.withLock { $0 } }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = Swift.max(duration, .milliseconds(1)).components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? Int64.max : product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue
    }
}
