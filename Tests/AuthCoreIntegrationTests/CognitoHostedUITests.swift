import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// The hosted UI's authorization code grant with PKCE against ministack (`AUTH=true`): its
/// `/oauth2/authorize` serves the sign-in form, `POST /login` checks the password and answers a 302
/// with a one-time code, `/oauth2/token` checks the PKCE verifier (S256), the redirect URI, the client
/// secret, and takes each code once (peers.md). The browser is `scripts/hosted_ui_browser.py`, which
/// fills the form as a user would (Python's own HTTP client and HTML parser); the tokens are checked
/// with PyJWT against the pool's key set, and `GetUser` accepts the access token.
@Suite("Cognito hosted UI against ministack (PKCE, state, nonce, one-time codes)", .serialized)
struct CognitoHostedUITests {
    let pool: MinistackPool

    init() throws { pool = try MinistackPool.make() }

    /// What the browser saw.
    struct Visit: Sendable {
        let status: Int
        let location: String?
        let error: String?
        let redirectStatus: Int?
    }

    /// Runs the browser on its own thread (it blocks on the network; the listener's handler needs
    /// the cooperative pool meanwhile).
    static func browse(
        _ url: String,
        _ username: String,
        _ password: String,
        follow: Bool = false
    ) async throws -> Visit {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Visit, any Error>) in
            Thread.detachNewThread {
                do {
                    let script = repositoryRoot.appendingPathComponent("scripts/hosted_ui_browser.py").path
                    let result = try run(venvPython, [script, url, username, password] + (follow ? ["follow"] : []))
                    guard result.status == 0,
                        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                    else { throw PeerError(description: "hosted_ui_browser.py failed: \(result.stderr)") }
                    continuation.resume(
                        returning: Visit(
                            status: object["status"] as? Int ?? 0,
                            location: object["location"] as? String,
                            error: object["error"] as? String,
                            redirectStatus: object["redirectStatus"] as? Int
                        )
                    )
                } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// An app client of the pool for the hosted UI whose one callback URL is `callback`.
    func client(callback: String, secret: Bool = false) throws -> (id: String, secret: String?) {
        let object = try MinistackPool.helper(["hosted-ui-client", pool.poolId, callback] + (secret ? ["secret"] : []))
        return (object["clientId"] as? String ?? "", object["clientSecret"] as? String)
    }

    func hostedUI(clientId: String, secret: String? = nil, redirectURI: String) throws -> CognitoHostedUI {
        let configuration = try CognitoHostedUIConfiguration(
            domain: pool.endpoint,
            clientId: clientId,
            clientSecret: secret.map { SecureBytes(Array($0.utf8)) },
            redirectURI: redirectURI,
            signOutRedirectURI: redirectURI,
            scopes: ["openid", "email", "profile", "aws.cognito.signin.user.admin"]
        )
        let verifier = try CognitoTokenVerifier(
            region: pool.region,
            userPoolId: pool.poolId,
            clientIds: [clientId],
            endpoint: pool.endpoint
        )
        return CognitoHostedUI(configuration: configuration, tokenVerifier: verifier)
    }

    @Test(
        "sign-in through the loopback listener: the form filled, the code exchanged with PKCE, tokens the server and PyJWT accept, the nonce back; refreshed at the token endpoint; the code refused when replayed"
    )
    func loopbackSignIn() async throws {
        let listener = try LoopbackRedirectListener(port: 0)
        let client = try client(callback: listener.redirectURI)
        let hostedUI = try hostedUI(clientId: client.id, redirectURI: listener.redirectURI)
        let session = CognitoSession(configuration: try pool.configuration(clientId: client.id), hostedUI: hostedUI)
        let request = try hostedUI.authorizationRequest()
        async let code = listener.authorizationCode(for: request, timeout: .seconds(60))
        let visit = try await Self.browse(request.url, "alice", try #require(pool.users["alice"]), follow: true)
        #expect(visit.status == 302, "\(visit)")
        #expect(visit.location?.hasPrefix(listener.redirectURI + "?code=") == true)
        #expect(visit.redirectStatus == 200, "the listener's page after a good redirect")
        let authorizationCode = try await code
        let tokens = try await session.signIn(completing: request, authorizationCode: authorizationCode)

        #expect(try await pool.api(clientId: client.id).getUser(accessToken: tokens.accessToken).username == "alice")
        let claims = try pool.verifiedClaims(tokens.idToken)
        #expect(claims["nonce"] as? String == request.nonce)
        #expect(claims["aud"] as? String == client.id)
        guard case .signedIn(let username, _) = try await session.status() else {
            Issue.record("the session is not signed in")
            return
        }
        #expect(username == "alice")

        // The code counts once: the token endpoint refuses it now.
        let replay = await #expect(throws: AuthCoreError.self) {
            try await hostedUI.exchange(code: authorizationCode, for: request)
        }
        #expect(replay?.serviceErrorType == "invalid_grant", "\(String(describing: replay))")

        // Refreshed at the token endpoint (the session began at the hosted UI).
        let fresh = try await session.tokens(forceRefresh: true)
        #expect(await session.refreshCount == 1)
        #expect(fresh.accessToken != tokens.accessToken)
        #expect(
            fresh.refreshToken == tokens.refreshToken,
            "the token endpoint sends no new refresh token: the old one is kept"
        )
        #expect(try await pool.api(clientId: client.id).getUser(accessToken: fresh.accessToken).username == "alice")
    }

    @Test(
        "a wrong PKCE verifier is refused by the token endpoint (the code stays usable for the right one); a wrong password gets no code"
    )
    func wrongVerifier() async throws {
        let callback = "http://127.0.0.1:9/callback"  // never contacted: the browser does not follow
        let client = try client(callback: callback)
        let hostedUI = try hostedUI(clientId: client.id, redirectURI: callback)
        let request = try hostedUI.authorizationRequest()

        let wrongPassword = try await Self.browse(request.url, "alice", "Not-the-Pa55word!")
        #expect(wrongPassword.status == 200 && wrongPassword.location == nil, "\(wrongPassword)")
        #expect(wrongPassword.error == "Incorrect username or password.")

        let visit = try await Self.browse(request.url, "alice", try #require(pool.users["alice"]))
        let location = try #require(visit.location)
        let code = try request.authorizationCode(fromRedirect: location)
        let endpoint = CognitoTokenEndpoint(
            domain: hostedUI.configuration.domain,
            clientId: client.id,
            clientSecret: nil
        )
        let refused = await #expect(throws: AuthCoreError.self) {
            try await endpoint.redeem(code: code, redirectURI: callback, codeVerifier: try PKCECodeVerifier())
        }
        #expect(refused?.serviceErrorType == "invalid_grant")
        #expect(refused?.reason == "invalid_grant: PKCE verification failed.")
        let otherRedirect = await #expect(throws: AuthCoreError.self) {
            try await endpoint.redeem(code: code, redirectURI: callback + "x", codeVerifier: request.codeVerifier)
        }
        #expect(otherRedirect?.serviceErrorType == "invalid_grant")
        let tokens = try await hostedUI.exchange(code: code, for: request)
        #expect(try pool.verifiedClaims(tokens.accessToken)["client_id"] as? String == client.id)
    }

    @Test(
        "a wrong state: refused by the redirect check and by the listener, which waits on for the sign-in's own redirect"
    )
    func wrongState() async throws {
        let listener = try LoopbackRedirectListener(port: 0)
        let client = try client(callback: listener.redirectURI)
        let hostedUI = try hostedUI(clientId: client.id, redirectURI: listener.redirectURI)
        let request = try hostedUI.authorizationRequest()
        let other = try hostedUI.authorizationRequest()
        let visit = try await Self.browse(other.url, "alice", try #require(pool.users["alice"]))
        let location = try #require(visit.location)
        // The redirect of another sign-in is not this one's.
        let mismatch = #expect(throws: AuthCoreError.self) { try request.authorizationCode(fromRedirect: location) }
        #expect(mismatch?.code == .invalidParameter)

        let waited = Task { try await listener.authorizationCode(for: request, timeout: .seconds(60)) }
        // Wait until the listener waits (it answers 503 before).
        var forged = try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL(location)))
        for _ in 0..<200 where forged.status == 503 {
            try await Task.sleep(for: .milliseconds(10))
            forged = try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL(location)))
        }
        #expect(forged.status == 400, "another sign-in's code and state")
        #expect(forged.headers.first(named: "Cache-Control") == "no-store")
        let bare = try await HTTP1Transport().send(
            HTTPRequest(method: "GET", url: try RequestURL(listener.redirectURI + "?code=injected"))
        )
        #expect(bare.status == 400, "a code without state")
        // The sign-in's own redirect still completes it, and its code is the one exchanged.
        let own = try await Self.browse(request.url, "alice", try #require(pool.users["alice"]), follow: true)
        #expect(own.redirectStatus == 200)
        let code = try await waited.value
        #expect(try await hostedUI.exchange(code: code, for: request).idToken.isEmpty == false)
    }

    @Test("a client with a secret: sent in HTTP Basic and checked by the token endpoint; a wrong one is invalid_client")
    func clientSecret() async throws {
        let callback = "http://127.0.0.1:9/callback"
        let client = try client(callback: callback, secret: true)
        let secret = try #require(client.secret)
        let wrong = try hostedUI(clientId: client.id, secret: secret + "x", redirectURI: callback)
        let request = try wrong.authorizationRequest()
        let carol = try #require(pool.users["carol"])
        let location = try #require(try await Self.browse(request.url, "carol", carol).location)
        let code = try request.authorizationCode(fromRedirect: location)
        let refused = await #expect(throws: AuthCoreError.self) { try await wrong.exchange(code: code, for: request) }
        #expect(refused?.serviceErrorType == "invalid_client")
        let right = try hostedUI(clientId: client.id, secret: secret, redirectURI: callback)
        let tokens = try await right.exchange(code: code, for: request)
        #expect(try pool.verifiedClaims(tokens.idToken)["cognito:username"] as? String == "carol")
    }

    @Test("the logout URL: ministack answers 302 to the sign-out URI")
    func logout() async throws {
        let callback = "http://127.0.0.1:9/signed-out"
        let client = try client(callback: callback)
        let url = try hostedUI(clientId: client.id, redirectURI: callback).logoutURL()
        let answer = try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL(url)))
        #expect(answer.status == 302)
        #expect(answer.headers.first(named: "Location") == callback)
    }

    @Test(
        "authcore cognito hosted-ui sign-in: prints the authorize URL, takes the browser's redirect on its port, prints and stores the tokens"
    )
    func commandLine() async throws {
        let port = try RedisServerProcess.freePort()
        let callback = "http://127.0.0.1:\(port)/callback"
        let client = try client(callback: callback)
        let store = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-hosted-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let process = try LoopbackScript(
            executable: authcoreBinary,
            arguments: [
                "cognito", "hosted-ui", "sign-in", "--domain", pool.endpoint, "--client-id", client.id,
                "--user-pool-id", pool.poolId, "--endpoint",
                pool.endpoint, "--redirect-port", String(port), "--scopes", "openid,email", "--store", store,
                "--timeout", "60",
            ],
            name: "authcore cognito hosted-ui sign-in",
            announces: "authorizeURL"
        )
        defer { process.stop() }
        #expect(process.announcement["redirectURI"] as? String == callback)
        let authorizeURL = try #require(process.announcement["authorizeURL"] as? String)
        #expect(authorizeURL.contains("code_challenge_method=S256"))
        #expect(authorizeURL.contains("scope=openid%20email"))
        let visit = try await Self.browse(authorizeURL, "alice", try #require(pool.users["alice"]), follow: true)
        #expect(visit.redirectStatus == 200, "\(visit)")
        #expect(process.waitForExit(timeout: 30) == 0)
        let lines = process.lines
        #expect(lines.count == 2)
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any]
        )
        #expect(result["status"] as? String == "signedIn")
        let tokens = try #require(result["tokens"] as? [String: Any])
        let claims = try pool.verifiedClaims(try #require(tokens["idToken"] as? String))
        #expect(claims["cognito:username"] as? String == "alice")

        let stored = try await FileCognitoTokenStore(path: store).session()
        #expect(stored?.signInMethod == .hostedUI(domain: try RequestURL(pool.endpoint)))
        let session = try authcore(["cognito", "session", "--store", store, "--endpoint", pool.endpoint])
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains(#""status":"signedIn""#))

        let usage = try authcore([
            "cognito", "hosted-ui", "sign-in", "--domain", pool.endpoint, "--client-id", client.id,
        ])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--user-pool-id"))
    }
}
