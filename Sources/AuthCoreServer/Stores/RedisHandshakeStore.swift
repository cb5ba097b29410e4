public import AuthCore
internal import CAuthCoreHiredis
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``HandshakeStore`` on a Redis server (7.0 or later) through hiredis, shared by every instance
/// that points at it.
///
/// Each operation is one atomic Redis command or two safe ones:
/// - `insert`: `SET key value PX ms NX`; `put`: `SET key value PX ms`;
/// - `take`: `GETDEL key` (at most one of several instances gets the value);
/// - `increment`: one script, `INCR` and `PEXPIRE` when the counter has no lifetime yet (a counter
///   without an expiry would lock its user out for good);
/// - `value` and `count`: `GET`; `values`: `MGET`; `remove`: `DEL`; `decrement`: one script, `DECR` or
///   `DEL` at 0;
/// - `counter` and `advance`: one script each, `GET` or `INCR`, `PTTL` and `PEXPIRE` (a lifetime is
///   only ever extended).
///
/// The connection is made on first use and again after a failure: when Redis restarts, a call that
/// meets the old connection closed sends its command again on a new one, so a restart costs only
/// the logins in flight (their states were in the lost memory). An unreachable server is
/// `transportFailure` and nothing is half-written (every write is one command). Values are binary-safe; commands wait at most
/// ``Configuration/timeout``.
public final class RedisHandshakeStore: HandshakeStore, @unchecked Sendable {
    // invariant (Sendable): the hiredis context is only touched inside `connection.withLock`, so one
    // command is on the wire at a time (hiredis contexts are not thread-safe); the async calls run
    // those on `queue`, off the concurrency pool.

    /// Where the server is and how long to wait for it.
    public struct Configuration: Sendable {
        /// The server's address (loopback by default).
        public var host = "127.0.0.1"
        /// The server's port.
        public var port = 6379
        /// The longest wait to connect and for each reply.
        public var timeout: Duration = .seconds(1)
        /// The password for `AUTH`, if the server requires one (from the environment, never argv).
        public var password: SecureBytes?

        /// Redis on 127.0.0.1:6379, 1 s per operation, no password.
        public init() {}
    }

    /// A reply, as far as the store's commands need one.
    package enum Reply {
        case bytes([UInt8])
        case integer(Int64)
        case status(String)
        case array([Reply])
        case null
    }

    public let configuration: Configuration
    private let connection = Locked<OpaquePointer?>(nil)
    /// Where the blocking hiredis calls run, one at a time.
    private let queue = DispatchQueue(label: "authcore.redis-handshake-store")

    /// A store on the server `configuration` names (no connection is made until the first call).
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    deinit {
        connection.withLock { context in
            if let context { redisFree(UnsafeMutablePointer(context)) }
            context = nil
        }
    }

    public func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) -> Bool {
        switch try await command(["SET", key].map(Self.bytes) + [value] + ["PX", Self.milliseconds(lifetime), "NX"].map(Self.bytes)) {
        case .status("OK"): return true
        case .null: return false
        default: throw unexpected("SET")
        }
    }

    public func put(_ value: [UInt8], forKey key: String, lifetime: Duration) async throws(AuthCoreError) {
        guard case .status("OK") = try await command(["SET", key].map(Self.bytes) + [value] + ["PX", Self.milliseconds(lifetime)].map(Self.bytes)) else {
            throw unexpected("SET")
        }
    }

    public func take(_ key: String) async throws(AuthCoreError) -> [UInt8]? {
        switch try await command(["GETDEL", key].map(Self.bytes)) {
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
        let reply = try await command(["EVAL", Self.incrementScript, "1", key, Self.milliseconds(window)].map(Self.bytes))
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
        guard case .integer = try await command(["EVAL", Self.decrementScript, "1", key].map(Self.bytes)) else { throw unexpected("DECR") }
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
        guard case .bytes(let text) = try await command(["EVAL", Self.counterScript, "1", key, Self.milliseconds(lifetime)].map(Self.bytes)),
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
        let reply = try await command(["EVAL", Self.advanceScript, "1", key, Self.milliseconds(lifetime)].map(Self.bytes))
        guard case .integer(let count) = reply, let value = Int(exactly: count) else { throw unexpected("INCR") }
        return value
    }

    public func remove(_ key: String) async throws(AuthCoreError) {
        _ = try await command(["DEL", key].map(Self.bytes))
    }

    // MARK: - Commands

    private var origin: String { "Redis at \(configuration.host):\(configuration.port)" }

    private func unexpected(_ what: String) -> AuthCoreError {
        AuthCoreError(.malformedResponse, "\(origin): unexpected reply to \(what)")
    }

    /// Sends one command and reads its reply. A failed connection is dropped. When the failure
    /// came on a connection that was already open (the server restarted since it was made), the
    /// command is sent once more on a new one: a restarted server never saw the first attempt.
    /// (Had the server died mid-command instead, the retry can repeat it; each command here is one
    /// the service tolerates repeated: `SET NX` then reports the id taken, `GETDEL` finds nothing,
    /// the counter counts an attempt twice, the safe direction.)
    /// The same, on the store's own serial queue: hiredis blocks while Redis answers, and the
    /// concurrency pool's few threads (one per core) must not wait with it.
    package func command(_ arguments: [[UInt8]]) async throws(AuthCoreError) -> Reply {
        let result: Result<Reply, AuthCoreError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.blockingResult(arguments)) }
        }
        return try result.get()
    }

    /// Whether the server answers `PING` now (a blocking call, for start-up probes).
    package func answersPing() -> Bool {
        if case .success(.status("PONG")) = blockingResult([Self.bytes("PING")]) { return true }
        return false
    }

    func blockingResult(_ arguments: [[UInt8]]) -> Result<Reply, AuthCoreError> {
        connection.withLock { slot in
            var reused = slot != nil
            while true {
                do throws(AuthCoreError) {
                    let context: OpaquePointer
                    if let open = slot { context = open } else { context = try connect() }
                    slot = context
                    return .success(try send(arguments, on: context))
                } catch {
                    let connectionFailed = error.code == .transportFailure || error.code == .timedOut
                    if connectionFailed, let context = slot {
                        redisFree(UnsafeMutablePointer(context))
                        slot = nil
                    }
                    guard connectionFailed, reused, error.code == .transportFailure else { return .failure(error) }
                    reused = false
                }
            }
        }
    }

    private func connect() throws(AuthCoreError) -> OpaquePointer {
        let (seconds, attoseconds) = Swift.max(configuration.timeout, .milliseconds(1)).components
        let timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard let raw = redisConnectWithTimeout(configuration.host, Int32(clamping: configuration.port), timeout) else {
            throw AuthCoreError(.transportFailure, "\(origin): cannot allocate a connection")
        }
        guard authcore_redis_error_code(raw) == 0 else {
            let why = String(cString: authcore_redis_error_text(raw))
            redisFree(raw)
            throw AuthCoreError(.transportFailure, "\(origin): cannot connect: \(why)")
        }
        _ = redisSetTimeout(raw, timeout)
        let context = OpaquePointer(raw)
        if let password = configuration.password {
            do throws(AuthCoreError) {
                var argument = password.withUnsafeBytes { Array($0) }
                defer { argument.withUnsafeMutableBytes { wipeSecretMemory($0) } }
                guard case .status("OK") = try send([Self.bytes("AUTH"), argument], on: context) else { throw unexpected("AUTH") }
            } catch {
                redisFree(raw)
                throw error
            }
        }
        return context
    }

    private func send(_ arguments: [[UInt8]], on context: OpaquePointer) throws(AuthCoreError) -> Reply {
        let raw = UnsafeMutablePointer<redisContext>(context)
        // Binary-safe: every argument goes with its length (redisCommandArgv).
        let pointers = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: Swift.max(1, argument.count))
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
            }
            return copy
        }
        defer {
            for (pointer, argument) in zip(pointers, arguments) {
                pointer.withMemoryRebound(to: UInt8.self, capacity: Swift.max(1, argument.count)) { wipe in
                    wipeSecretMemory(UnsafeMutableRawBufferPointer(start: wipe, count: argument.count))  // sealed states, passwords
                }
                pointer.deallocate()
            }
        }
        var argv = pointers.map { UnsafePointer<CChar>($0) as UnsafePointer<CChar>? }
        var lengths = arguments.map(\.count)
        let replyPointer = authcore_redis_command(raw, Int32(arguments.count), &argv, &lengths)
        let failureErrno = errno  // read at once: later calls may change it
        guard let reply = replyPointer else {
            let why = String(cString: authcore_redis_error_text(raw))
            let timedOut = authcore_redis_error_code(raw) == REDIS_ERR_IO && (failureErrno == EAGAIN || failureErrno == EWOULDBLOCK)
            throw AuthCoreError(timedOut ? .timedOut : .transportFailure, "\(origin): \(timedOut ? "no reply in time" : why)")
        }
        defer { freeReplyObject(reply) }
        return try Self.reply(reply.pointee, from: origin)
    }

    /// A hiredis reply as a ``Reply`` (arrays one level deep: `MGET`'s).
    private static func reply(_ value: redisReply, from origin: String, nested: Bool = false) throws(AuthCoreError) -> Reply {
        switch value.type {
        case REDIS_REPLY_STRING:
            return .bytes(value.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: value.str, count: value.len)))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: UnsafeRawBufferPointer(start: value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_ERROR:
            let text = String(decoding: UnsafeRawBufferPointer(start: value.str, count: Swift.min(value.len, 200)), as: UTF8.self)
            throw AuthCoreError(.serviceError, "\(origin): \(text)")
        case REDIS_REPLY_ARRAY where !nested:
            guard value.elements == 0 || value.element != nil else { throw AuthCoreError(.malformedResponse, "\(origin): an array reply without elements") }
            var elements: [Reply] = []
            for index in 0..<value.elements {
                guard let element = value.element[index] else { throw AuthCoreError(.malformedResponse, "\(origin): an array reply with a missing element") }
                elements.append(try reply(element.pointee, from: origin, nested: true))
            }
            return .array(elements)
        default:
            throw AuthCoreError(.malformedResponse, "\(origin): reply of type \(value.type)")
        }
    }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = Swift.max(duration, .milliseconds(1)).components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return String(overflow ? Int64.max : product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }
}
