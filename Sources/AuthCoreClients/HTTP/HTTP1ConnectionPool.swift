internal import AuthCore

/// Idle persistent HTTP/1.1 connections, per origin, for ``HTTP1Transport`` to reuse (RFC 9112 §9.3).
///
/// A connection comes back only after an exchange that ended cleanly: a complete answer that allows
/// reuse (``HTTP1ResponseParser/allowsReuse``), no byte read past it, the whole request sent, the
/// call not stopped. It is given out again only while it is younger than the idle limit and its
/// socket shows nothing readable (a peer that closed or reset it, or sent bytes nobody asked for).
/// Connections are keyed by everything that makes them what they are: scheme, host, port, the proxy
/// (and its credentials) and the TLS trust they were verified with.
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
    }

    /// The most idle connections kept per key; 0 turns reuse off.
    let maximumIdlePerKey: Int
    /// How long a connection may idle before it is closed instead of reused.
    let idleLimit: Duration
    private let idle = Locked<[Key: [Idle]]>([:])

    init(maximumIdlePerKey: Int, idleLimit: Duration) {
        self.maximumIdlePerKey = Swift.max(0, maximumIdlePerKey)
        self.idleLimit = idleLimit
    }

    /// Whether connections are kept at all (otherwise requests say `Connection: close`).
    var keepsConnections: Bool { maximumIdlePerKey > 0 }

    /// The most recently returned idle connection for `key` that is still reusable, or nil; the
    /// stale ones met on the way are closed.
    func take(_ key: Key) -> HTTP1Connection? {
        let now = ContinuousClock.now
        while true {
            let candidate = idle.withLock { idle -> Idle? in
                guard var list = idle[key], let last = list.popLast() else { return nil }
                idle[key] = list.isEmpty ? nil : list
                return last
            }
            guard let candidate else { return nil }
            if now - candidate.since < idleLimit, candidate.connection.isReusable { return candidate.connection }
            candidate.connection.close()
        }
    }

    /// Keeps `connection` (already detached from its call) for `key`, or closes it when the key has
    /// its maximum; idle connections past the limit are closed on the way.
    func put(_ connection: HTTP1Connection, for key: Key) {
        let now = ContinuousClock.now
        var closing: [HTTP1Connection] = []
        idle.withLock { idle in
            var list = idle[key] ?? []
            closing = list.filter { now - $0.since >= idleLimit }.map(\.connection)
            list.removeAll { now - $0.since >= idleLimit }
            if list.count < maximumIdlePerKey {
                list.append(Idle(connection: connection, since: now))
            } else {
                closing.append(connection)
            }
            idle[key] = list.isEmpty ? nil : list
        }
        for connection in closing { connection.close() }
    }

    /// The number of idle connections kept (for tests).
    var idleCount: Int { idle.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Closes every idle connection.
    func closeAll() {
        let all = idle.withLock { idle -> [Idle] in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        for entry in all { entry.connection.close() }
    }

    deinit { closeAll() }
}
