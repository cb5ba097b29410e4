import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Testing

/// Failure counting that stops a guesser without letting an outsider lock someone else out: per
/// user and address, per user and device token, and a bound per user for every client without a
/// token (SRPLoginPolicy).
@Suite("Login failures: counted per address and device, bounded per user, never a lockout of the real user's devices")
struct LoginFailureCountingTests {
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let clock = ManualClock(Timestamp(year: 2026, month: 12, day: 5)!)
    let password = SecureBytes(Array("correct horse battery staple".utf8))
    let wrong = SecureBytes(Array("wrong".utf8))
    let table: StaticVerifierStore

    init() throws {
        table = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
            configuration: configuration
        )
    }

    func service(_ store: InMemoryHandshakeStore, perAddress: Int = 3, perUser: Int = 6) throws -> SRPLoginService {
        var policy = SRPLoginPolicy()
        policy.maximumFailures = perAddress
        policy.maximumFailuresPerUser = perUser
        policy.failureWindow = .seconds(900)
        return try SRPLoginService(
            configuration: configuration,
            policy: policy,
            verifiers: table,
            handshakes: store,
            serverSecret: SecureBytes([UInt8](repeating: 9, count: 32)),
            clock: clock
        )
    }

    static func address(_ last: UInt8) -> ClientAddress { ClientAddress(ipv4: 127, 0, 0, last) }

    /// A whole login from `origin`; the success, or the error's code.
    func login(
        _ service: SRPLoginService,
        _ user: String,
        _ password: SecureBytes,
        from origin: LoginOrigin
    ) async -> Result<SRPLoginSuccess, AuthCoreError> {
        do throws(AuthCoreError) {
            let client = SRPClient(configuration: configuration)
            let ephemeral = try client.makeEphemeral()
            let challenge = try await service.begin(
                username: user,
                clientPublicValue: ephemeral.publicValue.minimalBigEndianBytes,
                origin: origin
            )
            let session = try client.processChallenge(
                username: Array(user.utf8),
                password: password,
                salt: challenge.salt,
                serverPublicValue: challenge.serverPublicValue,
                ephemeral: ephemeral
            )
            return .success(
                try await service.finish(loginId: challenge.loginId, clientProof: session.clientProof, origin: origin)
            )
        } catch {
            return .failure(error)
        }
    }

    func code(_ result: Result<SRPLoginSuccess, AuthCoreError>) -> AuthCoreError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test(
        "after K wrong proofs from one address that address is refused for the user; the right password from another address still logs in"
    )
    func perAddress() async throws {
        let server = try service(InMemoryHandshakeStore(clock: clock))
        let attacker = LoginOrigin(address: Self.address(2))
        for _ in 0..<3 { #expect(code(await login(server, "alice", wrong, from: attacker)) == .proofMismatch) }
        #expect(code(await login(server, "alice", wrong, from: attacker)) == .notPermitted)
        #expect(
            code(await login(server, "alice", password, from: attacker)) == .notPermitted,
            "brute force from that address is stopped"
        )
        #expect(code(await login(server, "alice", password, from: LoginOrigin(address: Self.address(1)))) == nil)
        // Another user from the attacker's address is not affected.
        #expect(code(await login(server, "bob", wrong, from: attacker)) == .proofMismatch)
    }

    @Test(
        "guesses spread over many addresses stop at maximumFailuresPerUser; a client with the user's device token still logs in, one without does not"
    )
    func perUserBound() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store, perAddress: 3, perUser: 6)
        // The real user logged in once before, from home, and kept the device token.
        guard
            case .success(let earlier) = await login(
                server,
                "alice",
                password,
                from: LoginOrigin(address: Self.address(1))
            )
        else {
            Issue.record("the first login failed")
            return
        }
        // The bound: 6 failed proofs (the real login, a success, is not counted).
        var refused = 0
        var checked = 0
        for last in UInt8(10)..<UInt8(40) {
            switch code(await login(server, "alice", wrong, from: LoginOrigin(address: Self.address(last)))) {
            case .proofMismatch?: checked += 1
            case .notPermitted?: refused += 1
            default: Issue.record("unexpected answer from 127.0.0.\(last)")
            }
        }
        #expect(checked == 6, "proofs checked for the distributed guesser: the bound")
        #expect(refused == 24)
        // A new device of the real user is refused while the bound holds (the documented price)...
        #expect(
            code(await login(server, "alice", password, from: LoginOrigin(address: Self.address(200)))) == .notPermitted
        )
        // ...but the device that logged in before is counted apart and logs in, from any address.
        let trusted = LoginOrigin(address: Self.address(201), deviceToken: earlier.deviceToken)
        guard case .success(let again) = await login(server, "alice", password, from: trusted) else {
            Issue.record("the user's own device was locked out")
            return
        }
        #expect(again.username == "alice")
        // After the window, new devices log in again.
        clock.advance(seconds: 901)
        #expect(code(await login(server, "alice", password, from: LoginOrigin(address: Self.address(200)))) == nil)
    }

    @Test("successful logins do not use up the per-user bound: 12 logins from new devices pass a bound of 6")
    func successesNotCounted() async throws {
        let server = try service(InMemoryHandshakeStore(clock: clock), perAddress: 3, perUser: 6)
        for last in UInt8(100)..<UInt8(112) {
            #expect(
                code(await login(server, "alice", password, from: LoginOrigin(address: Self.address(last)))) == nil,
                "127.0.0.\(last)"
            )
        }
    }

    @Test(
        "a device token counts only for its own user and only until it expires; a stolen one still gets only K guesses"
    )
    func deviceTokens() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store, perAddress: 3, perUser: 100)
        guard
            case .success(let first) = await login(
                server,
                "alice",
                password,
                from: LoginOrigin(address: Self.address(1))
            )
        else {
            Issue.record("the first login failed")
            return
        }
        #expect(first.deviceToken.utf8.count > 40)
        // Guessing with alice's token (stolen) from many addresses: the device's own count stops it at 3.
        var codes: [AuthCoreError.Code?] = []
        for last in UInt8(50)..<UInt8(55) {
            codes.append(
                code(
                    await login(
                        server,
                        "alice",
                        wrong,
                        from: LoginOrigin(address: Self.address(last), deviceToken: first.deviceToken)
                    )
                )
            )
        }
        #expect(codes == [.proofMismatch, .proofMismatch, .proofMismatch, .notPermitted, .notPermitted])
        // The token is worth nothing for another user: bob's guesses are counted as untrusted per address.
        for _ in 0..<3 {
            #expect(
                code(
                    await login(
                        server,
                        "bob",
                        wrong,
                        from: LoginOrigin(address: Self.address(60), deviceToken: first.deviceToken)
                    )
                ) == .proofMismatch
            )
        }
        #expect(
            code(
                await login(
                    server,
                    "bob",
                    wrong,
                    from: LoginOrigin(address: Self.address(60), deviceToken: first.deviceToken)
                )
            ) == .notPermitted
        )
        // A tampered or expired token is no token: counted per address.
        var tampered = Array(first.deviceToken.utf8)
        tampered[tampered.count / 2] =
            tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(
            code(
                await login(
                    server,
                    "alice",
                    password,
                    from: LoginOrigin(address: Self.address(70), deviceToken: String(decoding: tampered, as: UTF8.self))
                )
            ) == nil
        )
        clock.advance(seconds: 31 * 86_400)
        guard
            case .success = await login(
                server,
                "alice",
                password,
                from: LoginOrigin(address: Self.address(71), deviceToken: first.deviceToken)
            )
        else {
            Issue.record("an expired token blocked a login with the right password")
            return
        }
    }

    @Test(
        "signing out everywhere forgets the user's device tokens: an old token counts as none, a token from a later login counts"
    )
    func signOutEverywhere() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let server = try service(store, perAddress: 2, perUser: 100)
        guard
            case .success(let before) = await login(
                server,
                "alice",
                password,
                from: LoginOrigin(address: Self.address(1))
            )
        else {
            Issue.record("the first login failed")
            return
        }
        try await AppSessions(store: store, serverSecret: SecureBytes([UInt8](repeating: 9, count: 32)), clock: clock)
            .revokeAll(for: "alice")
        // The old token no longer sets its holder apart: two guesses from one address, then refused.
        let stale = LoginOrigin(address: Self.address(30), deviceToken: before.deviceToken)
        let codes = [
            await login(server, "alice", wrong, from: stale), await login(server, "alice", wrong, from: stale),
            await login(server, "alice", wrong, from: stale),
        ].map(code)
        #expect(codes == [.proofMismatch, .proofMismatch, .notPermitted])
        guard
            case .success(let after) = await login(
                server,
                "alice",
                password,
                from: LoginOrigin(address: Self.address(31))
            )
        else {
            Issue.record("the login after signing out failed")
            return
        }
        // A token from after the sign-out counts: guesses with it are counted per device, not per address 30.
        let fresh = LoginOrigin(address: Self.address(30), deviceToken: after.deviceToken)
        #expect(code(await login(server, "alice", wrong, from: fresh)) == .proofMismatch)
    }

    @Test("an enrolled user and an unknown one are counted alike: the same refusals at the same counts")
    func unknownUsersCountedAlike() async throws {
        let server = try service(InMemoryHandshakeStore(clock: clock), perAddress: 2, perUser: 100)
        for user in ["alice", "mallory"] {
            let origin = LoginOrigin(address: Self.address(90))
            let codes = [
                await login(server, user, wrong, from: origin), await login(server, user, wrong, from: origin),
                await login(server, user, wrong, from: origin),
            ].map(code)
            #expect(codes == [.proofMismatch, .proofMismatch, .notPermitted], "\(user)")
        }
    }
}
