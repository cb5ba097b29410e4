import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `redis-server` (Debian's) on a free loopback port, started here and stopped by PID; no
/// persistence, so a restart loses everything, as a crashed Redis without a disk would.
final class RedisServerProcess: @unchecked Sendable {
    // invariant (Sendable): `process` is replaced only by `start()`, which the test calls serially.
    let port: Int
    private var process = Process()

    init() throws {
        port = try Self.freePort()
        try start()
    }

    func start() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = port
        let probe = RedisHandshakeStore(configuration: configuration)
        for _ in 0..<100 {  // bounded: 5 s
            if probe.answersPing() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw PeerError(description: "redis-server on port \(port) was not ready within 5 s")
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Stops (SIGSTOP) or continues (SIGCONT) the server: connections stay open, nothing answers.
    func pause(_ paused: Bool) { kill(process.processIdentifier, paused ? SIGSTOP : SIGCONT) }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw PeerError(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

@Suite("SRP logins on a shared Redis: two instances, replay, lockout, restart, unreachable", .serialized)
final class RedisHandshakeStoreTests {
    let redis: RedisServerProcess
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let password = SecureBytes(Array("correct horse battery staple".utf8))
    let users: StaticVerifierStore
    let secret = SecureBytes([UInt8](repeating: 0x24, count: 32))

    init() throws {
        redis = try RedisServerProcess()
        users = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
            configuration: configuration
        )
    }

    deinit { redis.stop() }

    /// A service with its own connection to the shared server: one "instance".
    func instance(
        policy: SRPLoginPolicy = SRPLoginPolicy(),
        port: Int? = nil
    ) throws -> (SRPLoginService, RedisHandshakeStore) {
        var store = RedisHandshakeStore.Configuration()
        store.port = port ?? redis.port
        let handshakes = RedisHandshakeStore(configuration: store)
        return (
            try SRPLoginService(
                configuration: configuration,
                policy: policy,
                verifiers: users,
                handshakes: handshakes,
                serverSecret: secret
            ), handshakes
        )
    }

    func begin(_ service: SRPLoginService, password: SecureBytes) async throws -> (SRPLoginChallenge, SRPClientSession)
    {
        let client = SRPClient(configuration: configuration)
        let ephemeral = try client.makeEphemeral()
        let a = ephemeral.publicValue.minimalBigEndianBytes
        let challenge = try await service.begin(username: "alice", clientPublicValue: a)
        let session = try client.processChallenge(
            username: Array("alice".utf8),
            password: password,
            salt: challenge.salt,
            serverPublicValue: challenge.serverPublicValue,
            ephemeral: ephemeral
        )
        return (challenge, session)
    }

    @Test(
        "a call that finds its connection idle runs on the caller's thread; concurrent calls are spread over the pool; every answer is its own"
    )
    func inlineCalls() async throws {
        let (_, store) = try instance()
        _ = try await store.values(["authcore:test:inline:warm"])  // the connection is made on its queue
        let before = (store.inlineCallCount, store.roundTripCount)
        for index in 0..<10 {
            #expect(
                try await store.insert(
                    Array("v\(index)".utf8),
                    forKey: "authcore:test:inline:\(index)",
                    lifetime: .seconds(30)
                )
            )
        }
        #expect(store.inlineCallCount - before.0 == 10)
        #expect(store.roundTripCount - before.1 == 10)
        // 64 at once: whichever path each takes, each reads back the value it wrote.
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let key = "authcore:test:inline:many:\(index)"
                    guard try await store.insert(Array("w\(index)".utf8), forKey: key, lifetime: .seconds(30)) else {
                        return false
                    }
                    return try await store.values([key, "authcore:test:inline:\(index % 10)"])
                        == [Array("w\(index)".utf8), Array("v\(index % 10)".utf8)]
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
        #expect(store.roundTripCount - before.1 == 10 + 128)
        for index in 0..<10 { try await store.remove("authcore:test:inline:\(index)") }
        for index in 0..<64 { try await store.remove("authcore:test:inline:many:\(index)") }
    }

    @Test(
        "a Redis that stops answering on an open connection: the call on the caller's thread ends timedOut at the store's limit; once it answers again the next call reconnects"
    )
    func inlineCallTimesOut() async throws {
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = redis.port
        configuration.timeout = .milliseconds(300)
        configuration.poolSize = 1
        let store = RedisHandshakeStore(configuration: configuration)
        _ = try await store.values(["authcore:test:inline:warm"])
        let inlineBefore = store.inlineCallCount
        redis.pause(true)
        defer { redis.pause(false) }
        await #expect(throws: AuthCoreError(.timedOut, "")) { try await store.values(["authcore:test:inline:stopped"]) }
        #expect(store.inlineCallCount == inlineBefore + 1)  // it ran in place, and ended
        redis.pause(false)
        // The timed-out connection was dropped (a late reply must not answer the next command): made
        // again on the queue, then the call after it runs in place.
        #expect(try await store.values(["authcore:test:inline:stopped"]) == [nil])
        #expect(try await store.insert(Array("x".utf8), forKey: "authcore:test:inline:after", lifetime: .seconds(30)))
        #expect(try await store.values(["authcore:test:inline:after"]) == [Array("x".utf8)])
        #expect(store.inlineCallCount == inlineBefore + 3)
        try await store.remove("authcore:test:inline:after")
    }

    @Test("a login begun on one instance finishes on the other; the id is refused the second time")
    func twoInstances() async throws {
        let (one, _) = try instance()
        let (two, _) = try instance()
        let (challenge, session) = try await begin(one, password: password)
        let success = try await two.finish(loginId: challenge.loginId, clientProof: session.clientProof)
        #expect(try session.verifyServerProof(success.serverProof) == success.sessionKey)
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await one.finish(loginId: challenge.loginId, clientProof: session.clientProof)
        }
    }

    @Test("of two instances finishing the same login at once, exactly one succeeds (GETDEL)")
    func raceForOneLogin() async throws {
        let (one, _) = try instance()
        let (two, _) = try instance()
        let (challenge, session) = try await begin(one, password: password)
        let proof = session.clientProof
        let id = challenge.loginId
        async let a = try? one.finish(loginId: id, clientProof: proof)
        async let b = try? two.finish(loginId: id, clientProof: proof)
        let results = await [a, b]
        #expect(results.compactMap { $0 }.count == 1)
    }

    @Test("failures made on both instances count toward one lockout")
    func lockoutAcrossInstances() async throws {
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 2
        let (one, _) = try instance(policy: policy)
        let (two, _) = try instance(policy: policy)
        let wrong = SecureBytes(Array("wrong".utf8))
        for (first, second) in [(one, two), (two, one)] {
            let (challenge, session) = try await begin(first, password: wrong)
            await #expect(throws: AuthCoreError(.proofMismatch, "")) {
                try await second.finish(loginId: challenge.loginId, clientProof: session.clientProof)
            }
        }
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await self.begin(one, password: self.password) }
    }

    /// Redis's count of bytes received from clients (`INFO stats`, `total_net_input_bytes`).
    func bytesReceived(_ store: RedisHandshakeStore) async throws -> Int {
        guard case .bytes(let info) = try await store.command([Array("INFO".utf8), Array("stats".utf8)]) else {
            throw PeerError(description: "INFO stats: not a bulk reply")
        }
        let field = "total_net_input_bytes:"
        let line = String(decoding: info, as: UTF8.self).split(separator: "\r\n").first { $0.hasPrefix(field) }
        guard let line, let count = Int(line.dropFirst(field.count)) else {
            throw PeerError(description: "INFO stats: no \(field)")
        }
        return count
    }

    /// `SCRIPT LOAD` of every store script on `store`'s server; whether Redis answered each with the
    /// store's name for it (its own SHA-1 of the source).
    func loadScripts(_ store: RedisHandshakeStore) async throws -> Bool {
        var named = true
        for script in RedisHandshakeStore.scripts {
            let reply = try await store.command([Array("SCRIPT".utf8), Array("LOAD".utf8), script.source])
            named = named && reply == .bytes(script.name)
        }
        return named
    }

    @Test(
        "scripts go by name: a script's first call on a server is answered NOSCRIPT and sent with its source, once; then it sends its name, not its source; after SCRIPT FLUSH the same, and the call runs once; Redis's names are the store's"
    )
    func scriptsByName() async throws {
        let (_, store) = try instance()
        _ = try await store.values(["authcore:test:scripts:warm"])  // the connection is made outside the counts
        var mark = store.roundTripCount
        func spent() -> Int {
            defer { mark = store.roundTripCount }
            return store.roundTripCount - mark
        }
        // A fresh server has no script: the first settle goes by name, is answered NOSCRIPT (nothing
        // ran), and is sent with its source, which Redis caches.
        let remove = { (key: String) in
            try await store.settle(remove: [key], decrement: [], keepAlive: [], insert: nil)
        }
        #expect(try await remove("authcore:test:scripts:a"))
        #expect(spent() == 2, "by name (NOSCRIPT), then with the source")
        // Then by name: Redis receives the name and the arguments, not the 719 bytes of source.
        let settleSource = RedisHandshakeStore.scripts[5].source.count
        #expect(settleSource > 700)
        let before = try await bytesReceived(store)
        #expect(try await remove("authcore:test:scripts:b"))
        let sent = try await bytesReceived(store) - before  // the settle and the INFO command after it
        #expect(sent < 250, "\(sent) bytes for a settle (\(settleSource) bytes of source)")
        _ = spent()

        // The cache emptied behind the store's back: the next call is answered NOSCRIPT and sent
        // again with its source (one more round trip), and the script runs once.
        #expect(try await store.increment("authcore:test:scripts:count", window: .seconds(30)) == 1)
        #expect(try await store.increment("authcore:test:scripts:count", window: .seconds(30)) == 2)
        #expect(spent() == 3, "the increment script's first call on this server, then one")
        #expect(try await store.command([Array("SCRIPT".utf8), Array("FLUSH".utf8)]) == .status("OK"))
        _ = spent()
        try await store.decrement("authcore:test:scripts:count")  // never sent twice after a doubtful failure
        #expect(spent() == 2, "by name (NOSCRIPT), then with the source")
        #expect(try await store.count("authcore:test:scripts:count") == 1, "the decrement ran once")
        _ = spent()
        try await store.decrement("authcore:test:scripts:count")  // cached again by that EVAL
        #expect(spent() == 1)
        #expect(try await store.count("authcore:test:scripts:count") == 0)

        // Redis names each script by its own SHA-1 of the source: the store's names.
        #expect(RedisHandshakeStore.scripts.allSatisfy { $0.name.count == 40 })
        #expect(try await loadScripts(store))
    }

    @Test("a counter's window runs out in Redis: the script gives every counter a lifetime")
    func counterWindow() async throws {
        let (_, store) = try instance()
        #expect(try await store.increment("authcore:test:window", window: .milliseconds(300)) == 1)
        // the first window stays
        #expect(try await store.increment("authcore:test:window", window: .seconds(100)) == 2)
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await store.count("authcore:test:window") == 0)
    }

    @Test("a lifetime runs out in Redis itself: the state is gone after it")
    func lifetimeInRedis() async throws {
        var policy = SRPLoginPolicy()
        policy.handshakeLifetime = .milliseconds(300)
        let (one, store) = try instance(policy: policy)
        let (challenge, session) = try await begin(one, password: password)
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await store.take("authcore:srp:handshake:\(challenge.loginId)") == nil)
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await one.finish(loginId: challenge.loginId, clientProof: session.clientProof)
        }
    }

    @Test("a Redis restart costs the login in flight and nothing else: the next calls reconnect")
    func restart() async throws {
        let (one, _) = try instance()
        let (two, _) = try instance()
        let (inFlight, session) = try await begin(one, password: password)
        _ = try await begin(two, password: password)  // both instances hold an open connection
        redis.stop()
        await #expect(throws: AuthCoreError(.transportFailure, "")) {
            try await two.finish(loginId: inFlight.loginId, clientProof: session.clientProof)
        }
        try redis.start()
        // The login in flight is lost with Redis's memory; new ones work on both instances at once.
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await two.finish(loginId: inFlight.loginId, clientProof: session.clientProof)
        }
        let (challenge, fresh) = try await begin(one, password: password)
        let success = try await two.finish(loginId: challenge.loginId, clientProof: fresh.clientProof)
        #expect(success.username == "alice")
    }

    @Test("an unreachable Redis is a clear transport error, and begin returns nothing")
    func unreachable() async throws {
        let closed = try RedisServerProcess.freePort()
        let (service, _) = try instance(port: closed)
        do {
            _ = try await begin(service, password: password)
            Issue.record("a login began without a store")
        } catch let error as AuthCoreError {
            #expect(error.code == .transportFailure)
            #expect(error.reason.contains("Redis at 127.0.0.1:\(closed): cannot connect"), "\(error.reason)")
        }
    }

    @Test("values are binary-safe and keys are independent; a key holding something else is not a counter")
    func storeOperations() async throws {
        let (_, store) = try instance()
        let value: [UInt8] = [0, 1, 0x0D, 0x0A, 0xFF, 0x00]
        #expect(try await store.insert(value, forKey: "authcore:test:binary", lifetime: .seconds(10)))
        #expect(try await !store.insert([1], forKey: "authcore:test:binary", lifetime: .seconds(10)))
        #expect(try await store.take("authcore:test:binary") == value)
        #expect(try await store.take("authcore:test:binary") == nil)
        #expect(try await store.increment("authcore:test:counter", window: .seconds(10)) == 1)
        #expect(try await store.increment("authcore:test:counter", window: .seconds(10)) == 2)
        #expect(try await store.count("authcore:test:counter") == 2)
        try await store.remove("authcore:test:counter")
        #expect(try await store.count("authcore:test:counter") == 0)
        #expect(try await store.insert(Array("not digits".utf8), forKey: "authcore:test:other", lifetime: .seconds(10)))
        await #expect(throws: AuthCoreError(.malformedResponse, "")) { try await store.count("authcore:test:other") }
    }

    @Test(
        "incrementInTurn and settle: one round trip each on Redis, the same results as the one-call-at-a-time definition in memory"
    )
    func compositeOperations() async throws {
        let (_, redis) = try instance()
        let memory = InMemoryHandshakeStore()
        for store in [redis as any HandshakeStore, memory] {
            let name = store is RedisHandshakeStore ? "redis" : "memory"
            let (own, user) = ("authcore:test:turn:\(name):own", "authcore:test:turn:\(name):user")
            // Within both limits: both counted; the client over its limit: the user's left alone.
            #expect(try await store.incrementInTurn([(own, 2), (user, 5)], window: .seconds(10)) == [1, 1], "\(name)")
            #expect(try await store.incrementInTurn([(own, 2), (user, 5)], window: .seconds(10)) == [2, 2], "\(name)")
            #expect(try await store.incrementInTurn([(own, 2), (user, 5)], window: .seconds(10)) == [3], "\(name)")
            #expect(try await store.count(user) == 2, "\(name)")
            #expect(try await store.incrementInTurn([], window: .seconds(10)) == [], "\(name)")
            // settle: removed, taken back (to nothing at 0), kept alive.
            let generation = "authcore:test:turn:\(name):generation"
            _ = try await store.increment(generation, window: .milliseconds(300))
            #expect(
                try await store.settle(
                    remove: [own],
                    decrement: [user],
                    keepAlive: [(generation, .seconds(10))],
                    insert: nil
                ),
                "\(name)"
            )
            #expect(try await store.count(own) == 0, "\(name)")
            #expect(try await store.count(user) == 1, "\(name)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.count(generation) == 1, "\(name): kept past its first lifetime")
            #expect(try await store.settle(remove: [], decrement: [user], keepAlive: [], insert: nil), "\(name)")
            #expect(try await store.values([user]) == [nil], "\(name): removed at 0")
        }
    }

    @Test(
        "a login's store work on Redis: begin one round trip, finish two (the session stored in the second), a session check one"
    )
    func loginRoundTrips() async throws {
        let (service, store) = try instance()
        let sessions = try AppSessions(store: store, serverSecret: secret)
        _ = try await store.values(["authcore:test:warm"])  // the connection is made outside the counts
        // The scripts cached, as on a server that has run them once (each script's first call on a
        // server costs one more round trip, once: scriptsByName).
        #expect(try await loadScripts(store))
        var mark = store.roundTripCount
        func spent() -> Int {
            defer { mark = store.roundTripCount }
            return store.roundTripCount - mark
        }
        let (challenge, client) = try await begin(service, password: password)
        #expect(spent() == 1)
        let success = try await service.finish(
            loginId: challenge.loginId,
            clientProof: client.clientProof,
            issuing: sessions
        )
        #expect(spent() == 2)
        _ = try client.verifyServerProof(success.serverProof)
        let session = try #require(success.session)
        let token = session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(try await sessions.username(for: token) == "alice")
        #expect(spent() == 1)
        // A wrong proof: one round trip (nothing to settle), and counted.
        let (wrong, _) = try await begin(service, password: SecureBytes(Array("guess".utf8)))
        #expect(spent() == 1)
        await #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try await service.finish(
                loginId: wrong.loginId,
                clientProof: [UInt8](repeating: 7, count: 32),
                issuing: sessions
            )
        }
        #expect(spent() == 1)
        #expect(
            try await store.count("authcore:srp:failures:\(SHA256.hash(string: "alice").hexLowercased):address:local")
                == 1
        )
        // Signed out everywhere: the session is refused in its one round trip.
        try await sessions.revokeAll(for: "alice")
        _ = spent()
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await sessions.username(for: token) }
        #expect(spent() == 1)
        try await store.remove("authcore:srp:failures:\(SHA256.hash(string: "alice").hexLowercased):address:local")
        try await store.remove("authcore:session:generation:\(SHA256.hash(string: "alice").hexLowercased)")
    }

    @Test(
        "logins begun before a lockout and finished after it: the right password is refused before its proof is checked, and nothing is settled or stored"
    )
    func rightPasswordPastTheLimit() async throws {
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 2
        let (service, store) = try instance(policy: policy)
        let sessions = try AppSessions(store: store, serverSecret: secret)
        let user = "authcore:srp:failures:\(SHA256.hash(string: "alice").hexLowercased)"
        try await store.remove(user + ":address:local")
        try await store.remove(user + ":untrusted")
        var begun: [(SRPLoginChallenge, SRPClientSession)] = []
        for _ in 0..<3 { begun.append(try await begin(service, password: password)) }
        for (challenge, _) in begun.prefix(2) {
            await #expect(throws: AuthCoreError(.proofMismatch, "")) {
                try await service.finish(
                    loginId: challenge.loginId,
                    clientProof: [UInt8](repeating: 1, count: 32),
                    issuing: sessions
                )
            }
        }
        let (last, client) = begun[2]
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await service.finish(loginId: last.loginId, clientProof: client.clientProof, issuing: sessions)
        }
        #expect(try await store.count(user + ":address:local") == 3, "counted, not cleared")
        #expect(
            try await store.count(user + ":untrusted") == 2,
            "the two failures (the third stopped at the address count)"
        )
        let sessionKeys = try Self.redisKeys(port: redis.port, pattern: "authcore:session:*")
        #expect(sessionKeys.filter { !$0.contains("generation") }.isEmpty, "no session stored: \(sessionKeys)")
        try await store.remove(user + ":address:local")
        try await store.remove(user + ":untrusted")
    }

    /// The keys matching `pattern` (`redis-cli KEYS`), read apart from the store under test.
    static func redisKeys(port: Int, pattern: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "--raw", "KEYS", pattern]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(
        "linkedValue, the admitted insert, takeLogin and settle: one script each on Redis, the same answers as their definitions in memory"
    )
    func loginOperations() async throws {
        let (_, redis) = try instance()
        let memory = InMemoryHandshakeStore()
        for store in [redis as any HandshakeStore, memory] {
            let name = store is RedisHandshakeStore ? "redis" : "memory"
            let prefix = "authcore:test:ops:\(name):counter:"
            let link = SHA256.hash(string: name).hexLowercased
            // linkedValue: a value with a link and the counter it names; without a link; removed.
            _ = try await store.increment(prefix + link, window: .seconds(10))
            #expect(
                try await store.insert(
                    Array(link.utf8) + [0, 0xFF],
                    forKey: "authcore:test:ops:\(name):linked",
                    lifetime: .seconds(10)
                )
            )
            #expect(
                try await store.insert(
                    Array(link.uppercased().utf8) + [1],
                    forKey: "authcore:test:ops:\(name):upper",
                    lifetime: .seconds(10)
                )
            )
            let linked = try await store.linkedValue(
                "authcore:test:ops:\(name):linked",
                removing: false,
                counterPrefix: prefix
            )
            #expect(
                linked == LinkedValue(value: Array(link.utf8) + [0, 0xFF], isLinked: true, counter: Array("1".utf8)),
                "\(name)"
            )
            let upper = try await store.linkedValue(
                "authcore:test:ops:\(name):upper",
                removing: true,
                counterPrefix: prefix
            )
            #expect(
                upper == LinkedValue(value: Array(link.uppercased().utf8) + [1], isLinked: false, counter: nil),
                "\(name)"
            )
            #expect(
                try await store.linkedValue("authcore:test:ops:\(name):upper", removing: true, counterPrefix: prefix)
                    == nil,
                "\(name): removed"
            )
            let otherLink = SHA256.hash(string: name + "-other").hexLowercased
            #expect(
                try await store.insert(
                    Array(otherLink.utf8),
                    forKey: "authcore:test:ops:\(name):nocounter",
                    lifetime: .seconds(10)
                )
            )
            #expect(
                try await store.linkedValue(
                    "authcore:test:ops:\(name):nocounter",
                    removing: false,
                    counterPrefix: prefix
                )
                    == LinkedValue(value: Array(otherLink.utf8), isLinked: true, counter: nil),
                "\(name)"
            )

            // The admitted insert: trusted counters for a presented generation at least the stored one.
            let generation = "authcore:test:ops:\(name):generation"
            let (device, address, user) = (
                "authcore:test:ops:\(name):device", "authcore:test:ops:\(name):address",
                "authcore:test:ops:\(name):user"
            )
            func admit(_ key: String, presented: UInt64?) async throws -> AdmissionOutcome {
                try await store.insert(
                    [1],
                    forKey: "authcore:test:ops:\(name):state:\(key)",
                    lifetime: .seconds(10),
                    admittedBy: LoginAdmission(
                        generationKey: generation,
                        presentedGeneration: presented,
                        trusted: [(device, 2)],
                        untrusted: [(address, 2), (user, 3)]
                    )
                )
            }
            #expect(try await admit("a", presented: nil) == .inserted, "\(name)")
            #expect(try await admit("a", presented: nil) == .keyInUse, "\(name)")
            _ = try await store.increment(user, window: .seconds(10))
            _ = try await store.increment(user, window: .seconds(10))
            _ = try await store.increment(user, window: .seconds(10))
            #expect(try await admit("b", presented: nil) == .refused, "\(name): the user-wide count is at its limit")
            #expect(try await admit("c", presented: 0) == .inserted, "\(name): a device token, no generation stored")
            for _ in 0..<3 { _ = try await store.advance(generation, keepingFor: .seconds(10)) }
            #expect(
                try await admit("d", presented: 2) == .refused,
                "\(name): a token from before the last sign-out is untrusted"
            )
            #expect(try await admit("e", presented: 3) == .inserted, "\(name)")
            try await store.put(Array("9007199254740993".utf8), forKey: generation, lifetime: .seconds(10))
            #expect(
                try await admit("f", presented: 9_007_199_254_740_992) == .refused,
                "\(name): compared as digits, not floats"
            )
            #expect(try await admit("f", presented: 9_007_199_254_740_993) == .inserted, "\(name)")
            try await store.put(Array("3".utf8), forKey: generation, lifetime: .seconds(10))
            _ = try await store.increment(device, window: .seconds(10))
            _ = try await store.increment(device, window: .seconds(10))
            #expect(try await admit("g", presented: 3) == .refused, "\(name): the device's own count is at its limit")
            try await store.put(Array("garbled".utf8), forKey: generation, lifetime: .seconds(10))
            try await store.remove(device)
            #expect(try await admit("h", presented: 3) == .refused, "\(name): a garbled generation trusts nobody")
            try await store.remove(user)
            #expect(try await admit("i", presented: 3) == .inserted, "\(name): untrusted, within its limits")
            #expect(try await store.count(user) == 0, "\(name): the check writes no counter")
            #expect(try await store.values([device]) == [nil], "\(name)")

            // takeLogin: the state taken, the generation read, the attempt counted against the
            // counters its header names (a device trusted while its generation is current).
            let counting = LoginCounting(
                generationPrefix: "authcore:test:ops:\(name):gen:",
                failurePrefix: "authcore:test:ops:\(name):fail:",
                deviceSuffix: ":device:",
                addressSuffix: ":address:local",
                untrustedSuffix: ":untrusted",
                window: .seconds(10),
                maximumFailures: 2,
                maximumFailuresPerUser: 3
            )
            let carol = SHA256.hash(string: "carol").hexLowercased
            let (noDevice, deviceHex) = (String(repeating: "0", count: 32), String(repeating: "ab", count: 16))
            let fail = "authcore:test:ops:\(name):fail:\(carol)"
            var stateIndex = 0
            func take(
                _ device: String,
                _ generation: UInt64,
                suffix: [UInt8] = [0xC0, 0xFF]
            ) async throws -> TakenLogin? {
                stateIndex += 1
                let digits = String(generation)
                let value =
                    Array((carol + device + String(repeating: "0", count: 20 - digits.count) + digits).utf8) + suffix
                let key = "authcore:test:ops:\(name):login:\(stateIndex)"
                #expect(try await store.insert(value, forKey: key, lifetime: .seconds(10)))
                let taken = try await store.takeLogin(key, counting: counting)
                #expect(taken?.value == value, "\(name)")
                #expect(try await store.takeLogin(key, counting: counting) == nil, "\(name): taken once")
                return taken
            }
            var taken = try #require(try await take(noDevice, 0))
            #expect(taken.hasHeader && !taken.trusted && taken.generation == nil && taken.counts == [1, 1], "\(name)")
            #expect(try await store.count(fail + ":address:local") == 1, "\(name)")
            for _ in 0..<3 {
                _ = try await store.advance("authcore:test:ops:\(name):gen:\(carol)", keepingFor: .seconds(10))
            }
            taken = try #require(try await take(deviceHex, 2))
            #expect(
                !taken.trusted && taken.generation == Array("3".utf8) && taken.counts == [2, 2],
                "\(name): a device from before the sign-out"
            )
            taken = try #require(try await take(deviceHex, 3))
            #expect(taken.trusted && taken.counts == [1], "\(name): a current device counts apart")
            #expect(try await store.count(fail + ":device:" + deviceHex) == 1, "\(name)")
            taken = try #require(try await take(noDevice, 0))
            #expect(taken.counts == [3], "\(name): over the address limit, the user-wide count left alone")
            #expect(try await store.count(fail + ":untrusted") == 2, "\(name)")
            taken = try #require(try await take(deviceHex, 9_007_199_254_740_993))
            #expect(taken.trusted && taken.counts == [2], "\(name)")
            try await store.put(
                Array("9007199254740993".utf8),
                forKey: "authcore:test:ops:\(name):gen:\(carol)",
                lifetime: .seconds(10)
            )
            taken = try #require(try await take(deviceHex, 9_007_199_254_740_992))
            #expect(!taken.trusted, "\(name): compared digit by digit, not as floats")
            try await store.put(Array("07".utf8), forKey: fail + ":device:" + deviceHex, lifetime: .seconds(10))
            taken = try #require(try await take(deviceHex, 9_007_199_254_740_993))
            #expect(taken.trusted && taken.counts == [1], "\(name): a counter that is not a count starts again")
            let huge = "authcore:test:ops:\(name):huge"
            let hugeValue = Array((carol + deviceHex + "18446744073709551616").utf8) + [1]
            #expect(try await store.insert(hugeValue, forKey: huge, lifetime: .seconds(10)))
            #expect(
                try await store.takeLogin(huge, counting: counting)
                    == TakenLogin(value: hugeValue, hasHeader: false, generation: nil, trusted: false, counts: []),
                "\(name): a generation past UInt64.max is no header"
            )
            let bare = "authcore:test:ops:\(name):bare"
            #expect(try await store.insert(Array(carol.utf8) + [1, 2, 3], forKey: bare, lifetime: .seconds(10)))
            #expect(
                try await store.takeLogin(bare, counting: counting)
                    == TakenLogin(
                        value: Array(carol.utf8) + [1, 2, 3],
                        hasHeader: false,
                        generation: nil,
                        trusted: false,
                        counts: []
                    ),
                "\(name): no header, nothing counted"
            )

            // settle: the insert first (a present key writes nothing), then removed, taken back, kept alive.
            let (own, wide, kept, session) = (
                "authcore:test:ops:\(name):own", "authcore:test:ops:\(name):wide", "authcore:test:ops:\(name):kept",
                "authcore:test:ops:\(name):session"
            )
            _ = try await store.increment(own, window: .seconds(10))
            for _ in 0..<3 { _ = try await store.increment(wide, window: .seconds(10)) }
            _ = try await store.increment(kept, window: .milliseconds(300))
            #expect(try await store.insert([9], forKey: session, lifetime: .seconds(10)))
            let insert = (key: session, value: [UInt8]([7, 7]), lifetime: Duration.seconds(10))
            #expect(
                try await !store.settle(
                    remove: [own],
                    decrement: [wide],
                    keepAlive: [(kept, .seconds(10))],
                    insert: insert
                ),
                "\(name)"
            )
            #expect(
                try await store.values([own, wide, session]) == [Array("1".utf8), Array("3".utf8), [9]],
                "\(name): nothing written"
            )
            try await store.remove(session)
            #expect(
                try await store.settle(
                    remove: [own],
                    decrement: [wide],
                    keepAlive: [(kept, .seconds(10))],
                    insert: insert
                ),
                "\(name)"
            )
            #expect(try await store.values([own, wide, session]) == [nil, Array("2".utf8), [7, 7]], "\(name)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.count(kept) == 1, "\(name): kept past its first lifetime")
        }
    }
}
