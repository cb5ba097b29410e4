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
/// - the login's: the admitted `insert` (the lockout check and `SET NX`), `takeLogin` (`GETDEL`, the
///   generation read and the attempt counted) and `settle` (the session's `SET NX`, then `DEL`,
///   the decrement and the keep-alive): one script each; and `linkedValue` (`GET` or `GETDEL` and
///   the counter the value's link names), one script. The scripts that build a key from a value
///   (`takeLogin`, `linkedValue`) run on one server or a Sentinel set, not on Redis Cluster.
///
/// So a login costs three round trips (`begin` one; `finish` one before the proof is checked and one
/// after a success) and a session check one.
///
/// Commands go over a pool of connections (``Configuration/poolSize``), each made on first use and
/// again after a failure: when Redis restarts, a call that meets the old connection closed sends its
/// command again on a new one (all but `decrement` and `settle`, which could forgive a failure
/// twice), so a restart costs only the logins in flight (their states were in the lost memory). An
/// unreachable server is `transportFailure`. Values are binary-safe; commands wait at most
/// ``Configuration/timeout``. A script that meets an error part-way (a key of another type put
/// there by someone else) keeps the writes it made before it, as Redis scripts do.
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
        switch try await command(
            ["SET", key].map(Self.bytes) + [value] + ["PX", String(Self.milliseconds(lifetime)), "NX"].map(Self.bytes),
            writes: true
        ) {
        case .status("OK"): return true
        case .null: return false
        default: throw unexpected("SET")
        }
    }

    public func put(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) {
        guard
            case .status("OK") = try await command(
                ["SET", key].map(Self.bytes) + [value] + ["PX", String(Self.milliseconds(lifetime))].map(Self.bytes),
                writes: true
            )
        else {
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
    static let incrementScript = RedisScript(
        """
        local count = redis.call('INCR', KEYS[1])
        if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """
    )

    public func increment(_ key: String, window: Duration) async throws(AuthCoreError) -> Int {
        let reply = try await evaluate(
            Self.incrementScript,
            keys: [key],
            arguments: [String(Self.milliseconds(window))],
            writes: true
        )
        guard case .integer(let count) = reply, let value = Int(exactly: count) else {
            throw unexpected("INCR")
        }
        return value
    }

    /// `DECR`, and `DEL` at 0, in one script; nothing for an absent key.
    static let decrementScript = RedisScript(
        """
        local count = redis.call('GET', KEYS[1])
        if not count then return 0 end
        if tonumber(count) <= 1 then redis.call('DEL', KEYS[1]) return 0 end
        return redis.call('DECR', KEYS[1])
        """
    )

    public func decrement(_ key: String) async throws(AuthCoreError) {
        guard
            case .integer = try await evaluate(Self.decrementScript, keys: [key], retryable: false, writes: true)
        else { throw unexpected("DECR") }
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
        guard case .array(let replies) = try await command((["MGET"] + keys).map(Self.bytes)),
            replies.count == keys.count
        else {
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
    static let counterScript = RedisScript(
        """
        local count = redis.call('GET', KEYS[1])
        if not count then return '0' end
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """
    )

    public func counter(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int {
        guard
            case .bytes(let text) = try await evaluate(
                Self.counterScript,
                keys: [key],
                arguments: [String(Self.milliseconds(lifetime))],
                writes: true
            ),
            let value = StoredCounter.parse(text)
        else { throw unexpected("GET (not a counter)") }
        return value
    }

    /// `INCR`, and a lifetime at least `ARGV[1]` from now, in one script (never shortened; a
    /// counter `INCR` creates has none yet).
    static let advanceScript = RedisScript(
        """
        local count = redis.call('INCR', KEYS[1])
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return count
        """
    )

    public func advance(_ key: String, keepingFor lifetime: Duration) async throws(AuthCoreError) -> Int {
        let reply = try await evaluate(
            Self.advanceScript,
            keys: [key],
            arguments: [String(Self.milliseconds(lifetime))],
            writes: true
        )
        guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
        return value
    }

    /// `INCR` (with a lifetime for a counter that has none) on each key in turn, stopping after the
    /// first over its limit (`ARGV[2…]`): one script, so the attempt is counted against its client
    /// and its user in one round trip and atomically.
    static let incrementInTurnScript = RedisScript(
        """
        local counts = {}
        for i, key in ipairs(KEYS) do
          local count = redis.call('INCR', key)
          if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
          counts[i] = count
          if count > tonumber(ARGV[i + 1]) then break end
        end
        return counts
        """
    )

    public func incrementInTurn(
        _ counters: [(key: String, limit: Int)],
        window: Duration
    ) async throws(AuthCoreError) -> [Int] {
        guard !counters.isEmpty else { return [] }
        let reply = try await evaluate(
            Self.incrementInTurnScript,
            keys: counters.map(\.key),
            arguments: [String(Self.milliseconds(window))] + counters.map { String($0.limit) },
            writes: true
        )
        guard case .array(let replies) = reply,
            (1...counters.count).contains(replies.count)
        else {
            throw unexpected("INCR")
        }
        return try replies.map { reply throws(AuthCoreError) -> Int in
            guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
            return value
        }
    }

    /// A successful login's bookkeeping in one script: `KEYS` = the keys to remove, decrement and
    /// keep alive, then the key to insert (if any); `ARGV` = the four group sizes (removals,
    /// decrements, keep-alives, inserts: 0 or 1), the keep-alive lifetimes in ms, then the insert's
    /// value and lifetime. The insert first: when its key is present nothing is written (returns
    /// 0; else 1).
    static let settleScript = RedisScript(
        """
        local nr, nd, nk, ni = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
        if ni == 1 and not redis.call('SET', KEYS[nr + nd + nk + 1], ARGV[5 + nk], 'PX', ARGV[6 + nk], 'NX') then return 0 end
        for i = 1, nr do redis.call('DEL', KEYS[i]) end
        for i = nr + 1, nr + nd do
          local count = redis.call('GET', KEYS[i])
          if count and string.len(count) <= 18 and string.find(count, '^[1-9][0-9]*$') then
            if tonumber(count) > 1 then redis.call('DECR', KEYS[i]) else redis.call('DEL', KEYS[i]) end
          end
        end
        for i = 1, nk do
          local key = KEYS[nr + nd + i]
          local ttl = redis.call('PTTL', key)
          if ttl >= 0 and ttl < tonumber(ARGV[4 + i]) then redis.call('PEXPIRE', key, ARGV[4 + i]) end
        end
        return 1
        """
    )

    /// One script (`settleScript`): atomic, not sent a second time after a doubtful failure (a
    /// decrement run twice would forgive a failure), and sent even when its request has run out of
    /// time (the login's attempt was counted: its success should be too).
    public func settle(
        remove: [String],
        decrement: [String],
        keepAlive: [(key: String, lifetime: Duration)],
        insert: (key: String, value: [UInt8], lifetime: Duration)?
    ) async throws(AuthCoreError) -> Bool {
        let keys = remove + decrement + keepAlive.map(\.key) + (insert.map { [$0.key] } ?? [])
        guard !keys.isEmpty else { return true }
        let sizes: [String] = [
            String(remove.count), String(decrement.count), String(keepAlive.count), insert == nil ? "0" : "1",
        ]
        var arguments = sizes.map(Self.bytes)
        arguments += keepAlive.map { Self.bytes(String(Self.milliseconds($0.lifetime))) }
        if let insert { arguments += [insert.value, Self.bytes(String(Self.milliseconds(insert.lifetime)))] }
        let reply = try await evaluateReply(
            Self.settleScript,
            keys: keys.map(Self.bytes),
            arguments: arguments,
            retryable: false,
            writes: true,
            evenIfCancelled: true
        )
        switch reply {
        case .integer(1): return true
        case .integer(0): return false
        case .error(let text):
            throw AuthCoreError(
                .serviceError,
                "\(origin): Redis refused the command: \(RedisConnection.errorWord(text))"
            )
        default: throw unexpected("SET")
        }
    }

    /// `GET` or `GETDEL`, and `GET` of the counter its link names (``LinkedValue``), in one script.
    /// The counter's key is built from the value, so the script names a key it was not given: fine
    /// on one server or a Sentinel set, not on Redis Cluster (which the store does not support).
    static let linkedValueScript = RedisScript(
        """
        local value
        if ARGV[2] == '1' then value = redis.call('GETDEL', KEYS[1]) else value = redis.call('GET', KEYS[1]) end
        if not value then return false end
        local link = string.sub(value, 1, 64)
        if string.len(link) < 64 or string.find(link, '[^0-9a-f]') then return {value} end
        return {value, redis.call('GET', ARGV[1] .. link)}
        """
    )

    public func linkedValue(
        _ key: String,
        removing: Bool,
        counterPrefix: String
    ) async throws(AuthCoreError) -> LinkedValue? {
        let reply = try await evaluate(
            Self.linkedValueScript,
            keys: [key],
            arguments: [counterPrefix, removing ? "1" : "0"],
            writes: removing
        )
        switch reply {
        case .null: return nil
        case .array(let parts):
            switch (parts.first, parts.count) {
            case (.bytes(let value)?, 1) where LinkedValue.link(of: value) == nil:
                return LinkedValue(value: value, isLinked: false, counter: nil)
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

    /// Lua helpers of the login scripts: counters as decimal digits, compared digit by digit (never
    /// as floats, and never with Lua's `<`, which collates by the server's locale).
    static let luaCounters = """
        local function digits(value, longest)
          if not value or string.len(value) == 0 or string.len(value) > longest or string.find(value, '[^0-9]') then return nil end
          local trimmed = string.gsub(value, '^0+', '')
          return trimmed
        end
        local function atLeast(a, b)
          if string.len(a) ~= string.len(b) then return string.len(a) > string.len(b) end
          for i = 1, string.len(a) do
            local x, y = string.byte(a, i), string.byte(b, i)
            if x ~= y then return x > y end
          end
          return true
        end
        local function trusts(presented, stored)
          if not stored then return true end
          local current = digits(stored, 18)
          return current ~= nil and atLeast(digits(presented, 20), current)
        end
        local function canonical(value)
          return string.len(value) <= 18 and (value == '0' or string.find(value, '^[1-9][0-9]*$') ~= nil)
        end
        local function increment(key, window)
          local current = redis.call('GET', key)
          if current and not canonical(current) then redis.call('DEL', key) end
          local count = redis.call('INCR', key)
          if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, window) end
          return count
        end

        """

    /// A login's lockout check and insert (``LoginAdmission``), in one script: `KEYS` = the key,
    /// the generation counter, the trusted counters, the untrusted ones; `ARGV` = the value, its
    /// lifetime in ms, the presented generation (empty for none), the number of trusted counters,
    /// then each counter's limit. A counter that is not 1 to 18 digits reads 0, a generation that
    /// is not trusts nobody. Returns 1 (inserted), 0 (refused) or 2 (the key was present).
    static let admissionScript = RedisScript(
        luaCounters + """
            local trusted = ARGV[3] ~= '' and trusts(ARGV[3], redis.call('GET', KEYS[2]))
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
    )

    public func insert(
        _ value: [UInt8],
        forKey key: String,
        lifetime: Duration,
        admittedBy admission: LoginAdmission
    ) async throws(AuthCoreError)
        -> AdmissionOutcome
    {
        let counters = admission.trusted + admission.untrusted
        let keys = [key, admission.generationKey] + counters.map(\.key)
        let presented: String = admission.presentedGeneration.map { String($0) } ?? ""
        let numbers: [String] =
            [String(Self.milliseconds(lifetime)), presented, String(admission.trusted.count)]
            + counters.map { String(Swift.max(0, $0.limit)) }
        let reply = try await evaluateReply(
            Self.admissionScript,
            keys: keys.map(Self.bytes),
            arguments: [value] + numbers.map(Self.bytes),
            writes: true
        )
        switch try refusing(reply) {
        case .integer(1): return .inserted
        case .integer(0): return .refused
        case .integer(2): return .keyInUse
        default: throw unexpected("SET")
        }
    }

    /// A begun login taken and its attempt counted (``LoginCounting``), in one script: `KEYS` = the
    /// state's key; `ARGV` = the generation prefix, the failure prefix, the device, address and
    /// untrusted suffixes, the window in ms, the two limits. The counters' keys are built from the
    /// state's clear header (``LoginStateHeader``), which the service checks against the sealed
    /// state afterwards; so the script names keys it was not given (fine on one server or a
    /// Sentinel set, not on Redis Cluster, which the store does not support). A counter that is not
    /// a count starts again at 1. Returns nil (absent), `{value}` (no header: nothing counted) or
    /// `{value, generation or nil, trusted (0/1), {counts}}`.
    static let takeLoginScript = RedisScript(
        luaCounters + """
            local value = redis.call('GETDEL', KEYS[1])
            if not value then return false end
            local link, device, presented = string.sub(value, 1, 64), string.sub(value, 65, 96), string.sub(value, 97, 116)
            if string.len(value) < 116 or string.find(link, '[^0-9a-f]') or string.find(device, '[^0-9a-f]') or string.find(presented, '[^0-9]')
              or not atLeast('18446744073709551615', presented) then
              return {value}
            end
            local generation = redis.call('GET', ARGV[1] .. link)
            local trusted = device ~= string.rep('0', 32) and trusts(presented, generation)
            local base = ARGV[2] .. link
            local keys, limits = {base .. ARGV[4], base .. ARGV[5]}, {ARGV[7], ARGV[8]}
            if trusted then keys, limits = {base .. ARGV[3] .. device}, {ARGV[7]} end
            local counts = {}
            for i = 1, #keys do
              counts[i] = increment(keys[i], ARGV[6])
              if counts[i] > tonumber(limits[i]) then break end
            end
            return {value, generation, trusted and 1 or 0, counts}
            """
    )

    /// One script (`takeLoginScript`); sent again after a failure on a connection that was open,
    /// like `GETDEL` (a second run finds nothing: the login fails, and its attempt was counted).
    public func takeLogin(_ key: String, counting: LoginCounting) async throws(AuthCoreError) -> TakenLogin? {
        let arguments: [String] = [
            counting.generationPrefix, counting.failurePrefix, counting.deviceSuffix, counting.addressSuffix,
            counting.untrustedSuffix, String(Self.milliseconds(counting.window)), String(counting.maximumFailures),
            String(counting.maximumFailuresPerUser),
        ]
        let reply = try await evaluate(Self.takeLoginScript, keys: [key], arguments: arguments, writes: true)
        guard case .array(let parts) = reply else {
            if case .null = reply { return nil }
            throw unexpected("GETDEL")
        }
        guard case .bytes(let value)? = parts.first else { throw unexpected("GETDEL") }
        if parts.count == 1 {
            guard LoginStateHeader(parsing: value) == nil else { throw unexpected("GETDEL") }
            return TakenLogin(value: value, hasHeader: false, generation: nil, trusted: false, counts: [])
        }
        guard parts.count == 4, LoginStateHeader(parsing: value) != nil, case .integer(let trusted) = parts[2],
            case .array(let counted) = parts[3],
            (1...2).contains(counted.count)
        else { throw unexpected("GETDEL") }
        let generation: [UInt8]?
        switch parts[1] {
        case .bytes(let bytes): generation = bytes
        case .null: generation = nil
        default: throw unexpected("GET")
        }
        let counts = try counted.map { reply throws(AuthCoreError) -> Int in
            guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
            return value
        }
        return TakenLogin(value: value, hasHeader: true, generation: generation, trusted: trusted == 1, counts: counts)
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
    package func command(
        _ arguments: [[UInt8]],
        retryable: Bool = true,
        writes: Bool = false
    ) async throws(AuthCoreError) -> RedisReply {
        try refusing(try await pool.run([arguments], retryable: retryable, writes: writes)[0])
    }

    /// `reply`, or `serviceError` with its first word for an error reply (the rest can echo arguments).
    private func refusing(_ reply: RedisReply) throws(AuthCoreError) -> RedisReply {
        if case .error(let text) = reply {
            throw AuthCoreError(
                .serviceError,
                "\(origin): Redis refused the command: \(RedisConnection.errorWord(text))"
            )
        }
        return reply
    }

    /// Runs `script` by name, and with its source when the server no longer has it
    /// (``RedisScript``); an error reply is `serviceError`, as for ``command(_:retryable:writes:)``.
    private func evaluate(
        _ script: RedisScript,
        keys: [String],
        arguments: [String] = [],
        retryable: Bool = true,
        writes: Bool
    ) async throws(AuthCoreError) -> RedisReply {
        try refusing(
            try await evaluateReply(
                script,
                keys: keys.map(Self.bytes),
                arguments: arguments.map(Self.bytes),
                retryable: retryable,
                writes: writes
            )
        )
    }

    /// ``evaluate(_:keys:arguments:retryable:writes:)`` returning an error reply as it is. A
    /// `NOSCRIPT` answer (the script's first call on this server, or after its cache was emptied)
    /// ran nothing, so the call with the source is sent (even for a script that is not
    /// `retryable`), once; it counts as a round trip of its own.
    private func evaluateReply(
        _ script: RedisScript,
        keys: [[UInt8]],
        arguments: [[UInt8]],
        retryable: Bool = true,
        writes: Bool,
        evenIfCancelled: Bool = false
    ) async throws(AuthCoreError) -> RedisReply {
        let byName = script.evalSHA(keys: keys, arguments: arguments)
        let reply = try await pool.run(
            [byName],
            retryable: retryable,
            writes: writes,
            evenIfCancelled: evenIfCancelled
        )[0]
        guard RedisScript.isMissing(reply) else { return reply }
        // Never sent a second time: the call by name may already have run once on a master that
        // failed afterwards (its repeat met the promoted replica, which lacks the script), and a
        // script runs at most twice.
        return try await pool.run(
            [script.eval(keys: keys, arguments: arguments)],
            retryable: false,
            writes: writes,
            evenIfCancelled: evenIfCancelled
        )[0]
    }

    /// The store's scripts (each cached by Redis on its first `EVAL`).
    package static let scripts: [RedisScript] = [
        incrementScript, decrementScript, counterScript, advanceScript, incrementInTurnScript, settleScript,
        linkedValueScript, admissionScript, takeLoginScript,
    ]

    /// Whether the server answers `PING` now (a blocking call, for start-up probes).
    package func answersPing() -> Bool { pool.answersPing() }

    /// The round trips this store's calls have made so far (connection set-up not counted).
    package var roundTripCount: Int { pool.roundTrips.withLock { $0 } }
    /// The calls that ran on their caller's thread (for tests).
    package var inlineCallCount: Int { pool.inlineCalls.withLock { $0 } }

    /// Sentinel mode: whether the store follows the sentinels' `+switch-master` announcements now,
    /// how many it has acted on, and the master it uses.
    package var sentinelAnnouncements: (subscribed: Bool, switches: Int, master: Configuration.Address?) {
        let state = pool.watcherState
        return (state.subscribed, state.switches, pool.currentMaster)
    }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = Swift.max(duration, .milliseconds(1)).components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? Int64.max : product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue
    }
}
