import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// A developer-authenticated app end to end over loopback: the app's ``DeveloperTokenSource`` asks a
/// real backend process (scripts/developer_backend.py), which calls `GetOpenIdTokenForDeveloperIdentity`
/// through boto3, signed with the IAM user's key, on moto in signature-checking mode (moto refuses a
/// wrong signature: peers.md); the app turns the tokens into credentials with
/// `GetCredentialsForIdentity` on the default-mode moto (the signature-mode server answers unsigned
/// identity calls with HTML 500, peers.md). moto checks neither the token nor the `Logins` of that
/// call, so this test proves the refresh behaviour and the message shapes over HTTP; the issuer and
/// token checks are proven against ministack (IdentityMinistackTests).
@Suite("Developer-authenticated identities with a real backend over loopback", .serialized)
struct IdentityDeveloperBackendTests {
    /// The app's side of the backend: `GET /token?user=…&identityId=…` over the library's transport.
    struct BackendTokenSource: DeveloperTokenSource {
        let base: String
        let clock: any SigningClock

        func developerToken(for identityId: String?) async throws(AuthCoreError) -> DeveloperIdentityToken {
            var query = "user=alice"
            if let identityId {
                query +=
                    "&identityId=" + (identityId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            }
            let request = HTTPRequest(
                method: "GET",
                url: try RequestURL(base + "/token?" + query),
                allowsInsecureHTTP: true
            )
            let requested = clock.now()
            let response = try await URLSessionTransport().send(request)
            guard response.isSuccess else {
                throw AuthCoreError(.transportFailure, "the backend answered \(response.status)")
            }
            let body = try JSONObject(parsing: response.body.plainBytes, context: "backend answer")
            return DeveloperIdentityToken(
                identityId: try body.string("identityId"),
                token: try body.string("token"),
                loginsKey: "cognito-identity.amazonaws.com",
                expiration: requested.adding(seconds: try body.integer("expiresIn", in: 1...86_400))
            )
        }
    }

    /// Jitter at its minimum (a backoff of half the step, rounded up to whole seconds).
    struct ZeroRandom: SecureRandomGenerator {
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    func stats(_ backend: LoopbackScript) async throws -> (calls: Int64, failed: Int64) {
        let response = try await URLSessionTransport().send(
            HTTPRequest(method: "GET", url: try RequestURL(backend.url + "/stats"), allowsInsecureHTTP: true)
        )
        let body = try JSONObject(parsing: response.body.plainBytes, context: "stats")
        return (try body.integer("calls", in: 0...1_000_000), try body.integer("failed", in: 0...1_000_000))
    }

    func waitFor(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<1000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition did not come true within 10 s")
    }

    @Test(
        "credentials keep coming across several token lifetimes; the backend is asked once per token lifetime however many callers wait; a failing backend is retried with backoff while still-valid credentials are served"
    )
    func developerTokensOverHTTP() async throws {
        let backend = try LoopbackScript(
            script: "developer_backend.py",
            arguments: [
                "--moto", try peerEnvironment("AUTHCORE_MOTO_SIGNED_URL"), "--ak",
                try peerEnvironment("AUTHCORE_MOTO_ACCESS_KEY_ID"),
                "--duration", "20",
            ],
            environment: ["BACKEND_SECRET_ACCESS_KEY": try peerEnvironment("AUTHCORE_MOTO_SECRET_ACCESS_KEY")]
        )
        defer { backend.stop() }
        let pool = try #require(backend.announcement["identityPoolId"] as? String)
        // The test's clock starts a minute behind the real one and is moved by hand; moto stamps its
        // 90 s credentials with the real clock, so they stay valid on this clock while it moves ahead.
        let clock = ManualClock(SystemClock().now().adding(seconds: -60))
        let client = try CognitoIdentityClient(
            region: "us-east-1",
            endpoint: try peerEnvironment("AUTHCORE_MOTO_URL") + "/"
        )
        let provider = CognitoIdentityCredentialsProvider(
            client: client,
            identityPoolId: pool,
            login: IdentityLogin.developer(BackendTokenSource(base: backend.url, clock: clock)),
            developerTokenWindow: 5,
            clock: clock,
            random: ZeroRandom(),
            minimumLifetime: 20,
            timeLimit: patientTimeLimit
        )

        // Eight refreshes, 5 s apart, each awaited by eight callers at once. The 20 s tokens are
        // renewed when less than 5 s remain: at 0, 15 and 30 s.
        var calls: [Int] = []
        var expirations: Set<Timestamp> = []
        var identityIds: Set<String> = []
        for step in 0..<8 {
            if step > 0 {
                clock.advance(seconds: 5)
                await provider.clearCredentials()
            }
            let answers = try await withThrowingTaskGroup(of: Timestamp?.self) { group in
                for _ in 0..<8 { group.addTask { try await provider.credentials().expiration } }
                return try await group.reduce(into: Set<Timestamp?>()) { $0.insert($1) }
            }
            #expect(answers.count == 1, "one refresh for all eight callers")
            if let expiration = answers.first ?? nil { expirations.insert(expiration) }
            calls.append(Int(try await stats(backend).calls))
            identityIds.insert(try #require(await provider.currentIdentityId()))
        }
        #expect(calls == [1, 1, 1, 2, 2, 2, 3, 3], "\(calls)")
        #expect(await provider.refreshAttempts == 8)
        #expect(identityIds.count == 1, "the backend links every token to the identity the app already has")
        #expect(expirations.count >= 2, "moto stamps each answer anew")

        // The backend fails twice. A second after the refresh time, the credentials are within their
        // refresh window but still valid (half of a lifetime of 115 s or more on this clock), and the
        // token has expired: the refresh fails in the background and the callers keep getting the
        // current credentials; it is retried after each backoff (1 s, then 1 s: half of 1 s and of
        // 2 s, rounded up), and the third attempt succeeds.
        func expiry() async throws -> Timestamp { try #require(try await provider.credentials().expiration) }
        let current = try await expiry()
        _ = try await URLSessionTransport().send(
            HTTPRequest(method: "POST", url: try RequestURL(backend.url + "/fail?times=2"), allowsInsecureHTTP: true)
        )
        let refreshTime = try #require(await provider.refreshTime())
        clock.advance(seconds: clock.now().seconds(until: refreshTime) + 1)
        #expect(clock.now().seconds(until: current) > 30, "still valid, well outside the safety margin")
        #expect(try await expiry() == current)
        try await waitFor { await provider.refreshAttempts == 9 }
        #expect(try await stats(backend) == (4, 1))
        #expect(try await expiry() == current, "no new attempt within the backoff")
        #expect(try await stats(backend) == (4, 1))
        clock.advance(seconds: 1)
        #expect(try await expiry() == current)
        try await waitFor { await provider.refreshAttempts == 10 }
        #expect(try await stats(backend) == (5, 2))
        clock.advance(seconds: 1)
        #expect(try await expiry() == current)
        try await waitFor { await provider.refreshAttempts == 11 }
        #expect(try await stats(backend) == (6, 2))
        #expect(try await expiry() != current, "new credentials after the backend recovered")
        #expect(try #require(await provider.currentIdentityId()) == (try #require(identityIds.first)))
    }
}
