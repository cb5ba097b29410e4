import AuthCore
import Dispatch
import Foundation

/// The connections behind a ``RedisHandshakeStore``: ``RedisHandshakeStore/Configuration/poolSize``
/// hiredis connections, each with its own serial Dispatch queue (hiredis blocks while Redis answers,
/// and the concurrency pool's few threads must not wait with it — but for one bounded call at a
/// time on an idle open connection, which runs in place: ``run(_:retryable:writes:evenIfCancelled:)``).
/// A command goes to the connection
/// with the fewest commands waiting, so concurrent requests are not serialised on one pipe; at most
/// ``maximumWaitingPerConnection`` wait for one connection (past that a call fails at once: a store
/// that does not answer must not collect an unbounded backlog), and a call whose task is cancelled
/// before its turn (its request answered `503` at its time limit) is not sent.
///
/// Each connection is made on first use and again after a failure; after a connection failure, every
/// other connection made before it is replaced before its next use too (a restarted server has
/// closed them all, and a command should not be the one to find out).
///
/// With a Sentinel set (``RedisHandshakeStore/Configuration/sentinel``), the master's address is
/// asked of the sentinels (`SENTINEL get-master-addr-by-name`, each in turn, with the sentinels'
/// own `AUTH` when configured), and a connection checks with `ROLE` that it reached a master — when
/// it is made, and again before its first command after five seconds. The address is forgotten,
/// and asked again, when a connection to it fails, when it answers `ROLE` as anything but a master,
/// or when a command is refused `READONLY`, `MASTERDOWN` or `LOADING` (a master demoted by a
/// failover, or one that lost its replicas): so after a failover the store follows the master the
/// sentinels promoted. And a ``SentinelWatcher`` listens for the sentinels' `+switch-master`
/// announcement: the new master is used as soon as it is announced (commands already under way, or
/// sent between the promotion and the announcement, still meet the old one). The sentinels are trusted to name the
/// master: the Redis password is sent to
/// the host they name (give the sentinels a password of their own).
final class RedisConnectionPool: @unchecked Sendable {
    // invariant (Sendable): a slot's connection state is only touched on the slot's queue (a call in
    // place runs in `sync` on it); `waiting`,
    // `master`, `epoch`, `roundTrips` and `watcher` are guarded by their locks; the rest is constant.

    typealias Endpoint = RedisHandshakeStore.Configuration.Address

    /// Calls that may be queued on one connection (the one it is running included) before a call
    /// fails at once.
    static let maximumWaitingPerConnection = 64
    /// How long a Sentinel-mode connection is used before its role is checked again.
    static let roleCheckInterval: UInt64 = 5_000_000_000

    private final class Slot: @unchecked Sendable {
        // invariant (Sendable): everything but `queue` is only touched on `queue`.
        let queue: DispatchQueue
        var connection: RedisConnection?
        /// The master it reached (sentinel mode), the pool's epoch when it was made, and when its
        /// role was last checked (uptime, ns).
        var endpoint: Endpoint?
        var epoch: UInt64 = 0
        var roleCheckedAt: UInt64 = 0

        init(_ index: Int) { queue = DispatchQueue(label: "authcore.redis.\(index)") }
    }

    let configuration: RedisHandshakeStore.Configuration
    private let slots: [Slot]
    /// Calls queued or running per connection; whether a call runs on its caller's thread now; and
    /// whether that is suspended (an attempt in place failed on its connection; cleared when a call
    /// on a queue succeeds).
    private let waiting: Locked<(counts: [Int], inlineBusy: Bool, inlineSuspended: Bool)>
    /// The master the sentinels named last (nil: ask them).
    private let master = Locked<Endpoint?>(nil)
    /// Bumped when an open connection fails (reset or closed, not a timeout) and when the sentinels
    /// announce a new master: the connections made before are replaced before their next use.
    private let epoch = Locked<UInt64>(0)
    /// The round trips the store's calls have made (a pipeline sent and its replies read, retries
    /// included; connecting and its `AUTH`, `SELECT` and `ROLE` are not counted): tests hold the
    /// login's store work to its count.
    let roundTrips = Locked<Int>(0)
    /// The calls that ran on their caller's thread (``run(_:retryable:writes:evenIfCancelled:)``).
    let inlineCalls = Locked<Int>(0)
    /// Whether the `+switch-master` watcher was started, is subscribed now, and how many switches
    /// it has announced (``SentinelWatcher``).
    private let watcher = Locked<(started: Bool, subscribed: Bool, switches: Int)>((false, false, 0))

    init(configuration: RedisHandshakeStore.Configuration) {
        self.configuration = configuration
        let count = Swift.max(1, configuration.poolSize)
        slots = (0..<count).map(Slot.init)
        waiting = Locked(([Int](repeating: 0, count: count), false, false))
    }

    /// What the store's messages call the server.
    var origin: String {
        if let sentinel = configuration.sentinel { return "Redis master '\(sentinel.masterName)'" }
        return "Redis at \(configuration.host):\(configuration.port)"
    }

    /// Sends `commands` on one connection in one round trip and returns their replies (error
    /// replies included, as `.error`). `retryable`: whether the commands may be sent a second time
    /// after a failure that leaves unknown whether the first attempt ran (see ``blockingRun``).
    /// `writes`: whether they change the store (then, with
    /// ``RedisHandshakeStore/Configuration/replicasToAcknowledge``, a `WAIT` follows them in the
    /// same round trip).
    /// `evenIfCancelled`: sent even when the caller's task is cancelled before its turn (a successful
    /// login's bookkeeping must not be skipped because its request ran out of time).
    ///
    /// A call that finds its connection idle and open runs on the caller's thread (in `sync` on the
    /// connection's queue, which libdispatch runs in place): no hop to the queue's thread and back,
    /// two context switches fewer per round trip. It blocks that concurrency-pool thread until Redis
    /// answers, at most ``RedisHandshakeStore/Configuration/timeout`` once: it makes one attempt on
    /// the open connection, never a connection, and a failure it would retry is retried on the
    /// queue. So that the other pool threads keep running handlers, the health checks and the
    /// drain, one call in the process does it at a time, none on a machine with one processor
    /// (one pool thread), none that waits for replicas (`WAIT`), and none after an attempt in place
    /// failed on the connection until a call on a queue has succeeded (a Redis that stopped
    /// answering holds a pool thread for one time limit, not one per connection). Every other call
    /// goes to its connection's queue as before.
    func run(
        _ commands: [[[UInt8]]],
        retryable: Bool = true,
        writes: Bool = false,
        evenIfCancelled: Bool = false
    ) async throws(AuthCoreError)
        -> [RedisReply]
    {
        let mayRunInPlace = inlineAllowed && !(writes && configuration.replicasToAcknowledge > 0)
        let claim: (index: Int, inline: Bool)? = waiting.withLock { state in
            let counts = state.counts
            guard let chosen = counts.indices.min(by: { counts[$0] < counts[$1] }),
                counts[chosen] < Self.maximumWaitingPerConnection
            else { return nil }
            state.counts[chosen] += 1
            // Idle connection and the permit free: this call runs on the caller's thread.
            let inline = mayRunInPlace && counts[chosen] == 0 && !state.inlineBusy && !state.inlineSuspended
            if inline { state.inlineBusy = true }
            return (chosen, inline)
        }
        guard let claim else {
            throw AuthCoreError(.transportFailure, "\(origin): too many commands are waiting for the store")
        }
        let index = claim.index
        let slot = slots[index]
        // Whether the attempt in place failed in a way that is retried (on the queue, below).
        var retriedOnQueue = false
        if claim.inline {
            let inPlace: InPlaceOutcome = slot.queue.sync {
                guard evenIfCancelled || !Task.isCancelled else {
                    return .cancelled(
                        AuthCoreError(.cancelled, "\(self.origin): the call was cancelled before it was sent")
                    )
                }
                guard self.readyForInline(slot) else { return .notReady }
                return self.attemptInPlace(commands, retryable: retryable, writes: writes, on: slot)
            }
            // The answer (nil: go to the queue), whether it ran in place, whether its connection failed.
            let (result, ranInPlace, connectionFailed): (Result<[RedisReply], AuthCoreError>?, Bool, Bool)
            switch inPlace {
            case .done(let outcome):
                if case .failure(let error) = outcome {
                    (result, ranInPlace, connectionFailed) = (outcome, true, Self.isConnectionFailure(error))
                } else {
                    (result, ranInPlace, connectionFailed) = (outcome, true, false)
                }
            case .cancelled(let failure): (result, ranInPlace, connectionFailed) = (.failure(failure), false, false)
            case .notReady: (result, ranInPlace, connectionFailed) = (nil, false, false)
            case .retry:
                (result, ranInPlace, connectionFailed) = (nil, true, true)
                retriedOnQueue = true
            }
            if ranInPlace { inlineCalls.withLock { $0 += 1 } }
            waiting.withLock { state in
                state.inlineBusy = false
                if connectionFailed { state.inlineSuspended = true }
                if result != nil { state.counts[index] -= 1 }
            }
            if let result { return try result.get() }
        }
        let secondAttempt = retriedOnQueue
        let cancelled = Locked(false)
        let result: Result<[RedisReply], AuthCoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                slot.queue.async {
                    let result: Result<[RedisReply], AuthCoreError>
                    if !evenIfCancelled, cancelled.withLock({ $0 }) {
                        result = .failure(
                            AuthCoreError(
                                .cancelled,
                                secondAttempt
                                    ? "\(self.origin): the call was cancelled before its second attempt (the first failed)"
                                    : "\(self.origin): the call was cancelled before it was sent"
                            )
                        )
                    } else {
                        result = self.blockingRun(
                            commands,
                            retryable: retryable && !secondAttempt,
                            writes: writes,
                            on: slot
                        )
                    }
                    let succeeded = (try? result.get()) != nil
                    self.waiting.withLock { state in
                        state.counts[index] -= 1
                        if succeeded { state.inlineSuspended = false }
                    }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        return try result.get()
    }

    /// Whether the server (the master, through the sentinels) answers `PING` now, on a connection
    /// of its own (a blocking call, for start-up probes).
    func answersPing() -> Bool {
        guard let connection = try? connect().0 else { return false }
        return (try? connection.send([Array("PING".utf8)])) == .status("PONG")
    }

    /// One attempt, and a second for `retryable` commands when the first failed on a connection
    /// that was already open (the server may have restarted: then it never saw the command) or met a
    /// demoted master (`READONLY`: nothing was written). A connection can also fail after the
    /// server ran the command (a reset, Sentinel's `CLIENT KILL` after a failover); then the repeat
    /// runs it twice: `SET NX` reports the id taken (the login or session fails and is retried by
    /// the client), `GETDEL` finds nothing (the login fails), an increment counts an attempt twice
    /// (the safe direction). A decrement — which forgives a failure — is not retryable.
    /// `inPlace`: the caller's thread, one attempt; a connection to be made fails at once (`notReady`
    /// was checked just before, so only a switch announced meanwhile gets there).
    private func blockingRun(
        _ commands: [[[UInt8]]],
        retryable: Bool,
        writes: Bool,
        on slot: Slot,
        inPlace: Bool = false
    ) -> Result<[RedisReply], AuthCoreError> {
        let sentinel = configuration.sentinel != nil
        var mayRetry = retryable && (slot.connection != nil || sentinel)
        while true {
            var demoted = false
            var wasOpen = false
            do throws(AuthCoreError) {
                // A connection made before the latest failure elsewhere is replaced unused (its master
                // is not forgotten for that: the failure was another connection's).
                // (Not in place: readiness was checked in the same block on the slot's queue, and a
                // bump since then is no different from one just after the send.)
                if !inPlace, slot.connection != nil, slot.epoch < epoch.withLock({ $0 }) {
                    slot.connection = nil
                    slot.endpoint = nil
                }
                let fresh = slot.connection == nil
                if fresh, inPlace { throw AuthCoreError(.transportFailure, "\(origin): the connection was replaced") }
                wasOpen = !fresh
                if fresh { try reconnect(slot) }
                // A switch announced while it connected (it may have reached the old master, still
                // answering ROLE as one): once more, to the new one.
                if fresh, sentinel, slot.epoch < epoch.withLock({ $0 }) { try reconnect(slot) }
                guard let connection = slot.connection else {
                    throw AuthCoreError(.transportFailure, "\(origin): no connection")
                }
                var batch = commands
                let checkRole = sentinel && !fresh && Self.roleCheckDue(slot)
                if checkRole { batch.insert([Array("ROLE".utf8)], at: 0) }
                let replicas = configuration.replicasToAcknowledge
                if writes, replicas > 0 {
                    batch.append(
                        [
                            "WAIT", String(replicas),
                            String(Swift.max(1, RedisHandshakeStore.milliseconds(configuration.timeout) / 2)),
                        ].map { Array($0.utf8) }
                    )
                }
                var replies: [RedisReply]
                roundTrips.withLock { $0 += 1 }
                do { replies = try connection.pipeline(batch) } catch {
                    drop(slot)  // a reply left unread would answer the next command
                    throw error
                }
                if checkRole {
                    let role = replies.removeFirst()
                    guard Self.isMaster(role) else {
                        drop(slot)
                        demoted = true
                        throw AuthCoreError(.serviceError, "\(origin): the server is no longer the master")
                    }
                    slot.roleCheckedAt = DispatchTime.now().uptimeNanoseconds
                }
                if sentinel, replies.contains(where: Self.isDemotion) {
                    drop(slot)
                    demoted = true
                    throw AuthCoreError(.serviceError, "\(origin): the master was demoted or lost its replicas")
                }
                if writes, replicas > 0 {
                    let wait = replies.removeLast()
                    if case .error(let text) = wait {
                        throw AuthCoreError(
                            .serviceError,
                            "\(origin): WAIT refused: \(RedisConnection.errorWord(text))"
                        )
                    }
                    guard case .integer(let acknowledged) = wait, acknowledged >= replicas else {
                        throw AuthCoreError(
                            .serviceError,
                            "\(origin): the write was not acknowledged by \(replicas) replica(s) in time"
                        )
                    }
                }
                return .success(replies)
            } catch {
                let connectionFailed = Self.isConnectionFailure(error)
                if connectionFailed { drop(slot) }
                // A connection that was open and broke (not a slow reply, not a failed connect): the
                // server may have restarted, and the others' connections with it.
                if error.code == .transportFailure, wasOpen { epoch.withLock { $0 &+= 1 } }
                guard mayRetry, error.code == .transportFailure || demoted else { return .failure(error) }
                mayRetry = false
            }
        }
    }

    /// What a call on the caller's thread came to.
    private enum InPlaceOutcome {
        /// Its answer, or a failure not to retry.
        case done(Result<[RedisReply], AuthCoreError>)
        /// The caller's task was cancelled: nothing was sent.
        case cancelled(AuthCoreError)
        /// The connection was not ready: nothing was sent.
        case notReady
        /// The attempt failed in a way that is retried once: on the queue.
        case retry
    }

    /// Whether calls may run on their caller's thread here: not on a machine with one processor,
    /// whose concurrency pool has one thread.
    private let inlineAllowed = RedisConnectionPool.usableProcessors() > 1

    /// The processors this process may run on, as libdispatch counts them to size its pools: the
    /// affinity mask (`taskset`, a container's cpuset), read from `/proc/self/status`
    /// (`Cpus_allowed`, hexadecimal groups separated by commas); else those Foundation reports.
    static func usableProcessors() -> Int {
        let label = Array("Cpus_allowed:".utf8)
        if let status = FileManager.default.contents(atPath: "/proc/self/status").map({ [UInt8]($0) }),
            let line = status.split(separator: 0x0A).first(where: { $0.starts(with: label) })
        {
            var count = 0
            for byte in line.dropFirst(label.count) {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): count += (byte - UInt8(ascii: "0")).nonzeroBitCount
                case UInt8(ascii: "a")...UInt8(ascii: "f"): count += (byte - UInt8(ascii: "a") + 10).nonzeroBitCount
                default: continue
                }
            }
            if count > 0 { return count }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }

    /// A timeout, a reset, a refused connection: the connection is dropped.
    private static func isConnectionFailure(_ error: AuthCoreError) -> Bool {
        error.code == .transportFailure || error.code == .timedOut
    }

    /// One attempt on the slot's open connection (``readyForInline(_:)`` said so, on the slot's
    /// queue): ``blockingRun`` with no connecting and no retry. A failure that run would retry is
    /// `.retry`, for the queue to repeat.
    private func attemptInPlace(_ commands: [[[UInt8]]], retryable: Bool, writes: Bool, on slot: Slot) -> InPlaceOutcome
    {
        let result = blockingRun(commands, retryable: false, writes: writes, on: slot, inPlace: true)
        guard case .failure(let error) = result else { return .done(result) }
        // blockingRun retries a failure on a connection that was open (here it always was) when
        // it is a transport failure or a demotion (a `serviceError` it raises after dropping the slot).
        let demoted = error.code == .serviceError && slot.connection == nil
        if retryable, error.code == .transportFailure || demoted { return .retry }
        return .done(result)
    }

    /// Whether `slot` can take a call on the caller's thread: its connection is open, made after
    /// the latest failure or switch, and (sentinel mode) its role needs no check yet.
    private func readyForInline(_ slot: Slot) -> Bool {
        guard slot.connection != nil, slot.epoch >= epoch.withLock({ $0 }) else { return false }
        return configuration.sentinel == nil || !Self.roleCheckDue(slot)
    }

    /// Whether a sentinel-mode connection has been used long enough to have its role checked again.
    private static func roleCheckDue(_ slot: Slot) -> Bool {
        DispatchTime.now().uptimeNanoseconds &- slot.roleCheckedAt > roleCheckInterval
    }

    private static func isMaster(_ reply: RedisReply) -> Bool {
        guard case .array(let role) = reply else { return false }
        return role.first == .bytes(Array("master".utf8))
    }

    /// `READONLY` (Redis 7's own reply, and inside a script's error before 7), `MASTERDOWN`,
    /// `LOADING`: this server cannot take the store's commands as the master now.
    private static func isDemotion(_ reply: RedisReply) -> Bool {
        guard case .error(let text) = reply else { return false }
        let bytes = Array(text.utf8)
        return bytes.starts(with: "MASTERDOWN".utf8) || bytes.starts(with: "LOADING".utf8)
            || bytes.firstRange(of: "READONLY".utf8) != nil
    }

    /// What the sentinels announced: `endpoint` is the master from now on, and every connection made
    /// before is replaced before its next use (``SentinelWatcher``).
    /// An announcement of the master in use changes nothing (a flood of them costs no reconnection).
    func masterSwitched(to endpoint: Endpoint) {
        // The master first, then the epoch: a slot that sees the new epoch finds the new master.
        let changed = master.withLock { current in
            defer { current = endpoint }
            return current != endpoint
        }
        guard changed else { return }
        epoch.withLock { $0 &+= 1 }
        watcher.withLock { $0.switches += 1 }
    }

    func watcherSubscribed(_ subscribed: Bool) { watcher.withLock { $0.subscribed = subscribed } }

    /// Whether the watcher is subscribed now, and the switches it has announced (for tests).
    var watcherState: (subscribed: Bool, switches: Int) { watcher.withLock { ($0.subscribed, $0.switches) } }

    /// The master the pool uses now (sentinel mode; nil: to be asked).
    var currentMaster: Endpoint? { master.withLock { $0 } }

    /// Closes the slot's connection; in sentinel mode its master is forgotten (unless another slot
    /// has already learnt a newer one).
    private func drop(_ slot: Slot) {
        slot.connection = nil
        if let endpoint = slot.endpoint { forget(endpoint) }
        slot.endpoint = nil
    }

    private func forget(_ endpoint: Endpoint) { master.withLock { if $0 == endpoint { $0 = nil } } }

    private func reconnect(_ slot: Slot) throws(AuthCoreError) {
        let startEpoch = epoch.withLock { $0 }
        let (connection, endpoint) = try connect()
        slot.connection = connection
        slot.endpoint = endpoint
        slot.epoch = startEpoch
        slot.roleCheckedAt = DispatchTime.now().uptimeNanoseconds
    }

    /// A new connection: to the configured server, or to the master the sentinels name.
    private func connect() throws(AuthCoreError) -> (RedisConnection, Endpoint?) {
        guard configuration.sentinel != nil else {
            return (try open(Endpoint(host: configuration.host, port: configuration.port)), nil)
        }
        let startWatcher = watcher.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        if startWatcher { _ = SentinelWatcher.start(for: self) }
        let known = master.withLock { $0 }
        let endpoint: Endpoint
        if let known { endpoint = known } else { endpoint = try discoverMaster() }
        do throws(AuthCoreError) {
            let connection = try open(endpoint)
            // A sentinel's answer can be stale (a failover under way): only a master is used.
            let role = try connection.send([Array("ROLE".utf8)])
            guard Self.isMaster(role) else {
                if case .error(let text) = role {
                    throw AuthCoreError(.serviceError, "\(origin): ROLE refused: \(RedisConnection.errorWord(text))")
                }
                throw AuthCoreError(
                    .transportFailure,
                    "\(origin): \(endpoint.host):\(endpoint.port) is not a master (yet)"
                )
            }
            // Learnt only if nobody learnt another meanwhile (a slow connect must not put back an old master).
            master.withLock { if $0 == known { $0 = endpoint } }
            return (connection, endpoint)
        } catch {
            forget(endpoint)
            throw error
        }
    }

    private func open(_ endpoint: Endpoint) throws(AuthCoreError) -> RedisConnection {
        try RedisConnection(
            host: endpoint.host,
            port: endpoint.port,
            timeout: configuration.timeout,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database
        )
    }

    /// Asks each sentinel in turn for the master's address; the first that knows it answers.
    private func discoverMaster() throws(AuthCoreError) -> Endpoint {
        guard let sentinel = configuration.sentinel else {
            throw AuthCoreError(.invalidParameter, "no sentinels are configured")
        }
        var reasons: [String] = []
        for address in sentinel.addresses {
            do throws(AuthCoreError) {
                let connection = try RedisConnection(
                    host: address.host,
                    port: address.port,
                    timeout: configuration.timeout,
                    username: sentinel.username,
                    password: configuration.sentinelPassword
                )
                let reply = try connection.send(
                    ["SENTINEL", "get-master-addr-by-name", sentinel.masterName].map { Array($0.utf8) }
                )
                if case .error(let text) = reply {
                    reasons.append("\(address.host):\(address.port) refused: \(RedisConnection.errorWord(text))")
                    continue
                }
                guard case .array(let parts) = reply, parts.count == 2, case .bytes(let host) = parts[0],
                    case .bytes(let port) = parts[1],
                    let number = StoredCounter.parse(port), (1...65_535).contains(number), !host.isEmpty,
                    host.count <= 255,
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
        throw AuthCoreError(
            .transportFailure,
            "\(origin): no sentinel named the master (\(reasons.joined(separator: "; ")))"
        )
    }
}
