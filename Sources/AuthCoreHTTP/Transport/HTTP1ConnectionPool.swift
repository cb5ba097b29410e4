internal import AuthCore

/// Idle persistent HTTP/1.1 connections, per origin, for ``HTTP1Transport`` to reuse (RFC 9112 §9.3).
///
/// A connection comes back only after an exchange that ended cleanly: a complete answer that allows
/// reuse (``HTTP1ResponseParser/allowsReuse``), no byte read past it, the whole request sent, the
/// call not stopped. It is given out again only while it is younger than the idle limit and its
/// socket shows nothing readable (a peer that closed or reset it, or sent bytes nobody asked for).
/// Connections are keyed by everything that makes them what they are: scheme, host, port, the proxy
/// (and its credentials) and the TLS trust they were verified with.
///
/// It also keeps, per key, the latest resumable TLS session a connection received (RFC 8446 §2.2
/// tickets), so a new connection to the same origin resumes instead of a full handshake.
final class HTTP1ConnectionPool: Sendable {
    /// What a connection was made for.
    struct Key: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
        let proxy: HTTPProxy?
        let trust: ObjectIdentifier?

        init(url: RequestURL, proxy: HTTPProxy?, tls: TLSClientContext?) {
            scheme = url.scheme
            host = url.host
            port = url.port ?? (url.scheme == "https" ? 443 : 80)
            self.proxy = proxy
            trust = url.scheme == "https" ? tls.map(ObjectIdentifier.init) : nil
        }
    }

    private struct Idle {
        let connection: HTTP1Connection
        let since: ContinuousClock.Instant
        /// When it stops being reusable: the pool's idle limit, or sooner when the server said so.
        let expires: ContinuousClock.Instant
    }

    /// The most idle connections kept per key; 0 turns reuse off.
    let maximumIdlePerKey: Int
    /// The most idle connections kept in all; the longest idle one goes first.
    let maximumIdle: Int
    /// How long a connection may idle before it is closed instead of reused.
    let idleLimit: Duration
    /// How long a connection may have idled and still carry a request that must not be repeated
    /// (a `POST`): a server that closes it as the request goes out leaves no safe retry, so such a
    /// request takes only a connection the server has just used
    /// (``HTTP1Transport/Configuration/unrepeatableRequestFreshness``).
    let freshnessForUnrepeatableRequests: Duration
    private let idle = Locked<[Key: [Idle]]>([:])
    private let sessions = Locked<[Key: TLSSession]>([:])

    init(
        maximumIdlePerKey: Int,
        maximumIdle: Int = 64,
        idleLimit: Duration,
        unrepeatableFreshness: Duration = .seconds(2)
    ) {
        self.maximumIdlePerKey = Swift.max(0, maximumIdlePerKey)
        self.maximumIdle = Swift.max(0, maximumIdle)
        self.idleLimit = idleLimit
        self.freshnessForUnrepeatableRequests = Swift.max(.zero, unrepeatableFreshness)
    }

    /// Whether connections are kept at all (otherwise requests say `Connection: close`).
    var keepsConnections: Bool { maximumIdlePerKey > 0 && maximumIdle > 0 }

    /// The most recently returned idle connection for `key` that is still reusable (and, for a
    /// request that must not be repeated, idle for at most ``freshnessForUnrepeatableRequests``),
    /// or nil. Expired connections of every key are closed on the way.
    func take(_ key: Key, repeatable: Bool) -> HTTP1Connection? {
        let now = ContinuousClock.now
        while true {
            var expired: [HTTP1Connection] = []
            let candidate = idle.withLock { idle -> Idle? in
                expired = Self.removeExpired(&idle, now: now)
                guard var list = idle[key], let last = list.popLast() else { return nil }
                idle[key] = list.isEmpty ? nil : list
                return last
            }
            for connection in expired { connection.close(gracefully: true) }
            guard let candidate else { return nil }
            if repeatable || now - candidate.since <= freshnessForUnrepeatableRequests, candidate.connection.isReusable
            {
                return candidate.connection
            }
            candidate.connection.close()
        }
    }

    /// Keeps `connection` (already detached from its call) for `key`, for the idle limit or for
    /// `serverTimeout` less a second when the server announced a shorter one; closes it instead when
    /// the key has its maximum. Expired connections of every key are closed on the way, and the
    /// longest idle ones beyond the pool's total.
    func put(_ connection: HTTP1Connection, for key: Key, serverTimeout: Duration? = nil) {
        let now = ContinuousClock.now
        let keep = serverTimeout.map { Swift.min(idleLimit, $0 - .seconds(1)) } ?? idleLimit
        guard keep > .zero else {
            connection.close()
            return
        }
        let closing = idle.withLock { idle -> [HTTP1Connection] in
            var closing = Self.removeExpired(&idle, now: now)
            var list = idle[key] ?? []
            guard list.count < maximumIdlePerKey else { return closing + [connection] }
            list.append(Idle(connection: connection, since: now, expires: now + keep))
            idle[key] = list
            var total = idle.values.reduce(0) { $0 + $1.count }
            while total > maximumIdle, let (oldestKey, index) = Self.longestIdle(idle) {
                closing.append(idle[oldestKey]![index].connection)  // invariant: longestIdle found it
                idle[oldestKey]!.remove(at: index)
                if idle[oldestKey]!.isEmpty { idle[oldestKey] = nil }
                total -= 1
            }
            return closing
        }
        for connection in closing { connection.close(gracefully: true) }
    }

    private static func removeExpired(_ idle: inout [Key: [Idle]], now: ContinuousClock.Instant) -> [HTTP1Connection] {
        var expired: [HTTP1Connection] = []
        for (key, list) in idle where list.contains(where: { $0.expires <= now }) {
            expired += list.filter { $0.expires <= now }.map(\.connection)
            let kept = list.filter { $0.expires > now }
            idle[key] = kept.isEmpty ? nil : kept
        }
        return expired
    }

    private static func longestIdle(_ idle: [Key: [Idle]]) -> (Key, Int)? {
        var oldest: (Key, Int, ContinuousClock.Instant)?
        for (key, list) in idle {
            for (index, entry) in list.enumerated() where oldest == nil || entry.since < oldest!.2 {
                oldest = (key, index, entry.since)
            }
        }
        return oldest.map { ($0.0, $0.1) }
    }

    /// The TLS session to resume for a new connection to `key` (the latest one a connection to it
    /// received), or nil.
    func session(for key: Key) -> TLSSession? { sessions.withLock { $0[key] } }

    /// Keeps `session` as the one to resume for `key`.
    func keep(_ session: TLSSession, for key: Key) { sessions.withLock { $0[key] = session } }

    /// Closes every idle connection.
    func closeAll() {
        let all = idle.withLock { idle -> [Idle] in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        for entry in all { entry.connection.close(gracefully: true) }
    }

    deinit { closeAll() }
}
