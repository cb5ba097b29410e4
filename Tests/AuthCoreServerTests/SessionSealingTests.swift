import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Testing

/// Sessions in a store an attacker can write to: sealed records under the server secret, one per
/// token hash; revocation of one session and of all of a user's.
@Suite("App sessions: sealed in the store, revocable one by one and all at once")
struct SessionSealingTests {
    let clock = ManualClock(Timestamp(year: 2026, month: 12, day: 5)!)
    let secret = SecureBytes([UInt8](repeating: 0x51, count: 32))

    func sessions(
        _ store: InMemoryHandshakeStore,
        secret: SecureBytes? = nil,
        lifetime: Duration = .seconds(3600)
    ) throws -> AppSessions {
        try AppSessions(store: store, serverSecret: secret ?? self.secret, lifetime: lifetime, clock: clock)
    }

    func text(_ session: AppSession) -> String { session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// A fresh well-formed token that was never issued.
    func unissuedToken() throws -> String {
        Base64.encode(
            try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) },
            alphabet: .urlSafe,
            padding: false
        )
    }

    @Test(
        "an entry a store writer made (expiry then username, the old layout) is refused: the session is not sealed by the server"
    )
    func forgedEntry() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let service = try sessions(store)
        let token = try unissuedToken()
        let expiry = Int64(clock.now().secondsSince1970 + 3600) * 1000
        var forged = withUnsafeBytes(of: expiry.bigEndian) { Array($0) }
        forged += Array("victim".utf8)
        #expect(
            try await store.insert(
                forged,
                forKey: "authcore:session:" + SHA256.hash(string: token).hexLowercased,
                lifetime: .seconds(3600)
            )
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: token) }
        // Random bytes of a sealed record's length do not open either.
        let other = try unissuedToken()
        let noise = try SystemRandom().secureBytes(count: 64).withUnsafeBytes { Array($0) }
        #expect(
            try await store.insert(
                noise,
                forKey: "authcore:session:" + SHA256.hash(string: other).hexLowercased,
                lifetime: .seconds(3600)
            )
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: other) }
    }

    @Test(
        "a real session's record moved under another token's key is refused, and so is a record sealed under another server secret"
    )
    func movedEntry() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let service = try sessions(store)
        let victim = try await service.issue(for: "victim")
        let sealed = try #require(
            try await store.value("authcore:session:" + SHA256.hash(string: text(victim)).hexLowercased)
        )
        let attacker = try unissuedToken()
        #expect(
            try await store.insert(
                sealed,
                forKey: "authcore:session:" + SHA256.hash(string: attacker).hexLowercased,
                lifetime: .seconds(3600)
            )
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: attacker) }
        #expect(try await service.username(for: text(victim)) == "victim")
        let otherServer = try sessions(store, secret: SecureBytes([UInt8](repeating: 0x52, count: 32)))
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await otherServer.username(for: text(victim)) }
    }

    @Test(
        "a session's link pointed at another user's generation counter is refused; a record stored before links (no link) still opens and is still revoked"
    )
    func relinkedSession() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let service = try sessions(store)
        let alice = try await service.issue(for: "alice")
        let key = "authcore:session:" + SHA256.hash(string: text(alice)).hexLowercased
        let stored = try #require(try await store.value(key))
        #expect(Array(stored.prefix(64)) == Array(SHA256.hash(string: "alice").hexLowercased.utf8))
        // alice signs out everywhere; a writer points her old session at bob's counter (still 0).
        try await service.revokeAll(for: "alice")
        try await store.put(
            Array(SHA256.hash(string: "bob").hexLowercased.utf8) + stored.dropFirst(64),
            forKey: key,
            lifetime: .seconds(3600)
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(alice)) }
        // Without its link the record opens as a whole (the layout before links), with the
        // generation read apart: current sessions pass, revoked ones do not.
        let fresh = try await service.issue(for: "alice")
        let freshKey = "authcore:session:" + SHA256.hash(string: text(fresh)).hexLowercased
        try await store.put(
            Array(try #require(try await store.value(freshKey)).dropFirst(64)),
            forKey: freshKey,
            lifetime: .seconds(3600)
        )
        #expect(try await service.username(for: text(fresh)) == "alice")
        try await store.put(Array(stored.dropFirst(64)), forKey: key, lifetime: .seconds(3600))
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(alice)) }
    }

    @Test(
        "revoke ends one session; revokeAll ends every session of that user issued so far, not later ones and not another user's"
    )
    func revocation() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let service = try sessions(store)
        let phone = try await service.issue(for: "alice")
        let laptop = try await service.issue(for: "alice")
        let bob = try await service.issue(for: "bob")
        try await service.revoke(text(phone))
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(phone)) }
        #expect(try await service.username(for: text(laptop)) == "alice")
        clock.advance(seconds: 10)
        try await service.revokeAll(for: "alice")
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(laptop)) }
        #expect(try await service.username(for: text(bob)) == "bob")
        let fresh = try await service.issue(for: "alice")
        #expect(try await service.username(for: text(fresh)) == "alice")
        // A second revokeAll ends the fresh one too.
        try await service.revokeAll(for: "alice")
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(fresh)) }
    }

    @Test(
        "the generation lives while a session may carry it: a session issued just before the counter would have expired is still revoked later"
    )
    func generationLifetime() async throws {
        let store = InMemoryHandshakeStore(clock: clock)
        let service = try sessions(store, lifetime: .seconds(100))
        try await service.revokeAll(for: "alice")  // generation 1, kept 100 s
        clock.advance(seconds: 90)
        let late = try await service.issue(for: "alice")  // carries 1; the counter is kept 100 s from now
        clock.advance(seconds: 20)  // 110 s after the revocation: the counter is still there
        #expect(try await service.username(for: text(late)) == "alice")
        try await service.revokeAll(for: "alice")
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await service.username(for: text(late)) }
        // Once every session has expired, the counter may go: new sessions start from 0 and are valid.
        clock.advance(seconds: 201)
        let next = try await service.issue(for: "alice")
        #expect(try await service.username(for: text(next)) == "alice")
    }
}
