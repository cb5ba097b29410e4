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
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"]
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

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
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
        users = try StaticVerifierStore(["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)], configuration: configuration)
    }

    deinit { redis.stop() }

    /// A service with its own connection to the shared server: one "instance".
    func instance(policy: SRPLoginPolicy = SRPLoginPolicy(), port: Int? = nil) throws -> (SRPLoginService, RedisHandshakeStore) {
        var store = RedisHandshakeStore.Configuration()
        store.port = port ?? redis.port
        let handshakes = RedisHandshakeStore(configuration: store)
        return (try SRPLoginService(configuration: configuration, policy: policy, verifiers: users, handshakes: handshakes, serverSecret: secret), handshakes)
    }

    func begin(_ service: SRPLoginService, password: SecureBytes) async throws -> (SRPLoginChallenge, SRPClientSession) {
        let client = SRPClient(configuration: configuration)
        let ephemeral = try client.makeEphemeral()
        let a = ephemeral.publicValue.minimalBigEndianBytes
        let challenge = try await service.begin(username: "alice", clientPublicValue: a)
        let session = try client.processChallenge(
            username: Array("alice".utf8), password: password, salt: challenge.salt, serverPublicValue: challenge.serverPublicValue, ephemeral: ephemeral)
        return (challenge, session)
    }

    @Test("a login begun on one instance finishes on the other; the id is refused the second time")
    func twoInstances() async throws {
        let (one, _) = try instance()
        let (two, _) = try instance()
        let (challenge, session) = try await begin(one, password: password)
        let success = try await two.finish(loginId: challenge.loginId, clientProof: session.clientProof)
        #expect(try session.verifyServerProof(success.serverProof) == success.sessionKey)
        await #expect(throws: AuthCoreError(.expired, "")) { try await one.finish(loginId: challenge.loginId, clientProof: session.clientProof) }
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
            await #expect(throws: AuthCoreError(.proofMismatch, "")) { try await second.finish(loginId: challenge.loginId, clientProof: session.clientProof) }
        }
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await self.begin(one, password: self.password) }
    }

    @Test("a counter's window runs out in Redis: the script gives every counter a lifetime")
    func counterWindow() async throws {
        let (_, store) = try instance()
        #expect(try await store.increment("authcore:test:window", window: .milliseconds(300)) == 1)
        #expect(try await store.increment("authcore:test:window", window: .seconds(100)) == 2)  // the first window stays
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
        await #expect(throws: AuthCoreError(.expired, "")) { try await one.finish(loginId: challenge.loginId, clientProof: session.clientProof) }
    }

    @Test("a Redis restart costs the login in flight and nothing else: the next calls reconnect")
    func restart() async throws {
        let (one, _) = try instance()
        let (two, _) = try instance()
        let (inFlight, session) = try await begin(one, password: password)
        _ = try await begin(two, password: password)  // both instances hold an open connection
        redis.stop()
        await #expect(throws: AuthCoreError(.transportFailure, "")) { try await two.finish(loginId: inFlight.loginId, clientProof: session.clientProof) }
        try redis.start()
        // The login in flight is lost with Redis's memory; new ones work on both instances at once.
        await #expect(throws: AuthCoreError(.expired, "")) { try await two.finish(loginId: inFlight.loginId, clientProof: session.clientProof) }
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

    @Test("incrementInTurn and settle: one round trip each on Redis, the same results as the one-call-at-a-time definition in memory")
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
            try await store.settle(remove: [own], decrement: [user], keepAlive: [(generation, .seconds(10))])
            #expect(try await store.count(own) == 0, "\(name)")
            #expect(try await store.count(user) == 1, "\(name)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.count(generation) == 1, "\(name): kept past its first lifetime")
            try await store.settle(remove: [], decrement: [user], keepAlive: [])
            #expect(try await store.values([user]) == [nil], "\(name): removed at 0")
        }
    }

    @Test("a login's store work on Redis: begin one round trip, finish two (the session stored in the second), a session check one")
    func loginRoundTrips() async throws {
        let (service, store) = try instance()
        let sessions = try AppSessions(store: store, serverSecret: secret)
        _ = try await store.values(["authcore:test:warm"])  // the connection is made outside the counts
        var mark = store.roundTripCount
        func spent() -> Int {
            defer { mark = store.roundTripCount }
            return store.roundTripCount - mark
        }
        let (challenge, client) = try await begin(service, password: password)
        #expect(spent() == 1)
        let success = try await service.finish(loginId: challenge.loginId, clientProof: client.clientProof, issuing: sessions)
        #expect(spent() == 2)
        _ = try client.verifyServerProof(success.serverProof)
        let session = try #require(success.session)
        let token = session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(try await sessions.username(for: token) == "alice")
        #expect(spent() == 1)
        // A wrong proof: two round trips as well, and counted.
        let (wrong, _) = try await begin(service, password: SecureBytes(Array("guess".utf8)))
        #expect(spent() == 1)
        await #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try await service.finish(loginId: wrong.loginId, clientProof: [UInt8](repeating: 7, count: 32), issuing: sessions)
        }
        #expect(spent() == 2)
        #expect(try await store.count("authcore:srp:failures:\(SHA256.hash(string: "alice").hexLowercased):address:local") == 1)
        // Signed out everywhere: the session is refused in its one round trip.
        try await sessions.revokeAll(for: "alice")
        _ = spent()
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await sessions.username(for: token) }
        #expect(spent() == 1)
        try await store.remove("authcore:srp:failures:\(SHA256.hash(string: "alice").hexLowercased):address:local")
        try await store.remove("authcore:session:generation:\(SHA256.hash(string: "alice").hexLowercased)")
    }

    @Test("linkedValue, the admitted insert and countAttempt: one script each on Redis, the same answers as their definitions in memory")
    func loginOperations() async throws {
        let (_, redis) = try instance()
        let memory = InMemoryHandshakeStore()
        for store in [redis as any HandshakeStore, memory] {
            let name = store is RedisHandshakeStore ? "redis" : "memory"
            let prefix = "authcore:test:ops:\(name):counter:"
            let link = SHA256.hash(string: name).hexLowercased
            // linkedValue: a value with a link and the counter it names; without a link; removed.
            _ = try await store.increment(prefix + link, window: .seconds(10))
            #expect(try await store.insert(Array(link.utf8) + [0, 0xFF], forKey: "authcore:test:ops:\(name):linked", lifetime: .seconds(10)))
            #expect(try await store.insert(Array(link.uppercased().utf8) + [1], forKey: "authcore:test:ops:\(name):upper", lifetime: .seconds(10)))
            let linked = try await store.linkedValue("authcore:test:ops:\(name):linked", removing: false, counterPrefix: prefix)
            #expect(linked == LinkedValue(value: Array(link.utf8) + [0, 0xFF], isLinked: true, counter: Array("1".utf8)), "\(name)")
            let upper = try await store.linkedValue("authcore:test:ops:\(name):upper", removing: true, counterPrefix: prefix)
            #expect(upper == LinkedValue(value: Array(link.uppercased().utf8) + [1], isLinked: false, counter: nil), "\(name)")
            #expect(try await store.linkedValue("authcore:test:ops:\(name):upper", removing: true, counterPrefix: prefix) == nil, "\(name): removed")
            let otherLink = SHA256.hash(string: name + "-other").hexLowercased
            #expect(try await store.insert(Array(otherLink.utf8), forKey: "authcore:test:ops:\(name):nocounter", lifetime: .seconds(10)))
            #expect(
                try await store.linkedValue("authcore:test:ops:\(name):nocounter", removing: false, counterPrefix: prefix)
                    == LinkedValue(value: Array(otherLink.utf8), isLinked: true, counter: nil), "\(name)")

            // The admitted insert: trusted counters for a presented generation at least the stored one.
            let generation = "authcore:test:ops:\(name):generation"
            let (device, address, user) = ("authcore:test:ops:\(name):device", "authcore:test:ops:\(name):address", "authcore:test:ops:\(name):user")
            func admit(_ key: String, presented: UInt64?) async throws -> AdmissionOutcome {
                try await store.insert(
                    [1], forKey: "authcore:test:ops:\(name):state:\(key)", lifetime: .seconds(10),
                    admittedBy: LoginAdmission(
                        generationKey: generation, presentedGeneration: presented, trusted: [(device, 2)], untrusted: [(address, 2), (user, 3)]))
            }
            #expect(try await admit("a", presented: nil) == .inserted, "\(name)")
            #expect(try await admit("a", presented: nil) == .keyInUse, "\(name)")
            _ = try await store.increment(user, window: .seconds(10))
            _ = try await store.increment(user, window: .seconds(10))
            _ = try await store.increment(user, window: .seconds(10))
            #expect(try await admit("b", presented: nil) == .refused, "\(name): the user-wide count is at its limit")
            #expect(try await admit("c", presented: 0) == .inserted, "\(name): a device token, no generation stored")
            for _ in 0..<3 { _ = try await store.advance(generation, keepingFor: .seconds(10)) }
            #expect(try await admit("d", presented: 2) == .refused, "\(name): a token from before the last sign-out is untrusted")
            #expect(try await admit("e", presented: 3) == .inserted, "\(name)")
            #expect(try await admit("f", presented: 10_000_000_000_000_000_000) == .inserted, "\(name): compared as digits, not floats")
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

            // countAttempt: counted in turn; a success applied only within the limits, insert first.
            let (own, wide, kept, session) = (
                "authcore:test:ops:\(name):own", "authcore:test:ops:\(name):wide", "authcore:test:ops:\(name):kept", "authcore:test:ops:\(name):session"
            )
            let limits = [(key: own, limit: 2), (key: wide, limit: 5)]
            #expect(try await store.countAttempt(limits, window: .seconds(10), success: nil) == AttemptOutcome(counts: [1, 1], writes: .notApplied), "\(name)")
            _ = try await store.increment(kept, window: .milliseconds(300))
            #expect(try await store.insert([9], forKey: session, lifetime: .seconds(10)))
            let writes = SuccessWrites(remove: [own], decrement: [wide], keepAlive: [(kept, .seconds(10))], insert: (session, [7, 7], .seconds(10)))
            #expect(try await store.countAttempt(limits, window: .seconds(10), success: writes) == AttemptOutcome(counts: [2, 2], writes: .keyInUse), "\(name)")
            #expect(try await store.values([own, wide, session]) == [Array("2".utf8), Array("2".utf8), [9]], "\(name): nothing written but the counts")
            try await store.remove(session)
            try await store.remove(own)
            #expect(try await store.countAttempt(limits, window: .seconds(10), success: writes) == AttemptOutcome(counts: [1, 3], writes: .applied), "\(name)")
            #expect(try await store.values([own, wide, session]) == [nil, Array("2".utf8), [7, 7]], "\(name)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.count(kept) == 1, "\(name): kept past its first lifetime")
            try await store.remove(session)
            _ = try await store.countAttempt(limits, window: .seconds(10), success: nil)
            _ = try await store.countAttempt(limits, window: .seconds(10), success: nil)
            #expect(try await store.countAttempt(limits, window: .seconds(10), success: writes) == AttemptOutcome(counts: [3], writes: .notApplied), "\(name)")
            #expect(try await store.values([session, wide]) == [nil, Array("4".utf8)], "\(name): over a limit, no session and the user-wide count left alone")
            #expect(try await store.countAttempt([], window: .seconds(10), success: SuccessWrites(remove: [own])) == AttemptOutcome(counts: [], writes: .applied), "\(name)")
            #expect(try await store.count(own) == 0, "\(name)")
        }
    }
}
