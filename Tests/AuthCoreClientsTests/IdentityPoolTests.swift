import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Identity pools as apps use them, against ``IdentityPoolModel``: switching logins, developer
/// tokens from a backend across their lifetimes, persisted identity ids, the user-pool bridge. (What
/// the real servers check is in AuthCoreIntegrationTests: ministack for the bridge and the issuer
/// rule, moto for the developer backend.)
@Suite("Identity pools: switching, developer tokens, persistence, the user-pool bridge")
struct IdentityPoolTests {
    static let start = Timestamp(year: 2026, month: 12, day: 1, hour: 12, minute: 0, second: 0)!
    static let google = openIdTokenFixture(issuer: "https://accounts.google.com", subject: "google-alice")

    enum LoginKind: String, CaseIterable, CustomStringConvertible {
        case unauthenticated, developer, social, userPool
        var description: String { rawValue }
    }

    struct World {
        let clock = ManualClock(IdentityPoolTests.start)
        let model: IdentityPoolModel
        let backend: ModelBackend
        let idTokens = ModelIDTokenSource()

        init(credentialsLifetime: Int64 = 3600, tokenLifetime: Int64 = 900) {
            model = IdentityPoolModel(clock: clock, credentialsLifetime: credentialsLifetime)
            backend = ModelBackend(model: model, tokenLifetime: tokenLifetime)
        }

        func login(_ kind: LoginKind) -> IdentityLogin {
            switch kind {
            case .unauthenticated: .unauthenticated
            case .developer: .developer(backend)
            case .social: .providers(["accounts.google.com": IdentityPoolTests.google])
            case .userPool: .userPool(idTokens)
            }
        }

        func provider(
            _ login: any IdentityLoginSource,
            store: any CognitoIdentityStore = InMemoryCognitoIdentityStore(),
            minimumLifetime: Int64 = 60,
            developerTokenWindow: Int64 = 60
        ) throws -> CognitoIdentityCredentialsProvider {
            let client = try CognitoIdentityClient(
                region: "us-east-1",
                sender: SignedRequestSender(transport: model, clock: clock)
            )
            return CognitoIdentityCredentialsProvider(
                client: client,
                identityPoolId: "us-east-1:pool",
                login: login,
                store: store,
                developerTokenWindow: developerTokenWindow,
                clock: clock,
                random: ZeroRandom(),
                minimumLifetime: minimumLifetime
            )
        }
    }

    /// Jitter at its minimum: a backoff of half the step, rounded up to whole seconds.
    struct ZeroRandom: SecureRandomGenerator {
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    // MARK: - Switching

    @Test(
        "every switch between unauthenticated, developer, social and user-pool logins: which calls go out, which identity results",
        arguments: LoginKind.allCases.flatMap { from in LoginKind.allCases.filter { $0 != from }.map { (from, $0) } }
    )
    func switching(from: LoginKind, to: LoginKind) async throws {
        let world = World()
        let provider = try world.provider(world.login(from))
        _ = try await provider.credentials()
        let before = try #require(await provider.currentIdentityId())
        // The seed's rule: unauthenticated → authenticated keeps the identity (clearCredentials: the
        // login is linked to it); between authenticated providers, or back to none, clearIdentity.
        let keep = from == .unauthenticated
        try await provider.switchLogin(to: world.login(to), keepingIdentity: keep)
        let sentBefore = world.model.calls.count
        let askedBefore = world.backend.asked.count
        let credentials = try await provider.credentials()
        let after = try #require(await provider.currentIdentityId())
        let sent = world.model.calls.dropFirst(sentBefore).map(\.target)
        let getIds = sent.filter { $0 == "AWSCognitoIdentityService.GetId" }.count
        // A developer login takes its identity from the backend; a known identity needs no GetId.
        #expect(getIds == (keep || to == .developer ? 0 : 1), "\(sent)")
        #expect(sent.last == "AWSCognitoIdentityService.GetCredentialsForIdentity")
        #expect(world.model.calls.last?.identityId == after)
        #expect(credentials.accessKeyId.hasPrefix("ASIA"))
        if keep {
            #expect(after == before, "the unauthenticated identity is kept and the login linked to it")
            #expect(world.model.logins(of: before)?.isEmpty == false)
        } else {
            #expect(after != before, "a cleared identity gives way to a new one")
        }
        if to == .developer {
            #expect(
                world.backend.asked.dropFirst(askedBefore).first == .some(keep ? before : nil),
                "the backend is given the identity to link, if kept"
            )
        }
    }

    @Test(
        "keeping the identity across two authenticated providers is refused by the service, after asking for a new token once"
    )
    func keepingAcrossProvidersIsRefused() async throws {
        let world = World()
        let provider = try world.provider(world.login(.social))
        _ = try await provider.credentials()
        try await provider.switchLogin(to: world.login(.userPool), keepingIdentity: true)
        let error = await #expect(throws: AuthCoreError.self) { try await provider.credentials() }
        #expect(error?.serviceErrorType == "NotAuthorizedException")
        #expect(error?.reason.contains("Logins don't match") == true, "\(error?.reason ?? "")")
        #expect(world.idTokens.forcedRefreshes == 1, "a refused user-pool token is renewed once")
        #expect(world.model.calls("GetId").count == 1, "only the first login's GetId")
    }

    @Test(
        "the logins source (iOS logins()): decided at each refresh; clearCredentials links the new login to the same identity"
    )
    func loginsSource() async throws {
        let world = World()
        let current = Locked(IdentityLogin.unauthenticated)
        let provider = try world.provider(ClosureIdentityLoginSource { current.withLock { $0 } })
        let guest = try await provider.credentials()
        let id = try #require(await provider.currentIdentityId())
        #expect(try await provider.credentials().accessKeyId == guest.accessKeyId, "cached")
        current.withLock { $0 = .userPool(world.idTokens) }
        await provider.clearCredentials()
        let signedIn = try await provider.credentials()
        #expect(signedIn.accessKeyId != guest.accessKeyId)
        #expect(try await provider.identityId() == id)
        #expect(world.model.logins(of: id) == ["cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool1": "pool-alice"])
        #expect(world.model.calls.last?.loginKeys == ["cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool1"])
        #expect(world.model.calls("GetId").count == 1)
    }

    // MARK: - Developer tokens

    @Test("the backend is asked once however many callers wait")
    func developerSingleFlight() async throws {
        let world = World()
        let provider = try world.provider(world.login(.developer))
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await provider.credentials().accessKeyId } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(world.backend.asked.count == 1)
        #expect(world.model.calls("GetCredentialsForIdentity").count == 1)
        #expect(world.model.calls("GetId").isEmpty)
        #expect(try await provider.identityId() == "us-east-1:d1")
    }

    @Test("credentials keep refreshing across several token lifetimes; the backend is asked once per token lifetime")
    func developerAcrossLifetimes() async throws {
        // Credentials live 100 s; each step comes 95 s later, inside the 10 s safety margin, so every
        // step waits for a refresh. Tokens live 300 s and are renewed when less than 60 s remain.
        let world = World(credentialsLifetime: 100, tokenLifetime: 300)
        let provider = try world.provider(world.login(.developer), minimumLifetime: 20)
        var seen: Set<String> = []
        var backendCalls: [Int] = []
        for step in 0..<10 {
            if step > 0 { world.clock.advance(seconds: 95) }
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 { group.addTask { try await provider.credentials().accessKeyId } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1, "one refresh per step for every caller")
            seen.formUnion(keys)
            backendCalls.append(world.backend.asked.count)
        }
        #expect(seen.count == 10, "ten refreshes")
        // New tokens at 0, 285, 570 and 855 s: each when the last one had less than 60 s to live.
        #expect(backendCalls == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4])
        #expect(world.model.calls("GetCredentialsForIdentity").count == 10)
        #expect(await provider.refreshAttempts == 10)
    }

    @Test("a failing backend is retried with backoff while the still-valid credentials are served")
    func developerBackendFailure() async throws {
        let world = World(credentialsLifetime: 100, tokenLifetime: 50)
        let provider = try world.provider(world.login(.developer), minimumLifetime: 20)
        let first = try await provider.credentials()
        world.backend.fail(times: 2)
        world.clock.advance(seconds: 60)  // 40 s left: refresh in the background; the token has expired
        #expect(try await provider.credentials().accessKeyId == first.accessKeyId)
        try await waitFor { await provider.refreshAttempts == 2 }
        #expect(world.backend.asked.count == 2)
        // Within the backoff (half of 1 s, rounded up): no new attempt, the old credentials.
        #expect(try await provider.credentials().accessKeyId == first.accessKeyId)
        #expect(await provider.refreshAttempts == 2)
        world.clock.advance(seconds: 1)
        #expect(try await provider.credentials().accessKeyId == first.accessKeyId)
        try await waitFor { await provider.refreshAttempts == 3 }
        #expect(world.backend.asked.count == 3, "retried after the backoff, and failed again")
        world.clock.advance(seconds: 1)
        #expect(try await provider.credentials().accessKeyId == first.accessKeyId)
        try await waitFor { await provider.refreshAttempts == 4 }
        let renewed = try await provider.credentials()
        #expect(renewed.accessKeyId != first.accessKeyId)
        #expect(world.backend.asked.count == 4)
    }

    @Test("a refused developer token: the backend is asked once more; refused again, the refresh fails")
    func developerTokenRefused() async throws {
        // A backend whose first token the service refuses: asked once more, and the call made again.
        let world = World()
        let refuseNext = Locked(true)
        let provider = try world.provider(
            IdentityLogin.developer(
                ClosureDeveloperTokenSource { id in
                    let token = try await world.backend.developerToken(for: id)
                    if refuseNext.withLock({ flag in
                        defer { flag = false }
                        return flag
                    }) {
                        world.model.refuse(token.token)
                    }
                    return token
                }
            )
        )
        _ = try await provider.credentials()
        #expect(world.backend.asked.count == 2)
        #expect(world.model.calls("GetCredentialsForIdentity").count == 2)
        // A backend whose every token is refused: asked twice, then the service's error.
        let refusing = World()
        let stubborn = try refusing.provider(
            IdentityLogin.developer(
                ClosureDeveloperTokenSource { id in
                    let token = try await refusing.backend.developerToken(for: id)
                    refusing.model.refuse(token.token)
                    return token
                }
            )
        )
        let error = await #expect(throws: AuthCoreError.self) { try await stubborn.credentials() }
        #expect(error?.serviceErrorType == "NotAuthorizedException")
        #expect(refusing.backend.asked.count == 2)
        #expect(refusing.model.calls("GetCredentialsForIdentity").count == 2)
    }

    @Test(
        "a token the backend says has expired, or an empty one, is an error; a token without any expiry is taken to live 15 minutes"
    )
    func developerTokenValidation() async throws {
        let world = World()
        let expired = try world.provider(
            IdentityLogin.developer(
                DeveloperIdentityToken(
                    identityId: "us-east-1:x",
                    token: "opaque",
                    loginsKey: "cognito-identity.amazonaws.com",
                    expiration: Self.start
                )
            )
        )
        await #expect(throws: AuthCoreError(.expired, "")) { try await expired.credentials() }
        let empty = try world.provider(
            IdentityLogin.developer(DeveloperIdentityToken(identityId: "", token: "t", loginsKey: "k"))
        )
        await #expect(throws: AuthCoreError(.malformedResponse, "")) { try await empty.credentials() }
        let asked = Locked(0)
        let opaque = try world.provider(
            IdentityLogin.developer(
                ClosureDeveloperTokenSource { _ in
                    asked.withLock { $0 += 1 }
                    let id = world.model.developerIdentity(user: "bob", linking: nil)
                    // A JWT without `exp`, and no expiry from the backend.
                    return DeveloperIdentityToken(
                        identityId: id,
                        token: jwtFixture(claims: #"{"iss":"https://cognito-identity.amazonaws.com","sub":"\#(id)"}"#)
                    )
                }
            ),
            developerTokenWindow: 60
        )
        _ = try await opaque.credentials()
        await opaque.clearCredentials()
        world.clock.advance(seconds: 839)  // 61 s of the assumed 900 left: the token is reused
        _ = try await opaque.credentials()
        #expect(asked.withLock { $0 } == 1)
        await opaque.clearCredentials()
        world.clock.advance(seconds: 2)
        _ = try await opaque.credentials()
        #expect(asked.withLock { $0 } == 2)
    }

    @Test(
        "when GetCredentialsForIdentity answers for another identity (the login was linked to it), that id is adopted and saved"
    )
    func answeredIdentityAdopted() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(200, ["IdentityId": "us-east-1:guest"]),
            .jsonAnswer(
                200,
                [
                    "IdentityId": "us-east-1:owner",
                    "Credentials": [
                        "AccessKeyId": "ASIA1", "SecretKey": "s", "SessionToken": "t", "Expiration": 1_800_000_000,
                    ],
                ]
            ),
        ])
        let store = InMemoryCognitoIdentityStore()
        let provider = CognitoIdentityCredentialsProvider(
            client: try CognitoIdentityClient(
                region: "us-east-1",
                sender: SignedRequestSender(transport: transport, clock: FixedClock(Self.start))
            ),
            identityPoolId: "us-east-1:pool",
            login: IdentityLogin.providers(["accounts.google.com": Self.google]),
            store: store,
            clock: FixedClock(Self.start)
        )
        _ = try await provider.credentials()
        #expect(await provider.currentIdentityId() == "us-east-1:owner")
        #expect(try await store.identityId(forPool: "us-east-1:pool") == "us-east-1:owner")
    }

    // MARK: - Clears and switches in the middle of a call

    func gatedProvider(
        _ world: World,
        holding operation: String,
        login: any IdentityLoginSource,
        store: any CognitoIdentityStore
    )
        throws -> (CognitoIdentityCredentialsProvider, OperationGate)
    {
        let transport = OperationGate(world.model, holding: operation)
        let client = try CognitoIdentityClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: transport, clock: world.clock)
        )
        return (
            CognitoIdentityCredentialsProvider(
                client: client,
                identityPoolId: "us-east-1:pool",
                login: login,
                store: store,
                clock: world.clock
            ), transport
        )
    }

    @Test(
        "concurrent identityId() calls share one GetId; a clearIdentity while it runs: its answer is neither kept nor saved"
    )
    func clearDuringGetId() async throws {
        let world = World()
        let store = InMemoryCognitoIdentityStore()
        let (provider, transport) = try gatedProvider(
            world,
            holding: "GetId",
            login: IdentityLogin.unauthenticated,
            store: store
        )
        // Six callers while GetId is held: each joins it or, arriving after, finds its answer.
        let callers = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<6 { group.addTask { try await provider.identityId() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
        }
        try await transport.gate.waitForArrivals(1)
        try await Task.sleep(for: .milliseconds(20))
        await transport.gate.open()
        let ids = try await callers.value as Set<String>
        #expect(ids.count == 1, "one GetId for all six callers")
        #expect(await transport.gate.arrivals == 1)
        let first = try #require(ids.first)
        // A clearIdentity while a GetId is held: its answer is neither kept nor saved.
        try await provider.clearIdentity()
        let (held, heldTransport) = try gatedProvider(
            world,
            holding: "GetId",
            login: IdentityLogin.unauthenticated,
            store: store
        )
        let pending = Task { try await held.identityId() }
        try await heldTransport.gate.waitForArrivals(1)
        try await held.clearIdentity()
        await heldTransport.gate.open()
        let stale = try await pending.value
        #expect(stale != first)
        #expect(await held.currentIdentityId() == nil, "an answer from before the clear is not adopted")
        #expect(try await store.identityId(forPool: "us-east-1:pool") == nil, "nor saved after the clear's removal")
        let fresh = try await held.identityId()
        #expect(fresh != stale && fresh != first)
        #expect(try await store.identityId(forPool: "us-east-1:pool") == fresh)
    }

    @Test(
        "a switch while the user-pool session refreshes: the old login's identity is not adopted; a clear while the backend answers: its token is not cached"
    )
    func switchDuringTokenFetch() async throws {
        let world = World()
        let gate = Gate()
        struct GatedIDTokens: CognitoIDTokenSource {
            let gate: Gate
            let inner: ModelIDTokenSource
            func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String {
                await gate.pass()
                return try await inner.idToken(forceRefresh: forceRefresh)
            }
        }
        let store = InMemoryCognitoIdentityStore()
        let provider = try world.provider(
            IdentityLogin.userPool(GatedIDTokens(gate: gate, inner: world.idTokens)),
            store: store
        )
        let old = Task { try await provider.credentials() }
        try await gate.waitForArrivals(1)
        try await provider.switchLogin(to: IdentityLogin.unauthenticated, keepingIdentity: false)
        await gate.open()
        _ = try? await old.value
        #expect(await provider.currentIdentityId() == nil, "the user-pool login's identity is not the guest's")
        #expect(try await store.identityId(forPool: "us-east-1:pool") == nil)
        _ = try await provider.credentials()
        let guest = try #require(await provider.currentIdentityId())
        #expect(world.model.logins(of: guest) == [:], "a fresh guest, no login linked to it")

        // The backend answers after a clear: that token is not cached for the next login.
        let backendGate = Gate()
        let developer = try world.provider(
            IdentityLogin.developer(
                ClosureDeveloperTokenSource { id in
                    await backendGate.pass()
                    return try await world.backend.developerToken(for: id)
                }
            )
        )
        let first = Task { try await developer.credentials() }
        try await backendGate.waitForArrivals(1)
        try await developer.clearIdentity()
        await backendGate.open()
        _ = try? await first.value
        _ = try await developer.credentials()
        #expect(await backendGate.arrivals == 2, "the token from before the clear was not reused")
    }

    @Test(
        "after a restart the backend is given the saved identity, to link; an answered identity id that is not one is refused"
    )
    func backendGetsStoredId() async throws {
        let world = World()
        let store = InMemoryCognitoIdentityStore()
        _ = try await world.provider(IdentityLogin.unauthenticated, store: store).credentials()
        let guest = try #require(try await store.identityId(forPool: "us-east-1:pool"))
        let restarted = try world.provider(IdentityLogin.developer(world.backend), store: store)
        _ = try await restarted.credentials()
        #expect(world.backend.asked == [guest])
        #expect(await restarted.currentIdentityId() == guest, "the developer login was linked to the guest identity")
        for bad in [
            "", "no-colon", "us-east-1:", ":x", "us-east-1:\n",
            String(repeating: "a", count: 120) + ":" + String(repeating: "b", count: 10),
        ] {
            let transport = ScriptedTransport([.jsonAnswer(200, ["IdentityId": bad])])
            let provider = CognitoIdentityCredentialsProvider(
                client: try CognitoIdentityClient(
                    region: "us-east-1",
                    sender: SignedRequestSender(transport: transport, clock: world.clock)
                ),
                identityPoolId: "us-east-1:pool",
                clock: world.clock
            )
            await #expect(throws: AuthCoreError(.malformedResponse, ""), "\(bad)") { try await provider.identityId() }
            #expect(await provider.currentIdentityId() == nil)
        }
    }

    // MARK: - Persistence

    @Test(
        "the unauthenticated identity survives a restart (a second provider on the same directory); a stale one is replaced once"
    )
    func persistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-identity-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let world = World()
        let first = try world.provider(
            IdentityLogin.unauthenticated,
            store: try FileCognitoIdentityStore(directory: directory)
        )
        _ = try await first.credentials()
        let id = try #require(await first.currentIdentityId())
        let path = directory + "/cognito-identity-us-east-1:pool.json"
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        // "Restart": a new provider and store on the same directory.
        let second = try world.provider(
            IdentityLogin.unauthenticated,
            store: try FileCognitoIdentityStore(directory: directory)
        )
        #expect(await second.currentIdentityId() == id)
        _ = try await second.credentials()
        #expect(world.model.calls("GetId").count == 1, "the saved id is used, not a new identity")
        #expect(world.model.calls.last?.identityId == id)
        // The service forgot it: ResourceNotFoundException, the id is dropped and a new one obtained and saved.
        world.model.forget(id)
        let third = try world.provider(
            IdentityLogin.unauthenticated,
            store: try FileCognitoIdentityStore(directory: directory)
        )
        _ = try await third.credentials()
        let replaced = try #require(await third.currentIdentityId())
        #expect(replaced != id)
        #expect(world.model.calls("GetId").count == 2)
        #expect(
            try await FileCognitoIdentityStore(directory: directory).identityId(forPool: "us-east-1:pool") == replaced
        )
        // clearIdentity removes it from the store too.
        try await third.clearIdentity()
        #expect(try await FileCognitoIdentityStore(directory: directory).identityId(forPool: "us-east-1:pool") == nil)
        #expect(stat(path, &info) != 0)
    }

    @Test("an identity store refuses pool ids that leave the directory, other pools' files and malformed files")
    func storeChecks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-identity-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileCognitoIdentityStore(directory: directory)
        for bad in ["", "../x", "us-east-1:a/b", "a b", String(repeating: "p", count: 129)] {
            await #expect(throws: AuthCoreError(.invalidParameter, ""), "\(bad)") {
                try await store.save(identityId: "i", forPool: bad)
            }
        }
        try await store.save(identityId: "us-east-1:one", forPool: "us-east-1:a")
        // A file copied from another pool's name is refused, not trusted.
        try FileManager.default.copyItem(
            atPath: directory + "/cognito-identity-us-east-1:a.json",
            toPath: directory + "/cognito-identity-us-east-1:b.json"
        )
        await #expect(throws: AuthCoreError(.malformedInput, "")) { try await store.identityId(forPool: "us-east-1:b") }
        for contents in [
            "", "[]", #"{"version":2,"identityPoolId":"us-east-1:c","identityId":"x"}"#,
            #"{"version":1,"identityPoolId":"us-east-1:c","identityId":""}"#,
        ] {
            let file = try store.file(forPool: "us-east-1:c")
            try file.write(SecureBytes(Array(contents.utf8)))
            await #expect(throws: AuthCoreError(.malformedInput, ""), "\(contents)") {
                try await store.identityId(forPool: "us-east-1:c")
            }
        }
        #expect(try await store.identityId(forPool: "us-east-1:a") == "us-east-1:one")
        #expect(try await store.identityId(forPool: "us-east-1:none") == nil)
    }

    // MARK: - The user-pool bridge

    @Test(
        "the user-pool bridge: Logins keyed by the ID token's iss; an access token or a foreign issuer is refused before sending"
    )
    func userPoolBridge() async throws {
        let world = World()
        let provider = try world.provider(world.login(.userPool))
        _ = try await provider.credentials()
        #expect(
            world.model.calls.map(\.loginKeys) == [
                ["cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool1"],
                ["cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool1"],
            ]
        )
        let cases: [(String, String)] = [
            (ModelIDTokenSource.idToken(subject: "s", n: 0, use: "access"), "'access' token"),
            (
                ModelIDTokenSource.idToken(subject: "s", n: 0, issuer: "https://accounts.google.com"),
                "not a Cognito user pool"
            ),
            (
                ModelIDTokenSource.idToken(
                    subject: "s",
                    n: 0,
                    issuer: "https://cognito-idp.us-east-1.amazonaws.com/eu-west-1_X"
                ), "not a Cognito user pool"
            ),
            (
                ModelIDTokenSource.idToken(
                    subject: "s",
                    n: 0,
                    issuer: "https://cognito-idp.cn-north-1.amazonaws.com/cn-north-1_X"
                ), "not a Cognito user pool"
            ),
            ("not-a-jwt", "not a JWT"),
        ]
        for (token, message) in cases {
            do {
                _ = try CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: token)
                Issue.record("accepted \(message)")
            } catch {
                #expect(error.code == .invalidParameter)
                #expect(error.reason.contains(message), "\(error.reason)")
            }
        }
        #expect(
            try CognitoIdentityIssuer.userPoolLoginsKey(
                forIDToken: ModelIDTokenSource.idToken(
                    subject: "s",
                    n: 0,
                    issuer: "https://cognito-idp.cn-north-1.amazonaws.com.cn/cn-north-1_X"
                )
            )
                == "cognito-idp.cn-north-1.amazonaws.com.cn/cn-north-1_X"
        )
        #expect(
            CognitoIdentityIssuer.issuer(forRegion: "cn-northwest-1")
                == "cognito-identity.cn-northwest-1.amazonaws.com.cn"
        )
    }

    // MARK: - Backend calls

    @Test(
        "LookupDeveloperIdentity and UnlinkDeveloperIdentity are signed and carry every parameter; CustomRoleArn reaches GetCredentialsForIdentity"
    )
    func backendCalls() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(
                200,
                [
                    "IdentityId": "us-east-1:found", "DeveloperUserIdentifierList": ["alice", "alice-2"],
                    "NextToken": "page2",
                ]
            ),
            .jsonAnswer(200, [:]),
            .jsonAnswer(
                200,
                [
                    "IdentityId": "us-east-1:found",
                    "Credentials": [
                        "AccessKeyId": "ASIAR", "SecretKey": "s", "SessionToken": "t", "Expiration": 1_800_000_000,
                    ],
                ]
            ),
            .jsonAnswer(200, ["IdentityId": "us-east-1:found", "DeveloperUserIdentifierList": "alice"]),
        ])
        let client = try CognitoIdentityClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: transport, clock: FixedClock(Self.start))
        )
        let developer = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "developer-secret")
        let found = try await client.lookupDeveloperIdentity(
            identityPoolId: "us-east-1:pool",
            developerUserIdentifier: "alice",
            maxResults: 10,
            nextToken: "page1",
            credentials: developer
        )
        #expect(
            found.identityId == "us-east-1:found" && found.developerUserIdentifiers == ["alice", "alice-2"]
                && found.nextToken == "page2"
        )
        try await client.unlinkDeveloperIdentity(
            identityId: "us-east-1:found",
            identityPoolId: "us-east-1:pool",
            providerName: "login.authcore.test",
            userIdentifier: "alice",
            credentials: developer
        )
        _ = try await client.credentialsForIdentity(
            identityId: "us-east-1:found",
            customRoleArn: "arn:aws:iam::123456789012:role/admins"
        )
        let sent = transport.sent
        func body(_ i: Int) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(sent[i].body.plainBytes))) as? [String: Any] ?? [:]
        }
        func header(_ i: Int, _ name: String) -> String? {
            sent[i].headers.first { $0.name.lowercased() == name }?.value
        }
        #expect(header(0, "x-amz-target") == "AWSCognitoIdentityService.LookupDeveloperIdentity")
        #expect(
            body(0) as NSDictionary == [
                "IdentityPoolId": "us-east-1:pool", "DeveloperUserIdentifier": "alice", "MaxResults": 10,
                "NextToken": "page1",
            ]
        )
        #expect(header(1, "x-amz-target") == "AWSCognitoIdentityService.UnlinkDeveloperIdentity")
        #expect(
            body(1) as NSDictionary == [
                "IdentityId": "us-east-1:found", "IdentityPoolId": "us-east-1:pool",
                "DeveloperProviderName": "login.authcore.test", "DeveloperUserIdentifier": "alice",
            ]
        )
        for i in 0...1 {
            #expect(
                header(i, "authorization")?.hasPrefix(
                    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/cognito-identity/"
                ) == true
            )
        }
        #expect(body(2)["CustomRoleArn"] as? String == "arn:aws:iam::123456789012:role/admins")
        #expect(header(2, "authorization") == nil)
        let malformed = await #expect(throws: AuthCoreError.self) {
            try await client.lookupDeveloperIdentity(
                identityPoolId: "us-east-1:pool",
                identityId: "us-east-1:found",
                credentials: developer
            )
        }
        #expect(malformed?.code == .malformedResponse)
        for (identity, user, results) in [(nil, nil, 60), ("i", nil, 0), (nil, "u", 61)] as [(String?, String?, Int)] {
            await #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try await client.lookupDeveloperIdentity(
                    identityPoolId: "p",
                    identityId: identity,
                    developerUserIdentifier: user,
                    maxResults: results,
                    credentials: developer
                )
            }
        }
        #expect(transport.sent.count == 4, "invalid parameters are refused before sending")
    }
}

/// Polls `condition` until it holds (a background refresh finishing), at most about 5 s.
func waitFor(_ condition: () async -> Bool) async throws {
    for _ in 0..<500 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("the condition did not come true within 5 s")
}
