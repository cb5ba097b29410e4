import AuthCore
import AuthCoreHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Follows a Sentinel set's announcements for one master: a connection to a sentinel subscribed to
/// `+switch-master` (Redis Sentinel's pub/sub event, `<name> <old ip> <old port> <new ip> <new
/// port>`), so that a failover is seen as soon as the sentinels announce it, not only when a
/// connection to the old master breaks, is refused `READONLY` or fails its next role check. On an
/// announcement of a new address for its master name it tells the pool
/// (``RedisConnectionPool/masterSwitched(to:)``): the new address is used from then on, and every
/// connection made before is replaced before its next use.
///
/// It runs on a thread of its own (blocking reads, a `poll(2)` of at most a second at a time,
/// `SIGPIPE` blocked, TCP keep-alive on), asks the sentinels in turn, and after a failure waits a
/// second, doubling up to 30 s while the failures go on. It ends once its pool is released: within
/// a second while subscribed, else after the connection attempt under way (at most three of the
/// store's time limits) or the wait. The peer must answer `ROLE` as a sentinel before it is
/// subscribed to, and an announced address is checked as strictly as `SENTINEL
/// get-master-addr-by-name`'s answer (printable host of at most 255 bytes, port 1…65535); the pool
/// still checks with `ROLE` that it reached a master. Sentinels with ACL users must let the user
/// `SUBSCRIBE` to `+switch-master` (`+subscribe &+switch-master`).
package final class SentinelWatcher: Sendable {
    private let sentinel: RedisHandshakeStore.Configuration.Sentinel
    private let configuration: RedisHandshakeStore.Configuration

    private init(configuration: RedisHandshakeStore.Configuration, sentinel: RedisHandshakeStore.Configuration.Sentinel)
    {
        self.configuration = configuration
        self.sentinel = sentinel
    }

    /// Starts watching for `pool` (held weakly); false when no thread could be started (the pool
    /// then follows failovers without announcements).
    static func start(for pool: RedisConnectionPool) -> Bool {
        guard let sentinel = pool.configuration.sentinel, !sentinel.addresses.isEmpty else { return false }
        let watcher = SentinelWatcher(configuration: pool.configuration, sentinel: sentinel)
        return startDetachedThread { [weak pool] in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            watcher.run { pool }
        }
    }

    private func run(_ pool: () -> RedisConnectionPool?) {
        var index = 0
        var pauseMilliseconds: Int32 = 1000
        while pool() != nil {
            let address = sentinel.addresses[index % sentinel.addresses.count]
            index &+= 1
            do throws(AuthCoreError) {
                let connection = try RedisConnection(
                    host: address.host,
                    port: address.port,
                    timeout: configuration.timeout,
                    username: sentinel.username,
                    password: configuration.sentinelPassword
                )
                connection.enableKeepAlive()
                guard case .array(let role) = try connection.send([Array("ROLE".utf8)]),
                    role.first == .bytes(Array("sentinel".utf8))
                else {
                    throw AuthCoreError(.malformedResponse, "\(connection.origin) is not a sentinel")
                }
                let reply = try connection.send(["SUBSCRIBE", "+switch-master"].map { Array($0.utf8) })
                guard case .array(let parts) = reply, parts.first == .bytes(Array("subscribe".utf8)) else {
                    throw AuthCoreError(.malformedResponse, "\(connection.origin): unexpected reply to SUBSCRIBE")
                }
                pool()?.watcherSubscribed(true)
                pauseMilliseconds = 1000
                try follow(connection, pool)
            } catch {
                pool()?.watcherSubscribed(false)
                guard pool() != nil else { return }
                var nothing = pollfd(fd: -1, events: 0, revents: 0)
                _ = poll(&nothing, 0, pauseMilliseconds)
                pauseMilliseconds = Swift.min(pauseMilliseconds * 2, 30_000)
            }
        }
    }

    /// Reads the subscription's messages until the pool is gone (returns) or the connection fails (throws).
    private func follow(_ connection: RedisConnection, _ pool: () -> RedisConnectionPool?) throws(AuthCoreError) {
        while true {
            if let message = try connection.bufferedReply() {
                if let endpoint = Self.announcedMaster(message, masterName: sentinel.masterName) {
                    pool()?.masterSwitched(to: endpoint)
                }
                continue
            }
            guard pool() != nil else { return }
            var readable = pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&readable, 1, 1000)
            if ready < 0, errno != EINTR { throw AuthCoreError(.transportFailure, "\(connection.origin): poll failed") }
            if ready > 0 { try connection.readAvailable() }
        }
    }

    /// The new master of a `+switch-master` message for `masterName`; nil for any other message.
    package static func announcedMaster(
        _ message: RedisReply,
        masterName: String
    ) -> RedisHandshakeStore.Configuration.Address? {
        guard case .array(let parts) = message, parts.count == 3, parts[0] == .bytes(Array("message".utf8)),
            parts[1] == .bytes(Array("+switch-master".utf8)), case .bytes(let payload) = parts[2], payload.count <= 1024
        else { return nil }
        let fields = payload.split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].elementsEqual(masterName.utf8) else { return nil }
        let host = fields[3]
        guard let port = StoredCounter.parse(fields[4]), (1...65_535).contains(port), !host.isEmpty, host.count <= 255,
            host.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return .init(host: String(decoding: host, as: UTF8.self), port: port)
    }
}
