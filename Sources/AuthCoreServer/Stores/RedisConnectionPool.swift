import AuthCore
import Dispatch

/// The connections behind a ``RedisHandshakeStore``: ``RedisHandshakeStore/Configuration/poolSize``
/// hiredis connections, each with its own serial Dispatch queue (hiredis blocks while Redis answers,
/// and the concurrency pool's few threads must not wait with it). A command goes to the connection
/// with the fewest commands waiting, so concurrent requests are not serialised on one pipe.
///
/// Each connection is made on first use and again after a failure. With a Sentinel set
/// (``RedisHandshakeStore/Configuration/sentinel``), the master's address is asked of the sentinels
/// (`SENTINEL get-master-addr-by-name`, each in turn), and a new connection checks with `ROLE` that
/// it reached a master. The address is forgotten — and asked again on the next connection — when a
/// connection to it fails, when it answers `ROLE` as a replica, or when a write is refused
/// `READONLY` (a master demoted by a failover): so after a failover the store follows the master
/// the sentinels promoted.
final class RedisConnectionPool: @unchecked Sendable {
    // invariant (Sendable): a slot's `connection` is only touched on the slot's queue; `waiting` and
    // `master` are guarded by their locks; the rest is constant.

    typealias Endpoint = RedisHandshakeStore.Configuration.Address

    private final class Slot: @unchecked Sendable {
        // invariant (Sendable): `connection` and `endpoint` are only touched on `queue`.
        let queue: DispatchQueue
        /// The open connection and the master it reached (sentinel mode), touched only on `queue`.
        var connection: RedisConnection?
        var endpoint: Endpoint?

        init(_ index: Int) { queue = DispatchQueue(label: "authcore.redis.\(index)") }
    }

    let configuration: RedisHandshakeStore.Configuration
    private let slots: [Slot]
    private let waiting: Locked<[Int]>
    /// The master the sentinels named last (nil: ask them).
    private let master = Locked<Endpoint?>(nil)

    init(configuration: RedisHandshakeStore.Configuration) {
        self.configuration = configuration
        let count = Swift.max(1, configuration.poolSize)
        slots = (0..<count).map(Slot.init)
        waiting = Locked([Int](repeating: 0, count: count))
    }

    /// What the store's messages call the server.
    var origin: String {
        if let sentinel = configuration.sentinel { return "Redis master '\(sentinel.masterName)'" }
        return "Redis at \(configuration.host):\(configuration.port)"
    }

    /// Sends `commands` on one connection in one round trip and returns their replies (error
    /// replies included, as `.error`).
    func run(_ commands: [[[UInt8]]]) async throws(AuthCoreError) -> [RedisReply] {
        let index = waiting.withLock { counts in
            let chosen = counts.indices.min { counts[$0] < counts[$1] } ?? 0
            counts[chosen] += 1
            return chosen
        }
        let slot = slots[index]
        let result: Result<[RedisReply], AuthCoreError> = await withCheckedContinuation { continuation in
            slot.queue.async {
                let result = self.blockingRun(commands, on: slot)
                self.waiting.withLock { $0[index] -= 1 }
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Whether the server (the master, through the sentinels) answers `PING` now, on a connection
    /// of its own (a blocking call, for start-up probes).
    func answersPing() -> Bool {
        guard let connection = try? connect().0 else { return false }
        return (try? connection.send([Array("PING".utf8)])) == .status("PONG")
    }

    /// One attempt, and a second when the first failed in a way a repeat cannot make worse: the
    /// connection was already open (the server restarted since: it never saw the command), or a
    /// write met a demoted master (`READONLY`: nothing was written). Each command the store sends
    /// tolerates a repeat anyway (`SET NX` then reports the id taken, `GETDEL` finds nothing, a
    /// counter counts an attempt twice, the safe direction).
    private func blockingRun(_ commands: [[[UInt8]]], on slot: Slot) -> Result<[RedisReply], AuthCoreError> {
        var mayRetry = slot.connection != nil || configuration.sentinel != nil
        while true {
            var demoted = false
            do throws(AuthCoreError) {
                let connection: RedisConnection
                if let open = slot.connection {
                    connection = open
                } else {
                    (connection, slot.endpoint) = try connect()
                    slot.connection = connection
                }
                let replies = try connection.pipeline(commands)
                if configuration.sentinel != nil, replies.contains(where: Self.isDemotion) {
                    drop(slot)
                    demoted = true
                    throw AuthCoreError(.serviceError, "\(origin): the master was demoted (READONLY)")
                }
                return .success(replies)
            } catch {
                let connectionFailed = error.code == .transportFailure || error.code == .timedOut
                if connectionFailed { drop(slot) }
                guard mayRetry, (connectionFailed && error.code == .transportFailure) || demoted else { return .failure(error) }
                mayRetry = false
            }
        }
    }

    private static func isDemotion(_ reply: RedisReply) -> Bool {
        guard case .error(let text) = reply else { return false }
        return text.utf8.starts(with: "READONLY".utf8)
    }

    /// Closes the slot's connection; in sentinel mode its master is forgotten (unless another slot
    /// has already learnt a newer one).
    private func drop(_ slot: Slot) {
        slot.connection = nil
        if let endpoint = slot.endpoint {
            master.withLock { if $0 == endpoint { $0 = nil } }
        }
        slot.endpoint = nil
    }

    /// A new connection: to the configured server, or to the master the sentinels name.
    private func connect() throws(AuthCoreError) -> (RedisConnection, Endpoint?) {
        guard configuration.sentinel != nil else {
            return (try open(Endpoint(host: configuration.host, port: configuration.port)), nil)
        }
        let endpoint: Endpoint
        if let known = master.withLock({ $0 }) { endpoint = known } else { endpoint = try discoverMaster() }
        let connection: RedisConnection
        do throws(AuthCoreError) { connection = try open(endpoint) } catch {
            master.withLock { if $0 == endpoint { $0 = nil } }
            throw error
        }
        // A sentinel's answer can be stale (a failover under way): only a master is used.
        guard case .array(let role) = try connection.send([Array("ROLE".utf8)]), role.first == .bytes(Array("master".utf8)) else {
            master.withLock { if $0 == endpoint { $0 = nil } }
            throw AuthCoreError(.transportFailure, "\(origin): \(endpoint.host):\(endpoint.port) is not a master (yet)")
        }
        master.withLock { $0 = endpoint }
        return (connection, endpoint)
    }

    private func open(_ endpoint: Endpoint) throws(AuthCoreError) -> RedisConnection {
        try RedisConnection(
            host: endpoint.host, port: endpoint.port, timeout: configuration.timeout, username: configuration.username,
            password: configuration.password, database: configuration.database)
    }

    /// Asks each sentinel in turn for the master's address; the first that knows it answers.
    private func discoverMaster() throws(AuthCoreError) -> Endpoint {
        guard let sentinel = configuration.sentinel else { throw AuthCoreError(.invalidParameter, "no sentinels are configured") }
        var reasons: [String] = []
        for address in sentinel.addresses {
            do throws(AuthCoreError) {
                let connection = try RedisConnection(host: address.host, port: address.port, timeout: configuration.timeout)
                let reply = try connection.send(["SENTINEL", "get-master-addr-by-name", sentinel.masterName].map { Array($0.utf8) })
                guard case .array(let parts) = reply, parts.count == 2, case .bytes(let host) = parts[0], case .bytes(let port) = parts[1],
                    let number = StoredCounter.parse(port), (1...65_535).contains(number), !host.isEmpty, host.count <= 255,
                    host.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
                else {
                    reasons.append("\(address.host):\(address.port) does not know it")
                    continue
                }
                return Endpoint(host: String(decoding: host, as: UTF8.self), port: number)
            } catch {
                reasons.append(error.reason)
            }
        }
        throw AuthCoreError(.transportFailure, "\(origin): no sentinel named the master (\(reasons.joined(separator: "; ")))")
    }
}
