import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// A Redis process of the test's own (`redis-server` for a master or a replica, `redis-server FILE
/// --sentinel` for a sentinel), on a free loopback port, stopped by PID.
final class RedisNode: @unchecked Sendable {
    // invariant (Sendable): `process` is replaced only by `start()`, which the test calls serially.
    let port: Int
    let arguments: [String]
    /// The password its clients here send (`requirepass`), if any.
    let password: String?
    private var process = Process()

    init(password: String? = nil, arguments: (Int) throws -> [String]) throws {
        port = try RedisServerProcess.freePort()
        self.password = password
        self.arguments = try arguments(port)
        try start()
    }

    func start() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {  // bounded: 5 s
            if client.answersPing() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw PeerError(description: "redis-server \(arguments.joined(separator: " ")) was not ready within 5 s")
    }

    /// A plain connection to this node (one connection: the test's commands go in order).
    var client: RedisHandshakeStore {
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = port
        configuration.poolSize = 1
        configuration.timeout = .milliseconds(500)
        configuration.password = password.map { SecureBytes(Array($0.utf8)) }
        return RedisHandshakeStore(configuration: configuration)
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Sends a command; its reply.
    func command(_ words: String...) async throws -> RedisReply {
        try await client.command(words.map { Array($0.utf8) })
    }
}

/// Redis Sentinel with real processes: a master, a replica and three sentinels on loopback ports,
/// two `authcore serve` instances finding the master through the sentinels. The master is killed;
/// the sentinels promote the replica; logins resume on both instances. Then a failover is forced
/// back to the old master (restarted, now a replica): the instances follow it again.
@Suite(
    "authcore serve on Redis Sentinel: a master killed mid-run, the replica promoted, logins resume on both instances",
    .serialized
)
final class RedisSentinelFailoverTests {
    let directory: URL
    let master: RedisNode
    let replica: RedisNode
    let sentinels: [RedisNode]
    let fleet: AppServerFleet
    let password = SecureBytes(Array("sentinel password".utf8))

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-sentinel-\(UUID().uuidString)"
        )
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let common = [
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.path,
        ]
        master = try RedisNode { ["--port", String($0)] + common }
        let masterPort = master.port
        replica = try RedisNode { ["--port", String($0), "--replicaof", "127.0.0.1", String(masterPort)] + common }
        var sentinels: [RedisNode] = []
        for index in 0..<3 {
            let file = directory.appendingPathComponent("sentinel-\(index).conf")
            sentinels.append(
                try RedisNode { port in
                    // Sentinel rewrites its file: each gets its own, in the test's directory.
                    let text = """
                        port \(port)
                        bind 127.0.0.1
                        daemonize no
                        dir \(directory.path)
                        sentinel monitor authcore 127.0.0.1 \(masterPort) 2
                        sentinel down-after-milliseconds authcore 1000
                        sentinel failover-timeout authcore 4000
                        sentinel parallel-syncs authcore 1

                        """
                    try Data(text.utf8).write(to: file)
                    return [file.path, "--sentinel"]
                }
            )
        }
        self.sentinels = sentinels
        fleet = try AppServerFleet(passwords: ["alice": "sentinel password", "bob": "sentinel password"])
    }

    deinit {
        for node in sentinels { node.stop() }
        replica.stop()
        master.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var configuration: [String: Any] {
        [
            "store": [
                "redis": [
                    "sentinel": [
                        "masterName": "authcore",
                        "addresses": sentinels.map { ["host": "127.0.0.1", "port": $0.port] },
                    ],
                    "timeoutMilliseconds": 500, "poolSize": 2,
                ]
            ],
            "srp": ["maximumFailures": 5],
            "ossSigning": [
                "buckets": ["photos"], "keyPrefixes": ["users/"], "regions": ["cn-hangzhou"], "sharedAcrossUsers": true,
            ],
            // The test logs in every 100 ms from one address until the failover is over (its gap is
            // what it measures): the per-address limits (5/s, burst 20) would refuse it on a slow
            // machine. They are tested on their own (ServeOperationsTests, the abuse tests).
            "rateLimits": ["perAddress": NSNull(), "perNetwork": NSNull()],
        ]
    }

    let environment = [
        "AUTHCORE_SERVER_SECRET": "sentinel-instances-share-this-32+bytes", "OSS_ACCESS_KEY_ID": "LTAI5tSentinelKey",
        "OSS_ACCESS_KEY_SECRET": "sentinel-secret",
    ]

    /// Waits (bounded) until `condition` holds.
    func waitUntil(_ what: String, seconds: Double, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PeerError(description: "\(what) did not happen within \(seconds) s")
    }

    func count(_ reply: RedisReply) -> Int {
        if case .array(let items) = reply { return items.count }
        return -1
    }

    func infoContains(_ node: RedisNode, _ text: String) async throws -> Bool {
        guard case .bytes(let info) = try await node.command("INFO", "replication") else { return false }
        return String(decoding: info, as: UTF8.self).contains(text)
    }

    /// Whether the session token opens `/oss/sign` on `instance`.
    func sessionWorks(_ instance: LoopbackScript, _ session: SRPLoginResult) async throws -> Bool {
        let pending = try OSSDetachedSigner(version: .v4, region: "cn-hangzhou", accessKeyId: "LTAI5tSentinelKey")
            .prepare(
                OSSRequest(
                    method: "GET",
                    target: "/users/a.txt",
                    headers: [HTTPHeader("Host", "photos.oss")],
                    bucket: "photos",
                    key: "users/a.txt"
                ),
                at: SystemClock().now()
            )
        let signer = try URLSignatureProvider(
            url: try RequestURL(instance.url + "/oss/sign"),
            headers: [session.authorizationHeader]
        )
        return try await signer.signature(for: OSSSignatureRequest(pending)).accessKeyId == "LTAI5tSentinelKey"
    }

    /// Logs in on each instance in turn until each has succeeded once after `since`; every failure
    /// meanwhile must be a clean `502` (never a 500, never a hang past the client's limit). Returns
    /// each instance's gap, in seconds.
    func waitForLogins(_ instances: [LoopbackScript], since: Date, seconds: Double) async throws -> [Double] {
        var gaps: [Double?] = instances.map { _ in nil }
        let deadline = since.addingTimeInterval(seconds)
        while gaps.contains(where: { $0 == nil }), Date() < deadline {
            for (index, instance) in instances.enumerated() where gaps[index] == nil {
                do {
                    let result = try await loginClient(instance).login(username: "bob", password: password)
                    #expect(result.username == "bob")
                    gaps[index] = Date().timeIntervalSince(since)
                } catch {
                    #expect(
                        error.httpStatus == 502 || error.serviceErrorType == "LoginExpired",
                        "a failure while the master is away: \(error)"
                    )
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try gaps.map { gap in
            guard let gap else { throw PeerError(description: "logins did not resume within \(seconds) s") }
            return gap
        }
    }

    @Test(
        "kill the master: both instances find the promoted replica; sessions written before are accepted; no login is accepted twice; then a forced failover back"
    )
    func failover() async throws {
        try await waitUntil("the replica's link to the master", seconds: 10) {
            try await self.infoContains(self.replica, "master_link_status:up")
        }
        for sentinel in sentinels {
            try await waitUntil("a sentinel seeing the replica and the two other sentinels", seconds: 20) {
                let replicas = try await sentinel.command("SENTINEL", "replicas", "authcore")
                let others = try await sentinel.command("SENTINEL", "sentinels", "authcore")
                return self.count(replicas) == 1 && self.count(others) == 2
            }
        }
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        let readiness = try await HTTP1Transport().send(
            HTTPRequest(method: "GET", url: try RequestURL(a.url + "/readyz"))
        )
        #expect(readiness.status == 200)

        // Before: a login across the instances, a session on each.
        let begun = try await loginClient(a).begin(username: "alice", password: password)
        let session = try await loginClient(b).finish(begun)
        let other = try await loginClient(a).login(username: "bob", password: password)
        #expect(try await sessionWorks(a, session))
        #expect(try await sessionWorks(b, other))
        // A login in flight across the failover.
        let inFlight = try await loginClient(a).begin(username: "alice", password: password)
        // The loss window is the replication lag: the test waits until the replica has every write
        // made so far (a write of its own, then WAIT 1), so what it checks below is that an
        // acknowledged, replicated session survives, not the luck of the lag.
        _ = try await master.command("SET", "authcore:test:marker", "1")
        #expect(try await master.command("WAIT", "1", "2000") == .integer(1))

        let killed = Date()
        master.stop()
        let gaps = try await waitForLogins([a, b], since: killed, seconds: 30)
        print(
            "sentinel failover: logins resumed after \(gaps.map { String(format: "%.2f s", $0) }.joined(separator: " and ")) (a, b)"
        )
        #expect(try await infoContains(replica, "role:master"))

        // After: the sessions written before are accepted on both instances.
        for instance in [a, b] {
            #expect(try await sessionWorks(instance, session), "the session from before the failover")
            #expect(try await sessionWorks(instance, other), "the second session from before the failover")
        }
        // The login begun before the failover finishes once (its state was replicated), never twice.
        let finished = try await loginClient(b).finish(inFlight)
        #expect(finished.username == "alice")
        await expectRefusal(400, "LoginExpired", "the in-flight login finished a second time") {
            try await loginClient(a).finish(inFlight)
        }
        // Nothing but successes now, on both.
        for instance in [a, b, a, b] {
            #expect(try await loginClient(instance).login(username: "alice", password: password).username == "alice")
        }
        #expect(
            try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL(b.url + "/readyz"))).status
                == 200
        )

        // The old master comes back (empty), is made a replica of the new one, and
        // a failover forced back to it moves the master again: the instances follow (a demoted
        // master's connections are cut or answer READONLY; either way they ask the sentinels).
        try master.start()
        // As an operator would (the sentinels do it too, but on their own schedule): a replica of the new master.
        #expect(try await master.command("REPLICAOF", "127.0.0.1", String(replica.port)) == .status("OK"))
        try await waitUntil("the old master turned replica and in sync", seconds: 30) {
            try await self.infoContains(self.master, "master_link_status:up")
        }
        try await waitUntil("the sentinels seeing the old master as a replica", seconds: 20) {
            let replicas = try await self.sentinels[0].command("SENTINEL", "replicas", "authcore")
            let connected = try await self.infoContains(self.replica, "connected_slaves:1")
            return self.count(replicas) == 1 && connected
        }
        _ = try await replica.command("SET", "authcore:test:marker", "2")
        #expect(try await replica.command("WAIT", "1", "2000") == .integer(1))
        let forced = Date()
        #expect(try await sentinels[1].command("SENTINEL", "FAILOVER", "authcore") == .status("OK"))
        try await waitUntil("the forced failover", seconds: 20) {
            try await self.infoContains(self.master, "role:master")
        }
        let back = try await waitForLogins([a, b], since: forced, seconds: 30)
        print(
            "sentinel forced failover: logins resumed after \(back.map { String(format: "%.2f s", $0) }.joined(separator: " and ")) (a, b)"
        )
        for instance in [a, b] {
            #expect(try await sessionWorks(instance, session), "the first session after two failovers")
        }
    }
}

/// Redis 6 ACL users and database indexes, on a `redis-server` whose default user is off.
@Suite("RedisHandshakeStore with an ACL user, a password and a database index")
struct RedisACLTests {
    @Test(
        "AUTH user password and SELECT: the store works in its database only; a wrong password or user is refused without echoing it"
    )
    func aclUserAndDatabase() async throws {
        let node = try RedisNode { port in
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--user", "default", "on", "nopass", "~probe", "+ping",  // the readiness probe's PING only
                "--user", "authcore", "on", ">acl-password-1", "~*", "&*", "+@all",
            ]
        }
        func store(user: String?, password: String, database: Int) -> RedisHandshakeStore {
            var configuration = RedisHandshakeStore.Configuration()
            configuration.port = node.port
            configuration.username = user
            configuration.password = SecureBytes(Array(password.utf8))
            configuration.database = database
            configuration.poolSize = 2
            return RedisHandshakeStore(configuration: configuration)
        }
        let third = store(user: "authcore", password: "acl-password-1", database: 3)
        #expect(try await third.insert(Array("v".utf8), forKey: "k", lifetime: .seconds(30)))
        #expect(try await third.command([Array("DBSIZE".utf8)]) == .integer(1))
        let zeroth = store(user: "authcore", password: "acl-password-1", database: 0)
        #expect(try await zeroth.command([Array("DBSIZE".utf8)]) == .integer(0))
        #expect(try await zeroth.take("k") == nil)
        #expect(try await third.take("k") == Array("v".utf8))

        for (user, password) in [("authcore", "wrong-password-2"), ("nobody", "acl-password-1")] {
            do {
                try await store(user: user, password: password, database: 3).ping()
                Issue.record("\(user) with \(password) was let in")
            } catch {
                #expect(error.code == .serviceError && error.reason.contains("AUTH refused"), "\(error)")
                #expect(!error.reason.contains(password))
            }
        }
        // The default user may only PING: the store's commands are refused by the server's ACL.
        var unauthenticated = RedisHandshakeStore.Configuration()
        unauthenticated.port = node.port
        await #expect(throws: AuthCoreError.self) {
            _ = try await RedisHandshakeStore(configuration: unauthenticated).take("k")
        }
    }
}

/// The sentinels' own password and replicas' acknowledgements, on real processes.
@Suite(
    "RedisHandshakeStore on sentinels: a sentinel's password, +switch-master, writes acknowledged by a replica (WAIT)",
    .serialized
)
final class RedisSentinelAuthTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-sentinel-auth-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func common() -> [String] {
        ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.path]
    }

    @Test(
        "a sentinel that requires a password: asked with it, the master is found; without it, the store says the sentinel refused (NOAUTH), never more"
    )
    func sentinelPassword() async throws {
        let master = try RedisNode { ["--port", String($0)] + self.common() }
        defer { master.stop() }
        let file = directory.appendingPathComponent("sentinel.conf")
        let sentinel = try RedisNode(password: "sentinel-pass-1") { port in
            let text = """
                port \(port)
                bind 127.0.0.1
                daemonize no
                dir \(self.directory.path)
                requirepass sentinel-pass-1
                sentinel monitor authcore 127.0.0.1 \(master.port) 1

                """
            try Data(text.utf8).write(to: file)
            return [file.path, "--sentinel"]
        }
        defer { sentinel.stop() }
        var configuration = RedisHandshakeStore.Configuration()
        configuration.sentinel = .init(
            masterName: "authcore",
            addresses: [.init(host: "127.0.0.1", port: sentinel.port)]
        )
        configuration.timeout = .milliseconds(500)
        configuration.sentinelPassword = SecureBytes(Array("sentinel-pass-1".utf8))
        let store = RedisHandshakeStore(configuration: configuration)
        #expect(try await store.insert(Array("v".utf8), forKey: "k", lifetime: .seconds(30)))
        #expect(try await master.command("GET", "k") == .bytes(Array("v".utf8)))

        configuration.sentinelPassword = nil
        do {
            try await RedisHandshakeStore(configuration: configuration).ping()
            Issue.record("a sentinel requiring a password answered without one")
        } catch {
            #expect(error.code == .transportFailure && error.reason.contains("refused: NOAUTH"), "\(error)")
            #expect(!error.reason.contains("sentinel-pass-1"))
        }
    }

    @Test(
        "+switch-master: the store follows the sentinels' announcement of a forced failover before it sends a command, so the next write goes to the new master in one round trip"
    )
    func switchAnnouncement() async throws {
        let master = try RedisNode { ["--port", String($0)] + self.common() }
        defer { master.stop() }
        let replica = try RedisNode {
            ["--port", String($0), "--replicaof", "127.0.0.1", String(master.port)] + self.common()
        }
        defer { replica.stop() }
        let file = directory.appendingPathComponent("sentinel-switch.conf")
        let sentinel = try RedisNode { port in
            let text = """
                port \(port)
                bind 127.0.0.1
                daemonize no
                dir \(self.directory.path)
                sentinel monitor authcore 127.0.0.1 \(master.port) 1
                sentinel down-after-milliseconds authcore 1000
                sentinel failover-timeout authcore 4000

                """
            try Data(text.utf8).write(to: file)
            return [file.path, "--sentinel"]
        }
        defer { sentinel.stop() }
        var configuration = RedisHandshakeStore.Configuration()
        configuration.sentinel = .init(
            masterName: "authcore",
            addresses: [.init(host: "127.0.0.1", port: sentinel.port)]
        )
        configuration.timeout = .milliseconds(500)
        configuration.poolSize = 1
        let store = RedisHandshakeStore(configuration: configuration)
        #expect(try await store.insert(Array("before".utf8), forKey: "k1", lifetime: .seconds(30)))
        #expect(store.sentinelAnnouncements.master == .init(host: "127.0.0.1", port: master.port))
        // Bounded waits (a condition that fails to be asked counts as not yet: the sentinel cuts
        // normal clients when it reconfigures a node): the watcher subscribed; the sentinel knows the
        // replica and the replica is in sync.
        func waitUntil(_ what: String, seconds: Double, _ condition: () async throws -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while (try? await condition()) != true {
                guard Date() < deadline else {
                    throw PeerError(description: "\(what) did not happen within \(seconds) s")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await waitUntil("the watcher's subscription", seconds: 10) { store.sentinelAnnouncements.subscribed }
        try await waitUntil("the sentinel learning the replica", seconds: 20) {
            guard case .array(let replicas) = try await sentinel.command("SENTINEL", "REPLICAS", "authcore") else {
                return false
            }
            return !replicas.isEmpty
        }
        try await waitUntil("the replica's sync", seconds: 20) {
            try await replica.command("GET", "k1") == .bytes(Array("before".utf8))
        }
        #expect(store.sentinelAnnouncements.switches == 0)
        // The sentinel may not have read the replica's own INFO yet (-NOGOODSLAVE): asked again.
        try await waitUntil("the forced failover's start", seconds: 20) {
            try await sentinel.command("SENTINEL", "FAILOVER", "authcore") == .status("OK")
        }
        try await waitUntil("the announcement", seconds: 20) { store.sentinelAnnouncements.switches == 1 }
        #expect(store.sentinelAnnouncements.master == .init(host: "127.0.0.1", port: replica.port))
        // The old master demoted now, by the test (the sentinel does it on its own schedule): a
        // command on a connection to it would be refused READONLY and cost a second round trip.
        _ = try? await master.command("REPLICAOF", "127.0.0.1", String(replica.port))
        try await waitUntil("the old master's demotion", seconds: 20) {
            guard case .bytes(let info) = try await master.command("INFO", "replication") else { return false }
            return String(decoding: info, as: UTF8.self).contains("role:slave")
        }
        let mark = store.roundTripCount
        #expect(try await store.insert(Array("after".utf8), forKey: "k2", lifetime: .seconds(30)))
        #expect(
            store.roundTripCount - mark == 1,
            "the connection to the old master was replaced on the announcement, before this write"
        )
        #expect(try await replica.command("GET", "k2") == .bytes(Array("after".utf8)))
    }

    @Test(
        "replicasToAcknowledge 1: a write waits for the replica in the same round trip; with no replica it is refused as unacknowledged"
    )
    func acknowledgedWrites() async throws {
        let master = try RedisNode { ["--port", String($0)] + self.common() }
        defer { master.stop() }
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = master.port
        configuration.timeout = .milliseconds(400)
        configuration.replicasToAcknowledge = 1
        let lonely = RedisHandshakeStore(configuration: configuration)
        do {
            _ = try await lonely.insert(Array("v".utf8), forKey: "alone", lifetime: .seconds(30))
            Issue.record("a write no replica acknowledged counted")
        } catch {
            #expect(error.code == .serviceError && error.reason.contains("not acknowledged by 1 replica"), "\(error)")
        }
        #expect(try await lonely.value("alone") == Array("v".utf8), "a read needs no acknowledgement")

        let replica = try RedisNode {
            ["--port", String($0), "--replicaof", "127.0.0.1", String(master.port)] + self.common()
        }
        defer { replica.stop() }
        var online = false
        for _ in 0..<200 where !online {  // bounded: 10 s, until the master counts the replica online
            if case .bytes(let info) = try await master.command("INFO", "replication") {
                online = String(decoding: info, as: UTF8.self).contains("state=online")
            }
            if !online { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(online)
        configuration.timeout = .seconds(4)  // WAIT up to 2 s: a first acknowledgement after a sync can take a moment
        let replicated = RedisHandshakeStore(configuration: configuration)
        #expect(try await replicated.insert(Array("w".utf8), forKey: "acknowledged", lifetime: .seconds(30)))
        #expect(
            try await replica.command("GET", "acknowledged") == .bytes(Array("w".utf8)),
            "on the replica when the write returned"
        )
        #expect(try await replicated.take("acknowledged") == Array("w".utf8))
        #expect(try await replica.command("EXISTS", "acknowledged") == .integer(0))
    }
}
