import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The hosted-UI pieces that need no server: the PKCE pair (RFC 7636), the authorization URL, the
/// redirect's checks, the token endpoint's request and answer, `amplify_outputs.json`'s `oauth`
/// section and the stored sign-in method. The exchange against a verifying server is in
/// `CognitoHostedUITests` (ministack).
@Suite("Cognito hosted UI: PKCE, the authorization URL, the redirect and token answers")
struct CognitoHostedUIUnitTests {
    /// Counts up from a seed, on from where the last call stopped: a deterministic "random" source.
    final class CountingRandom: SecureRandomGenerator {
        let next: Locked<UInt8>
        init(seed: UInt8) { next = Locked(seed) }
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
            next.withLock { next in
                for index in buffer.indices {
                    buffer[index] = next
                    next &+= 1
                }
            }
        }
    }

    static func configuration(secret: String? = nil) throws -> CognitoHostedUIConfiguration {
        try CognitoHostedUIConfiguration(
            domain: "auth.example.test",
            clientId: "client1",
            clientSecret: secret.map { SecureBytes(Array($0.utf8)) },
            redirectURI: "myapp://callback",
            signOutRedirectURI: "myapp://signout",
            scopes: ["openid", "email"],
            identityProvider: "Google"
        )
    }

    static func hostedUI(_ transport: any HTTPTransport, secret: String? = nil) throws -> CognitoHostedUI {
        let verifier = try CognitoTokenVerifier(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientIds: ["client1"],
            transport: transport
        )
        return CognitoHostedUI(
            configuration: try configuration(secret: secret),
            tokenVerifier: verifier,
            transport: transport,
            random: CountingRandom(seed: 7)
        )
    }

    @Test("RFC 7636 Appendix B: the verifier's S256 challenge")
    func appendixB() throws {
        let pair = try PKCECodeVerifier(
            verifier: SecureBytes(Array("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".utf8))
        )
        #expect(pair.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCECodeVerifier.method == "S256")
        #expect(!"\(pair)".contains("dBjft"), "the verifier is not printed")
    }

    @Test(
        "a fresh verifier: 43 unreserved characters from 32 random octets, the branch-free encoder equal to Base64url"
    )
    func freshVerifier() throws {
        let pair = try PKCECodeVerifier(random: CountingRandom(seed: 0xF0))
        let text = pair.verifier.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let octets = (0..<32).map { UInt8(truncatingIfNeeded: 0xF0 + $0) }
        #expect(text == Base64.encode(octets, alphabet: .urlSafe))
        #expect(text.utf8.count == 43)
        #expect(try PKCECodeVerifier(random: SystemRandom()).verifier.count == 43)
        // Every length and every sextet value against the table encoder.
        var generator = SystemRandomNumberGenerator()
        for length in 0...67 {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Base64.encode(input, alphabet: .urlSafe)
            let got = [UInt8](unsafeUninitializedCapacity: expected.utf8.count) { buffer, count in
                input.withUnsafeBytes {
                    PKCECodeVerifier.encodeBase64URL($0, into: UnsafeMutableRawBufferPointer(buffer))
                }
                count = expected.utf8.count
            }
            #expect(String(decoding: got, as: UTF8.self) == expected, "length \(length)")
        }
        let all = (0..<48).map { UInt8($0 * 4 + ($0 % 4)) }  // covers each sextet value somewhere
        #expect(Base64.encode(all, alphabet: .urlSafe).utf8.count == 64)
    }

    @Test("a given verifier: 43...128 unreserved characters, anything else refused")
    func givenVerifier() {
        for bad in [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129),
            String(repeating: "a", count: 42) + "+", String(repeating: "a", count: 42) + " ",
        ] {
            #expect(throws: AuthCoreError.self) { try PKCECodeVerifier(verifier: SecureBytes(Array(bad.utf8))) }
        }
        #expect(
            (try? PKCECodeVerifier(verifier: SecureBytes(Array((String(repeating: "a", count: 124) + "-._~").utf8))))
                != nil
        )
    }

    @Test("the authorization URL: code grant, PKCE S256, state, nonce, scopes, provider; each sign-in fresh")
    func authorizationURL() throws {
        let hostedUI = try Self.hostedUI(ScriptedTransport([]))
        let request = try hostedUI.authorizationRequest(loginHint: "alice@example.test")
        let url = try RequestURL(request.url)
        #expect(url.origin == "https://auth.example.test")
        #expect(url.path == "/oauth2/authorize")
        let parameters = Dictionary(
            CanonicalQuery.decodedPairs(url.query, omittingEmpty: true).map { ($0.key, $0.value) },
            uniquingKeysWith: { a, _ in a }
        )
        #expect(parameters["response_type"] == "code")
        #expect(parameters["client_id"] == "client1")
        #expect(parameters["redirect_uri"] == "myapp://callback")
        #expect(parameters["scope"] == "openid email")
        #expect(parameters["code_challenge_method"] == "S256")
        #expect(parameters["code_challenge"] == request.codeVerifier.challenge)
        #expect(parameters["state"] == request.state)
        #expect(parameters["nonce"] == request.nonce)
        #expect(parameters["identity_provider"] == "Google")
        #expect(parameters["login_hint"] == "alice@example.test")
        #expect(request.url.contains("redirect_uri=myapp%3A%2F%2Fcallback"))
        #expect(request.url.contains("scope=openid%20email"))
        #expect(
            !request.url.contains(request.codeVerifier.verifier.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        )
        let fresh = try Self.hostedUI(ScriptedTransport([]), secret: nil).authorizationRequest()
        #expect(fresh.state != fresh.nonce)
        let other = try CognitoHostedUI(
            configuration: try Self.configuration(),
            tokenVerifier: hostedUI.tokenVerifier,
            transport: ScriptedTransport([])
        ).authorizationRequest()
        #expect(other.state != request.state && other.codeVerifier.challenge != request.codeVerifier.challenge)
    }

    @Test(
        "the redirect: state must match (missing, wrong, repeated refused), an OAuth error is typed, the URL must be the redirect URI"
    )
    func redirectChecks() throws {
        let request = try Self.hostedUI(ScriptedTransport([])).authorizationRequest()
        let state = request.state
        #expect(try request.authorizationCode(fromRedirect: "myapp://callback?code=abc&state=\(state)") == "abc")
        #expect(try request.authorizationCode(fromRedirect: "myapp://callback?state=\(state)&code=a%2Bb#frag") == "a+b")
        func refusal(_ redirect: String) -> AuthCoreError? {
            do {
                _ = try request.authorizationCode(fromRedirect: redirect)
                return nil
            } catch { return error }
        }
        #expect(refusal("myapp://callback?code=abc")?.code == .invalidParameter)
        #expect(refusal("myapp://callback?code=abc&state=x\(state)")?.code == .invalidParameter)
        #expect(refusal("myapp://callback?code=abc&state=\(state)&state=\(state)")?.code == .invalidParameter)
        #expect(refusal("myapp://callback?code=abc&code=def&state=\(state)")?.code == .invalidParameter)
        #expect(refusal("myapp://callback?state=\(state)")?.code == .invalidParameter)
        #expect(refusal("evil://callback?code=abc&state=\(state)")?.code == .invalidParameter)
        #expect(refusal("myapp://callbackx?code=abc&state=\(state)")?.code == .invalidParameter)
        let denied = refusal("myapp://callback?error=access_denied&error_description=User%0Acancelled&state=\(state)")
        #expect(denied?.serviceErrorType == "access_denied")
        #expect(denied?.reason == "access_denied: User?cancelled")
        // An error with a wrong state is a wrong state (a forged redirect), not the error it claims.
        #expect(refusal("myapp://callback?error=access_denied&state=nope")?.code == .invalidParameter)
    }

    @Test("the code exchange: a form with the verifier, client secret in HTTP Basic, no retry of an invalid_grant")
    func exchangeRequest() async throws {
        let refusal = HTTPResponse(
            status: 400,
            headers: [HTTPHeader("Content-Type", "application/json")],
            body: Array(#"{"error":"invalid_grant","error_description":"Invalid or expired authorization code."}"#.utf8)
        )
        let transport = ScriptedTransport([refusal, refusal])
        let hostedUI = try Self.hostedUI(transport, secret: "s3cr/t+")
        let request = try hostedUI.authorizationRequest()
        let error = await #expect(throws: AuthCoreError.self) {
            try await hostedUI.exchange(code: "the-code", for: request)
        }
        #expect(error?.serviceErrorType == "invalid_grant")
        #expect(error?.httpStatus == 400)
        #expect(transport.sent.count == 1, "a code counts once: no retry")
        let sent = try #require(transport.sent.first)
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "https://auth.example.test/oauth2/token")
        #expect(sent.headers.first(named: "Content-Type") == "application/x-www-form-urlencoded")
        // RFC 6749 §2.3.1: id and secret form-encoded, then Base64.
        #expect(
            sent.headers.first(named: "Authorization") == "Basic " + Base64.encode(Array("client1:s3cr%2Ft%2B".utf8))
        )
        guard case .secret(let body) = sent.body else {
            Issue.record("the form is not in wiping storage")
            return
        }
        let text = body.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let verifier = request.codeVerifier.verifier.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(
            text
                == "grant_type=authorization_code&client_id=client1&code=the-code&redirect_uri=myapp%3A%2F%2Fcallback&code_verifier=\(verifier)"
        )
    }

    @Test("token answers: an ID token required, expires_in bounded, a refresh token kept when none is sent")
    func tokenAnswers() throws {
        func answer(_ json: String, previous: String? = nil) throws -> CognitoTokens {
            try CognitoTokenEndpoint.tokens(from: SecureBytes(Array(json.utf8)), previousRefreshToken: previous)
        }
        let tokens = try answer(
            #"{"id_token":"i","access_token":"a","refresh_token":"r","expires_in":3600,"token_type":"Bearer"}"#
        )
        #expect(
            tokens.idToken == "i" && tokens.accessToken == "a" && tokens.refreshToken == "r" && tokens.expiresIn == 3600
        )
        #expect(
            try answer(#"{"id_token":"i","access_token":"a","expires_in":60}"#, previous: "old").refreshToken == "old"
        )
        let noID = #expect(throws: AuthCoreError.self) { try answer(#"{"access_token":"a","expires_in":60}"#) }
        #expect(noID?.code == .malformedResponse)
        #expect(noID?.reason.contains("openid") == true)
        for bad in [
            #"{"id_token":"i","access_token":"a","expires_in":0}"#,
            #"{"id_token":"i","access_token":"a","expires_in":"60"}"#, #"{"id_token":"i","expires_in":60}"#, "not json",
            #"{"id_token":1,"access_token":"a","expires_in":60}"#,
        ] {
            let error = #expect(throws: AuthCoreError.self) { try answer(bad) }
            #expect(error?.code == .malformedResponse, "\(bad)")
        }
    }

    @Test("a secret form value: unreserved bytes as they are, the rest %XX")
    func formBody() throws {
        let body = try CognitoTokenEndpoint.formBody(
            prefix: Array("a=1&t=".utf8),
            secret: SecureBytes(Array("x+y/z=é~".utf8))
        )
        #expect(body.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "a=1&t=x%2By%2Fz%3D%C3%A9~")
    }

    @Test("the logout URL, and its absence without a sign-out URI")
    func logout() throws {
        let hostedUI = try Self.hostedUI(ScriptedTransport([]))
        #expect(
            try hostedUI.logoutURL()
                == "https://auth.example.test/logout?client_id=client1&logout_uri=myapp%3A%2F%2Fsignout"
        )
        let bare = CognitoHostedUI(
            configuration: try CognitoHostedUIConfiguration(
                domain: "https://auth.example.test",
                clientId: "c",
                redirectURI: "myapp://cb"
            ),
            tokenVerifier: hostedUI.tokenVerifier
        )
        #expect(throws: AuthCoreError.self) { try bare.logoutURL() }
    }

    @Test("configuration checks: plain http only to loopback, no path on the domain, scope tokens, a redirect URI")
    func configurationChecks() throws {
        #expect(throws: AuthCoreError.self) {
            try CognitoHostedUIConfiguration(
                domain: "http://auth.example.test",
                clientId: "c",
                redirectURI: "myapp://cb"
            )
        }
        #expect(
            (try? CognitoHostedUIConfiguration(
                domain: "http://127.0.0.1:4566",
                clientId: "c",
                redirectURI: "myapp://cb"
            )) != nil
        )
        #expect(throws: AuthCoreError.self) {
            try CognitoHostedUIConfiguration(
                domain: "https://auth.example.test/x",
                clientId: "c",
                redirectURI: "myapp://cb"
            )
        }
        #expect(throws: AuthCoreError.self) {
            try CognitoHostedUIConfiguration(domain: "auth.example.test", clientId: "c", redirectURI: "my app://cb")
        }
        #expect(throws: AuthCoreError.self) {
            try CognitoHostedUIConfiguration(
                domain: "auth.example.test",
                clientId: "c",
                redirectURI: "myapp://cb",
                scopes: ["open id"]
            )
        }
        #expect(throws: AuthCoreError.self) {
            try CognitoHostedUIConfiguration(domain: "auth.example.test", clientId: "", redirectURI: "myapp://cb")
        }
    }

    @Test("amplify_outputs.json's oauth section: read, and turned into a hosted-UI configuration")
    func amplifyOAuth() throws {
        let text = #"""
            {"version": "1.3", "auth": {"aws_region": "eu-west-1", "user_pool_id": "eu-west-1_Abc", "user_pool_client_id": "client9",
             "oauth": {"identity_providers": ["GOOGLE"], "domain": "myapp.auth.eu-west-1.amazoncognito.com",
                       "scopes": ["openid", "email", "aws.cognito.signin.user.admin"], "redirect_sign_in_uri": ["myapp://signin/", "http://localhost:3000/"],
                       "redirect_sign_out_uri": ["myapp://signout/"], "response_type": "code"}}}
            """#
        let outputs = try AmplifyAuthOutputs(parsing: Array(text.utf8))
        let oauth = try #require(outputs.oauth)
        #expect(oauth.identityProviders == ["GOOGLE"])
        #expect(oauth.redirectSignInURIs == ["myapp://signin/", "http://localhost:3000/"])
        let configuration = try oauth.hostedUIConfiguration(clientId: outputs.userPoolClientId)
        #expect(configuration.domain.origin == "https://myapp.auth.eu-west-1.amazoncognito.com")
        #expect(configuration.redirectURI == "myapp://signin/")
        #expect(configuration.signOutRedirectURI == "myapp://signout/")
        #expect(configuration.scopes == ["openid", "email", "aws.cognito.signin.user.admin"])
        #expect(
            try oauth.hostedUIConfiguration(clientId: "c", redirectURI: "http://localhost:3000/").redirectURI
                == "http://localhost:3000/"
        )
        #expect(throws: AuthCoreError.self) {
            try oauth.hostedUIConfiguration(clientId: "c", redirectURI: "myapp://other/")
        }
        let implicit = try AmplifyAuthOutputs(
            parsing: Array(
                text.replacingOccurrences(of: #""response_type": "code""#, with: #""response_type": "token""#).utf8
            )
        )
        let refused = #expect(throws: AuthCoreError.self) { try implicit.oauth?.hostedUIConfiguration(clientId: "c") }
        #expect(refused?.code == .unsupported)
        let broken = text.replacingOccurrences(of: #""domain": "myapp.auth.eu-west-1.amazoncognito.com","#, with: "")
        #expect(throws: AuthCoreError.self) { try AmplifyAuthOutputs(parsing: Array(broken.utf8)) }
        let without = try AmplifyAuthOutputs(
            parsing: Array(
                #"{"version":"1","auth":{"aws_region":"r","user_pool_id":"r_x","user_pool_client_id":"c"}}"#.utf8
            )
        )
        #expect(without.oauth == nil)
    }

    @Test("a stored hosted-UI session keeps its domain; an unknown sign-in method is refused")
    func storedMethod() throws {
        let tokens = CognitoTokens(idToken: "i", accessToken: "a", refreshToken: "r", expiresIn: 3600)
        let session = CognitoStoredSession(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1",
            username: "alice",
            tokens: tokens,
            expiresAt: Timestamp(secondsSince1970: 1_800_000_000),
            signInMethod: .hostedUI(domain: try RequestURL("https://auth.example.test"))
        )
        let decoded = try CognitoStoredSession(decoding: try session.encoded())
        #expect(decoded.signInMethod == .hostedUI(domain: try RequestURL("https://auth.example.test")))
        let api = CognitoStoredSession(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1",
            username: "alice",
            tokens: tokens,
            expiresAt: Timestamp(secondsSince1970: 1_800_000_000)
        )
        let plain = try api.encoded()
        #expect(
            !plain.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.contains("signInMethod"),
            "an API session is written as before"
        )
        #expect(try CognitoStoredSession(decoding: plain).signInMethod == .api)
        let odd = plain.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.replacingOccurrences(
            of: #""version""#,
            with: #""signInMethod":"magic","version""#
        )
        #expect(throws: AuthCoreError.self) { try CognitoStoredSession(decoding: SecureBytes(Array(odd.utf8))) }
    }

    @Test("Cognito-managed domains: the region's auth and auth-fips names only")
    func managedDomains() throws {
        func managed(_ text: String, _ region: String = "eu-west-1") throws -> Bool {
            CognitoHostedUIConfiguration.isManagedDomain(try RequestURL(text), region: region)
        }
        #expect(try managed("https://myapp.auth.eu-west-1.amazoncognito.com"))
        #expect(try managed("https://My-App2.auth-fips.eu-west-1.amazoncognito.com"))
        #expect(try managed("https://myapp.auth.cn-north-1.amazoncognito.com.cn", "cn-north-1"))
        #expect(try !managed("https://myapp.auth.us-east-1.amazoncognito.com"), "another region")
        #expect(try !managed("http://myapp.auth.eu-west-1.amazoncognito.com"))
        #expect(try !managed("https://myapp.auth.eu-west-1.amazoncognito.com:8443"))
        #expect(try !managed("https://evil.example/.auth.eu-west-1.amazoncognito.com"))
        #expect(try !managed("https://a.b.auth.eu-west-1.amazoncognito.com"), "one label")
        #expect(try !managed("https://auth.eu-west-1.amazoncognito.com.evil.example"))
    }

    @Test("a stored hosted-UI session whose domain is not a Cognito one is not refreshed there (no request is sent)")
    func foreignStoredDomain() async throws {
        let now = Int64(Date().timeIntervalSince1970)
        let tokens = CognitoTokens(
            idToken: unsignedJWT(["exp": now - 5]),
            accessToken: unsignedJWT(["username": "alice", "exp": now - 5, "iat": now - 3605]),
            refreshToken: "refresh",
            expiresIn: 3600
        )
        let store = InMemoryCognitoTokenStore()
        try await store.save(
            CognitoStoredSession(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1",
                username: "alice",
                tokens: tokens,
                expiresAt: Timestamp(secondsSince1970: now - 5),
                signInMethod: .hostedUI(domain: try RequestURL("https://tokens.evil.example"))
            )
        )
        let transport = ScriptedTransport([])
        let session = CognitoSession(
            configuration: try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1",
                clientSecret: SecureBytes(Array("s".utf8))
            ),
            transport: transport,
            store: store,
            retryPolicy: .none
        )
        let error = await #expect(throws: AuthCoreError.self) { try await session.tokens(forceRefresh: true) }
        #expect(error?.code == .invalidParameter, "\(String(describing: error))")
        #expect(transport.sent.isEmpty, "neither the refresh token nor the client secret went anywhere")
    }

    @Test("a token answer whose token_type is not Bearer is refused")
    func tokenType() {
        let error = #expect(throws: AuthCoreError.self) {
            try CognitoTokenEndpoint.tokens(
                from: SecureBytes(
                    Array(#"{"id_token":"i","access_token":"a","expires_in":60,"token_type":"MAC"}"#.utf8)
                ),
                previousRefreshToken: nil
            )
        }
        #expect(error?.code == .malformedResponse)
        #expect(
            (try? CognitoTokenEndpoint.tokens(
                from: SecureBytes(
                    Array(#"{"id_token":"i","access_token":"a","expires_in":60,"token_type":"bearer"}"#.utf8)
                ),
                previousRefreshToken: nil
            )) != nil
        )
    }
}
