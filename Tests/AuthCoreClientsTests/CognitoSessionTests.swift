import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The session's refresh decisions against scripted answers (ministack never rotates refresh tokens
/// and knows GetTokensFromRefreshToken, so rotation and the fallback are proved here, as message
/// shapes): a rotated refresh token replaces the stored one, an unknown operation falls back to
/// REFRESH_TOKEN_AUTH, a failed refresh hands out still-valid tokens and fails expired ones.
@Suite("Cognito session: rotation, fallback and refresh failures (scripted)")
struct CognitoSessionTests {
    static let start = Timestamp(secondsSince1970: 1_796_000_000)

    static func answer(_ status: Int, _ object: [String: Any]) -> HTTPResponse { .jsonAnswer(status, object) }

    static func refreshed(_ access: String, refreshToken: String? = nil) -> HTTPResponse {
        var result: [String: Any] = [
            "IdToken": "id-" + access, "AccessToken": access, "ExpiresIn": 3600, "TokenType": "Bearer",
        ]
        if let refreshToken { result["RefreshToken"] = refreshToken }
        return answer(200, ["AuthenticationResult": result])
    }

    static func session(
        _ transport: ScriptedTransport,
        clock: ManualClock,
        store: InMemoryCognitoTokenStore
    ) async throws -> CognitoSession {
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1"
        )
        try await store.save(
            CognitoStoredSession(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1",
                username: "alice",
                tokens: CognitoTokens(
                    idToken: "id-0",
                    accessToken: "access-0",
                    refreshToken: "refresh-0",
                    expiresIn: 3600
                ),
                expiresAt: start.adding(seconds: 3600)
            )
        )
        return CognitoSession(
            configuration: configuration,
            transport: transport,
            store: store,
            clock: clock,
            retryPolicy: .none
        )
    }

    static func body(_ request: HTTPRequest) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: (request.body.withInMemoryBytes { Data($0) } ?? Data())))
            as? [String: Any] ?? [:]
    }

    @Test("a rotated refresh token replaces the stored one and is the one sent next time")
    func rotation() async throws {
        let transport = ScriptedTransport([
            Self.refreshed("access-1", refreshToken: "refresh-1"), Self.refreshed("access-2"),
        ])
        let clock = ManualClock(Self.start)
        let store = InMemoryCognitoTokenStore()
        let session = try await Self.session(transport, clock: clock, store: store)
        #expect(try await session.tokens(forceRefresh: true).accessToken == "access-1")
        #expect(try await store.session()?.tokens.refreshToken == "refresh-1")
        #expect(Self.body(transport.sent[0])["RefreshToken"] as? String == "refresh-0")
        #expect(
            transport.sent[0].headers.first(named: "X-Amz-Target")
                == "AWSCognitoIdentityProviderService.GetTokensFromRefreshToken"
        )
        // Within the window (5 minutes before expiry) the next call refreshes with the rotated token;
        // an answer without a refresh token keeps it.
        clock.advance(seconds: 3600 - 200)
        #expect(try await session.tokens().accessToken == "access-2")
        #expect(Self.body(transport.sent[1])["RefreshToken"] as? String == "refresh-1")
        #expect(try await store.session()?.tokens.refreshToken == "refresh-1")
        #expect(await session.refreshCount == 2)
    }

    @Test("a service that does not know GetTokensFromRefreshToken gets REFRESH_TOKEN_AUTH")
    func fallback() async throws {
        let transport = ScriptedTransport([
            Self.answer(400, ["__type": "UnknownOperationException", "message": ""]), Self.refreshed("access-1"),
        ])
        let session = try await Self.session(
            transport,
            clock: ManualClock(Self.start),
            store: InMemoryCognitoTokenStore()
        )
        #expect(try await session.tokens(forceRefresh: true).accessToken == "access-1")
        #expect(transport.sent.count == 2)
        let second = Self.body(transport.sent[1])
        #expect(second["AuthFlow"] as? String == "REFRESH_TOKEN_AUTH")
        #expect((second["AuthParameters"] as? [String: String])?["REFRESH_TOKEN"] == "refresh-0")
    }

    @Test("events, in order and to every subscriber: refreshed, refresh failed, expired, signed in, signed out")
    func events() async throws {
        // InitiateAuth's answer has the same shape
        let signedIn = Self.refreshed("access-9", refreshToken: "refresh-9")
        let transport = ScriptedTransport([
            Self.refreshed("access-1"), Self.answer(503, ["__type": "ServiceUnavailable"]),
            Self.answer(400, ["__type": "NotAuthorizedException", "message": "Refresh Token has been revoked"]),
            signedIn, Self.answer(200, [:]),
        ])
        let clock = ManualClock(Self.start)
        let session = try await Self.session(transport, clock: clock, store: InMemoryCognitoTokenStore())
        var first = session.events().makeAsyncIterator()
        var second = session.events().makeAsyncIterator()
        #expect(try await session.tokens(forceRefresh: true).accessToken == "access-1")
        #expect(try await session.tokens(forceRefresh: true).accessToken == "access-1")  // 503: the current tokens
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await session.tokens(forceRefresh: true) }
        _ = try await session.signIn(username: "bob", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        guard case .complete = await session.signOut() else {
            Issue.record("sign-out was not complete")
            return
        }
        let expected: [CognitoSessionEvent] = [
            .tokensRefreshed(expiresAt: Self.start.adding(seconds: 3600)), .refreshFailed(.serviceError),
            .sessionExpired, .signedIn(username: "bob"),
            .signedOut,
        ]
        for event in expected {
            #expect(await first.next() == event)
            #expect(await second.next() == event)
        }
    }

    @Test(
        "a refresh that fails for the network hands out valid tokens and fails expired ones; a refusal ends the session"
    )
    func failures() async throws {
        let transport = ScriptedTransport([
            Self.answer(503, ["__type": "ServiceUnavailable"]), Self.answer(503, ["__type": "ServiceUnavailable"]),
            Self.answer(400, ["__type": "NotAuthorizedException", "message": "Refresh Token has been revoked"]),
        ])
        let clock = ManualClock(Self.start)
        let store = InMemoryCognitoTokenStore()
        let session = try await Self.session(transport, clock: clock, store: store)
        clock.advance(seconds: 3600 - 100)  // inside the window, still valid
        #expect(try await session.tokens().accessToken == "access-0")
        clock.advance(seconds: 200)  // expired
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await session.tokens() }
        #expect(try await session.status() != .signedOut, "a passing failure keeps the session")
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await session.tokens() }
        #expect(try await session.status() == .signedOut)
        #expect(try await store.session() == nil)
    }

    @Test(
        "sign-out during a rotating refresh waits for it and revokes the new refresh token; nothing is stored afterwards"
    )
    func signOutDuringRefresh() async throws {
        let transport = StepGatedTransport([
            (Self.refreshed("access-1", refreshToken: "refresh-1"), true), (Self.answer(200, [:]), false),
        ])
        let store = InMemoryCognitoTokenStore()
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1"
        )
        try await store.save(
            CognitoStoredSession(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1",
                username: "alice",
                tokens: CognitoTokens(
                    idToken: "id-0",
                    accessToken: "access-0",
                    refreshToken: "refresh-0",
                    expiresIn: 3600
                ),
                expiresAt: Self.start.adding(seconds: 3600)
            )
        )
        let session = CognitoSession(
            configuration: configuration,
            transport: transport,
            store: store,
            clock: ManualClock(Self.start),
            retryPolicy: .none
        )
        let refreshing = Task { try await session.tokens(forceRefresh: true) }
        try await transport.waitForRequests(1)
        let signingOut = Task { await session.signOut() }
        try await Task.sleep(for: .milliseconds(100))
        transport.releaseGated()
        guard case .complete = await signingOut.value else {
            Issue.record("sign-out was not complete")
            return
        }
        _ = try? await refreshing.value
        let sent = transport.sent
        #expect(sent.count == 2)
        #expect(sent.last?.headers.first(named: "X-Amz-Target") == "AWSCognitoIdentityProviderService.RevokeToken")
        #expect(
            sent.count == 2 && Self.body(sent[1])["Token"] as? String == "refresh-1",
            "the rotated token is the one revoked"
        )
        #expect(try await store.session() == nil)
        #expect(try await session.status() == .signedOut)
    }
}

/// Answers from a script; the requests marked gated wait until ``releaseGated()``.
final class StepGatedTransport: HTTPTransport {
    private struct State {
        var script: [(HTTPResponse, Bool)]
        var sent: [HTTPRequest] = []
        var waiting: [(CheckedContinuation<HTTPResponse, Never>, HTTPResponse)] = []
        var released = false
    }
    private let state: Locked<State>

    init(_ script: [(HTTPResponse, Bool)]) { state = Locked(State(script: script)) }

    var sent: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        let next: (HTTPResponse, Bool)? = state.withLock { state in
            state.sent.append(request)
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        guard let (response, gated) = next else { throw AuthCoreError(.transportFailure, "script exhausted") }
        guard gated else { return response }
        return await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiting.append((continuation, response))
                return false
            }
            if now { continuation.resume(returning: response) }
        }
    }

    func waitForRequests(_ count: Int) async throws {
        for _ in 0..<500 {
            if state.withLock({ $0.sent.count >= count }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PeerError(description: "fewer than \(count) requests arrived")
    }

    func releaseGated() {
        let waiting = state.withLock { state -> [(CheckedContinuation<HTTPResponse, Never>, HTTPResponse)] in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for (continuation, response) in waiting { continuation.resume(returning: response) }
    }
}
