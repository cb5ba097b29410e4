import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Testing

/// The login service with the in-memory store: two service values sharing one store stand for two
/// instances sharing Redis (the Redis store is tested against redis-server separately).
@Suite("SRP login service: two round trips any instance can finish, once; decoys; lockout")
struct SRPLoginServiceTests {
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let secret = SecureBytes([UInt8](repeating: 0x42, count: 32))
    let clock = ManualClock(Timestamp(year: 2026, month: 12, day: 1)!)
    let alicePassword = SecureBytes(Array("correct horse battery staple".utf8))

    /// The app's user table, made once: every instance reads the same database.
    let table: StaticVerifierStore

    init() throws {
        table = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: alicePassword)],
            configuration: configuration
        )
    }

    func users() throws -> StaticVerifierStore { table }

    func service(
        _ store: any HandshakeStore,
        secret: SecureBytes? = nil,
        policy: SRPLoginPolicy = SRPLoginPolicy()
    ) throws -> SRPLoginService {
        try SRPLoginService(
            configuration: configuration,
            policy: policy,
            verifiers: try users(),
            handshakes: store,
            serverSecret: secret ?? self.secret,
            clock: clock
        )
    }

    /// Runs the client's half against `first` and `second` (begin on one, finish on the other).
    func login(
        _ username: String,
        password: SecureBytes,
        begin first: SRPLoginService,
        finish second: SRPLoginService
    ) async throws(AuthCoreError) -> (SRPLoginChallenge, SRPLoginSuccess, SecureBytes) {
        let client = SRPClient(configuration: configuration)
        let ephemeral = try client.makeEphemeral()
        let a = ephemeral.publicValue.minimalBigEndianBytes
        let challenge = try await first.begin(username: username, clientPublicValue: a)
        let session = try client.processChallenge(
            username: Array(username.utf8),
            password: password,
            salt: challenge.salt,
            serverPublicValue: challenge.serverPublicValue,
            ephemeral: ephemeral
        )
        let success = try await second.finish(loginId: challenge.loginId, clientProof: session.clientProof)
        let key = try session.verifyServerProof(success.serverProof)
        return (challenge, success, key)
    }

    @Test("a login begun on one instance finishes on another; both sides hold the same key; the id works once")
    func acrossInstances() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let one = try service(store)
        let two = try service(store)
        let (challenge, success, key) = try await login("alice", password: alicePassword, begin: one, finish: two)
        #expect(success.username == "alice")
        #expect(key == success.sessionKey)
        #expect(challenge.loginId.utf8.count == 32)
        #expect(challenge.serverPublicValue.count == configuration.group.byteCount)
        #expect(await store.liveEntryCount == 0, "the state was taken, and a success clears its counts")
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await two.finish(loginId: challenge.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("an instance with another server secret cannot open the state (and the state is then gone)")
    func otherSecret() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let other = try service(store, secret: SecureBytes([UInt8](repeating: 0x43, count: 32)))
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await login("alice", password: alicePassword, begin: try service(store), finish: other)
        }
    }

    @Test("a state moved under another login id (a store attacker) is refused: the id is authenticated")
    func foreignLoginId() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store)
        let first = try await server.begin(username: "alice", clientPublicValue: [2])
        let second = try await server.begin(username: "alice", clientPublicValue: [3])
        let key = { (id: String) in "authcore:srp:handshake:\(id)" }
        let moved = try #require(try await store.take(key(first.loginId)))
        _ = try await store.take(key(second.loginId))
        #expect(try await store.insert(moved, forKey: key(second.loginId), lifetime: .seconds(60)))
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await server.finish(loginId: second.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test(
        "a state whose clear header a store writer changed (another user, a device, another generation) is refused, and a state without one too"
    )
    func rewrittenHeader() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store)
        let key = { (id: String) in "authcore:srp:handshake:\(id)" }
        // The header: the SHA-256 of the name in hex, the device id in hex (zeros: none), the device
        // token's generation in 20 digits; then the sealed state.
        let alice = SHA256.hash(string: "alice").hexLowercased
        let zeros = String(repeating: "0", count: 32)
        let first = try await server.begin(username: "alice", clientPublicValue: [2])
        let stored = try #require(try await store.take(key(first.loginId)))
        #expect(Array(stored.prefix(116)) == Array((alice + zeros + String(repeating: "0", count: 20)).utf8))
        let rewritten = [
            SHA256.hash(string: "bob").hexLowercased + zeros + String(repeating: "0", count: 20),
            alice + String(repeating: "ab", count: 16) + String(repeating: "0", count: 20),
            alice + zeros + String(repeating: "0", count: 19) + "1",
        ]
        for header in rewritten {
            let challenge = try await server.begin(username: "alice", clientPublicValue: [2])
            let own = try #require(try await store.take(key(challenge.loginId))).dropFirst(116)
            #expect(
                try await store.insert(Array(header.utf8) + own, forKey: key(challenge.loginId), lifetime: .seconds(60))
            )
            let error = await #expect(throws: AuthCoreError.self) {
                try await server.finish(loginId: challenge.loginId, clientProof: [UInt8](repeating: 0, count: 32))
            }
            #expect(
                error?.code == .signatureMismatch && error?.reason.contains("header is not its own") == true,
                "\(header)"
            )
        }
        // The untouched state under its own id still opens (and fails only at the proof).
        #expect(try await store.insert(stored, forKey: key(first.loginId), lifetime: .seconds(60)))
        await #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try await server.finish(loginId: first.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
        let second = try await server.begin(username: "alice", clientPublicValue: [3])
        let bare = Array(try #require(try await store.take(key(second.loginId))).dropFirst(116))
        #expect(try await store.insert(bare, forKey: key(second.loginId), lifetime: .seconds(60)))
        let error = await #expect(throws: AuthCoreError.self) {
            try await server.finish(loginId: second.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
        #expect(error?.code == .signatureMismatch && error?.reason.contains("no header") == true)
    }

    @Test("a login finished after its lifetime is expired, even if a store kept the state")
    func expiry() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        var policy = SRPLoginPolicy()
        policy.handshakeLifetime = .seconds(60)
        let server = try service(store, policy: policy)
        let challenge = try await server.begin(username: "alice", clientPublicValue: [5])
        clock.advance(seconds: 61)
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await server.finish(loginId: challenge.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
        // The service checks the sealed expiry itself: a store that ignores lifetimes does not help.
        let forgetful = ForgetfulStore()
        let lenient = try service(forgetful, policy: policy)
        let kept = try await lenient.begin(username: "alice", clientPublicValue: [5])
        clock.advance(seconds: 61)
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await lenient.finish(loginId: kept.loginId, clientProof: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("unknown users get a stable decoy salt and a B of N's width, and fail only at the proof")
    func unknownUsers() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let one = try service(store)
        let two = try service(store)
        let a = [UInt8]([7])
        let first = try await one.begin(username: "mallory", clientPublicValue: a)
        let again = try await two.begin(username: "mallory", clientPublicValue: a)
        let other = try await one.begin(username: "trent", clientPublicValue: a)
        let real = try await one.begin(username: "alice", clientPublicValue: a)
        #expect(first.salt == again.salt)
        #expect(first.salt != other.salt)
        #expect(first.salt.count == real.salt.count)
        #expect(first.serverPublicValue.count == real.serverPublicValue.count)
        #expect(first.serverPublicValue != again.serverPublicValue, "B is fresh each time")
        await #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try await login("mallory", password: SecureBytes(Array("guess".utf8)), begin: one, finish: two)
        }
    }

    @Test("failed proofs are counted per user across instances; at the limit logins are refused until the window ends")
    func lockout() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 3
        policy.failureWindow = .seconds(300)
        let one = try service(store, policy: policy)
        let two = try service(store, policy: policy)
        let wrong = SecureBytes(Array("wrong".utf8))
        for attempt in 0..<3 {
            await #expect(throws: AuthCoreError(.proofMismatch, "")) {
                try await login(
                    "alice",
                    password: wrong,
                    begin: attempt % 2 == 0 ? one : two,
                    finish: attempt % 2 == 0 ? two : one
                )
            }
        }
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await login("alice", password: alicePassword, begin: one, finish: two)
        }
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await two.begin(username: "alice", clientPublicValue: [9])
        }
        // Another user is not affected; after the window the right password works again.
        _ = try await one.begin(username: "bob", clientPublicValue: [9])
        clock.advance(seconds: 301)
        let (_, success, _) = try await login("alice", password: alicePassword, begin: two, finish: one)
        #expect(success.username == "alice")
    }

    @Test("logins begun together and finished in parallel get at most maximumFailures proof checks in a window")
    func parallelFinishes() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 3
        let server = try service(store, policy: policy)
        let client = SRPClient(configuration: configuration)
        var attempts: [(String, [UInt8])] = []
        for _ in 0..<10 {
            let ephemeral = try client.makeEphemeral()
            let challenge = try await server.begin(
                username: "alice",
                clientPublicValue: ephemeral.publicValue.minimalBigEndianBytes
            )
            let session = try client.processChallenge(
                username: Array("alice".utf8),
                password: SecureBytes(Array("guess".utf8)),
                salt: challenge.salt,
                serverPublicValue: challenge.serverPublicValue,
                ephemeral: ephemeral
            )
            attempts.append((challenge.loginId, session.clientProof))
        }
        let codes = await withTaskGroup(of: AuthCoreError.Code?.self) { group in
            for (id, proof) in attempts {
                group.addTask {
                    do throws(AuthCoreError) {
                        _ = try await server.finish(loginId: id, clientProof: proof)
                        return nil
                    } catch {
                        return error.code
                    }
                }
            }
            return await group.reduce(into: [AuthCoreError.Code?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == .proofMismatch }.count == 3)
        #expect(codes.filter { $0 == .notPermitted }.count == 7)
    }

    @Test(
        "past the limit a login's proof is not checked at all, the right password's included: the verifier is not even looked up"
    )
    func noProofCheckPastTheLimit() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 2
        let lookups = CountingVerifierStore(table)
        let server = try SRPLoginService(
            configuration: configuration,
            policy: policy,
            verifiers: lookups,
            handshakes: store,
            serverSecret: secret,
            clock: clock
        )
        let client = SRPClient(configuration: configuration)
        var begun: [(String, [UInt8])] = []
        for password in [SecureBytes(Array("guess".utf8)), SecureBytes(Array("guess".utf8)), alicePassword] {
            let ephemeral = try client.makeEphemeral()
            let challenge = try await server.begin(
                username: "alice",
                clientPublicValue: ephemeral.publicValue.minimalBigEndianBytes
            )
            let session = try client.processChallenge(
                username: Array("alice".utf8),
                password: password,
                salt: challenge.salt,
                serverPublicValue: challenge.serverPublicValue,
                ephemeral: ephemeral
            )
            begun.append((challenge.loginId, session.clientProof))
        }
        #expect(lookups.count == 3, "one lookup per begin")
        for (id, proof) in begun.prefix(2) {
            await #expect(throws: AuthCoreError(.proofMismatch, "")) {
                try await server.finish(loginId: id, clientProof: proof)
            }
        }
        #expect(lookups.count == 5, "one more per proof checked")
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await server.finish(loginId: begun[2].0, clientProof: begun[2].1)
        }
        #expect(lookups.count == 5, "the right password past the limit: no lookup, no proof check")
        // Control: once the window has passed, the same password logs in.
        clock.advance(seconds: 901)
        let (_, success, _) = try await login("alice", password: alicePassword, begin: server, finish: server)
        #expect(success.username == "alice")
        #expect(lookups.count == 7)
    }

    @Test("usernames are exact UTF-8 bytes: an equivalent Unicode spelling is another, unknown user and cannot log in")
    func exactUsernames() async throws {
        let composed = "jos\u{E9}"  // NFC
        let decomposed = "jose\u{301}"  // NFD: equal as Swift Strings, different bytes
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        let store = InMemoryHandshakeStore(clock: clock)
        let table = try StaticVerifierStore(
            [composed: try configuration.makeVerifier(username: Array(composed.utf8), password: alicePassword)],
            configuration: configuration
        )
        let server = try SRPLoginService(
            configuration: configuration,
            verifiers: table,
            handshakes: store,
            serverSecret: secret,
            clock: clock
        )
        #expect(table.verifier(for: decomposed) == nil)
        let real = try await server.begin(username: composed, clientPublicValue: [2])
        let other = try await server.begin(username: decomposed, clientPublicValue: [2])
        #expect(real.salt != other.salt)
        let (_, success, _) = try await login(composed, password: alicePassword, begin: server, finish: server)
        #expect(success.username == composed)
        await #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try await login(decomposed, password: alicePassword, begin: server, finish: server)
        }
    }

    @Test("hostile inputs are typed errors and store nothing")
    func hostileInputs() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store)
        let n = configuration.group.modulus.minimalBigEndianBytes
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await server.begin(username: "", clientPublicValue: [2])
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await server.begin(username: String(repeating: "x", count: 257), clientPublicValue: [2])
        }
        await #expect(throws: AuthCoreError(.unsafePublicValue, "")) {
            try await server.begin(username: "alice", clientPublicValue: [0])
        }
        await #expect(throws: AuthCoreError(.unsafePublicValue, "")) {
            try await server.begin(username: "alice", clientPublicValue: n)
        }
        await #expect(throws: AuthCoreError(.unsafePublicValue, "")) {
            try await server.begin(username: "alice", clientPublicValue: [1] + n)
        }
        #expect(await store.liveEntryCount == 0)
        for id in [
            "", "zz", String(repeating: "A", count: 32), String(repeating: "0", count: 33),
            String(repeating: "0", count: 32),
        ] {
            await #expect(throws: AuthCoreError(.expired, "")) { try await server.finish(loginId: id, clientProof: []) }
        }
        let challenge = try await server.begin(username: "alice", clientPublicValue: [2])
        await #expect(throws: AuthCoreError(.invalidLength, "")) {
            try await server.finish(loginId: challenge.loginId, clientProof: [1, 2, 3])
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SRPLoginService(
                configuration: configuration,
                verifiers: try users(),
                handshakes: store,
                serverSecret: SecureBytes([1, 2, 3])
            )
        }
    }

    @Test("a store that fails makes begin fail with its error, and nothing is returned to the client")
    func failingStore() async throws {
        let server = try service(FailingStore())
        await #expect(throws: AuthCoreError(.transportFailure, "")) {
            try await server.begin(username: "alice", clientPublicValue: [2])
        }
    }

    @Test("the verifier table reads `authcore srp verifier` JSON and refuses other shapes without echoing values")
    func verifierTable() throws {
        let v = "0F"
        let store = try StaticVerifierStore(
            json: Array(#"{"users":{"alice":{"salt_hex":"0a0b","verifier_hex":"\#(v)"}}}"#.utf8),
            configuration: configuration
        )
        #expect(store.verifier(for: "alice")?.salt == [0x0A, 0x0B])
        #expect(store.verifier(for: "alice")?.verifier == BigUInt(bigEndianBytes: [0x0F]))
        #expect(store.verifier(for: "bob") == nil)
        #expect(store.uniformSaltByteCount == 2)
        for bad in [
            #"{"users":{"a":{"salt_hex":"zz","verifier_hex":"0f"}}}"#, #"[]"#, #"{"users":{"a":{"salt_hex":"00"}}}"#,
        ] {
            #expect(throws: AuthCoreError(.malformedInput, "")) {
                try StaticVerifierStore(json: Array(bad.utf8), configuration: configuration)
            }
        }
    }

}
/// A store that keeps values forever (ignores lifetimes), to show the service's own expiry check.
actor ForgetfulStore: HandshakeStore {
    var values: [String: [UInt8]] = [:]
    func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) -> Bool {
        guard values[key] == nil else { return false }
        values[key] = value
        return true
    }
    func put(_ value: [UInt8], forKey key: String, lifetime: Duration) { values[key] = value }
    func take(_ key: String) -> [UInt8]? { values.removeValue(forKey: key) }
    func value(_ key: String) -> [UInt8]? { values[key] }
    func increment(_ key: String, window: Duration) -> Int { 1 }
    func count(_ key: String) -> Int { 0 }
    func decrement(_ key: String) {}
    func remove(_ key: String) {}
    func values(_ keys: [String]) -> [[UInt8]?] { keys.map { values[$0] } }
    func counter(_ key: String, keepingFor lifetime: Duration) -> Int { 0 }
    func advance(_ key: String, keepingFor lifetime: Duration) -> Int { 1 }
}

/// A store whose server is unreachable.
struct FailingStore: HandshakeStore {
    func insert(_ value: [UInt8], forKey key: String, lifetime: Duration) throws(AuthCoreError) -> Bool {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func put(_ value: [UInt8], forKey key: String, lifetime: Duration) throws(AuthCoreError) {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func take(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func value(_ key: String) throws(AuthCoreError) -> [UInt8]? {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func increment(_ key: String, window: Duration) throws(AuthCoreError) -> Int {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func count(_ key: String) throws(AuthCoreError) -> Int { 0 }
    func decrement(_ key: String) throws(AuthCoreError) { throw AuthCoreError(.transportFailure, "store unreachable") }
    func remove(_ key: String) throws(AuthCoreError) { throw AuthCoreError(.transportFailure, "store unreachable") }
    func values(_ keys: [String]) throws(AuthCoreError) -> [[UInt8]?] { keys.map { _ in nil } }
    func counter(_ key: String, keepingFor lifetime: Duration) throws(AuthCoreError) -> Int {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
    func advance(_ key: String, keepingFor lifetime: Duration) throws(AuthCoreError) -> Int {
        throw AuthCoreError(.transportFailure, "store unreachable")
    }
}

/// A verifier table that counts its lookups.
final class CountingVerifierStore: VerifierStore, Sendable {
    private let table: StaticVerifierStore
    private let lookups = Locked(0)

    init(_ table: StaticVerifierStore) { self.table = table }

    var count: Int { lookups.withLock { $0 } }
    var uniformSaltByteCount: Int? { table.uniformSaltByteCount }

    func verifier(for username: String) async throws(AuthCoreError) -> SRPVerifier? { table.verifier(for: username) }

    func lookup(_ username: String) async throws(AuthCoreError) -> VerifierLookup {
        lookups.withLock { $0 += 1 }
        return try await table.lookup(username)
    }
}

@Suite("SRP login service in a group whose N is not a multiple of 64 bits long")
struct OddLengthGroupLoginTests {
    @Test(
        "enrolled users log in, unknown users get a decoy of the same shape, below N, at N's length (1029 and 2047 bits)"
    )
    func oddLengthLogins() async throws {
        for group in [OddLengthGroups.group1029, OddLengthGroups.group2047] {
            let configuration = try SRPConfiguration(group: group, hash: .sha256)
            let clock = ManualClock(Timestamp(year: 2026, month: 12, day: 1)!)
            let password = SecureBytes(Array("odd-length group".utf8))
            let table = try StaticVerifierStore(
                ["erin": try configuration.makeVerifier(username: Array("erin".utf8), password: password)],
                configuration: configuration
            )
            let service = try SRPLoginService(
                configuration: configuration,
                verifiers: table,
                handshakes: InMemoryHandshakeStore(clock: clock),
                serverSecret: SecureBytes([UInt8](repeating: 0x42, count: 32)),
                clock: clock
            )
            let client = SRPClient(configuration: configuration)
            let ephemeral = try client.makeEphemeral()
            let aBytes = ephemeral.publicValue.minimalBigEndianBytes
            let challenge = try await service.begin(username: "erin", clientPublicValue: aBytes)
            #expect(challenge.serverPublicValue.count == group.byteCount)
            let session = try client.processChallenge(
                username: Array("erin".utf8),
                password: password,
                salt: challenge.salt,
                serverPublicValue: challenge.serverPublicValue,
                ephemeral: ephemeral
            )
            let success = try await service.finish(loginId: challenge.loginId, clientProof: session.clientProof)
            #expect(try session.verifyServerProof(success.serverProof) == success.sessionKey)

            for name in ["nobody", "someone-else", "x"] {
                let decoy = try service.decoyVerifier(for: name)
                #expect(decoy.verifierBytes.count == group.byteCount)
                #expect(
                    decoy.verifier < group.modulus && configuration.isAcceptableVerifier(decoy),
                    "the decoy of \(name) is a verifier of this group"
                )
                let unknown = try await service.begin(username: name, clientPublicValue: aBytes)
                #expect(unknown.salt.count == challenge.salt.count)
                #expect(unknown.serverPublicValue.count == group.byteCount)
            }
        }
    }
}
