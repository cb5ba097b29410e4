import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Cognito user-pool flows against ministack with `AUTH=true` (../shared/spec/peers.md): the server
/// verifies the SRP password claim, `SECRET_HASH`, the flows enabled per client, TOTP codes, custom
/// answers (through real define/create/verify Lambda triggers), sign-up and reset codes, and signs
/// RS256 tokens that `GetUser` checks. Every refusal asserted here comes from the server.
@Suite("Cognito user pools against ministack (verifying server)", .serialized)
struct CognitoMinistackTests {
    let pool: MinistackPool

    init() throws { pool = try MinistackPool.make() }

    @Test("user-srp: the right password signs in (tokens the server accepts); a wrong one is refused by the server")
    func userSRP() async throws {
        let client = try pool.signIn()
        let result = try await client.signIn(username: "alice", password: pool.password("alice"))
        let tokens = try #require(result.tokens)
        #expect(try await pool.api().getUser(accessToken: tokens.accessToken).username == "alice")
        let claims = try pool.verifiedClaims(tokens.idToken)
        #expect(claims["token_use"] as? String == "id")
        #expect(claims["aud"] as? String == pool.clientId)
        #expect(tokens.expiresIn == 3600)
        #expect(tokens.refreshToken != nil)

        let error = try await pool.failure {
            try await client.signIn(username: "alice", password: SecureBytes(Array("Wr0ng-Password!".utf8)))
        }
        let wrong = CognitoErrorProbe(error)
        #expect(wrong.type == "NotAuthorizedException", "\(wrong)")
        #expect(error.requestId?.count == 36, "the x-amzn-RequestId of the refusal")
        #expect(wrong.message == "Incorrect username or password.")
        #expect(await client.holdsPassword == false)
    }

    @Test("user-srp with a client secret: SECRET_HASH checked by the server on every step; a wrong secret is refused")
    func userSRPWithSecret() async throws {
        let client = try pool.signIn(clientId: pool.secretClientId, secret: pool.clientSecret)
        let result = try await client.signIn(username: "bob+é", password: pool.password("bob+é"))
        #expect(result.tokens != nil)
        let wrong = try pool.signIn(clientId: pool.secretClientId, secret: "x" + pool.clientSecret)
        let refused = CognitoErrorProbe(
            try await pool.failure { try await wrong.signIn(username: "bob+é", password: pool.password("bob+é")) }
        )
        #expect(refused.type == "NotAuthorizedException")
        #expect(refused.message.hasPrefix("Unable to verify secret hash"), "\(refused)")
    }

    @Test("flows are enabled per client: the SRP-only client refuses user-password, and signs in with user-srp")
    func flowEnablement() async throws {
        let client = try pool.signIn(clientId: pool.srpOnlyClientId)
        let refused = CognitoErrorProbe(
            try await pool.failure {
                try await client.signIn(username: "carol", password: pool.password("carol"), flow: .userPassword)
            }
        )
        #expect(refused.type == "InvalidParameterException", "\(refused)")
        #expect(try await client.signIn(username: "carol", password: pool.password("carol")).tokens != nil)
    }

    @Test(
        "custom auth with and without SRP (real Lambda triggers): the right answer gives tokens, wrong ones another challenge until the server refuses",
        arguments: [
            CognitoAuthFlow.customWithSRP, .customWithoutSRP,
        ]
    )
    func customAuth(flow: CognitoAuthFlow) async throws {
        let client = try pool.signIn()
        let password = flow == .customWithSRP ? try pool.password("alice") : nil
        let first = try await client.signIn(username: "alice", password: password, flow: flow)
        guard case .nextStep(.confirmSignInWithCustomChallenge(let parameters)) = first else {
            Issue.record("expected a custom challenge, got \(first)")
            return
        }
        #expect(parameters["question"] == "what is the secret word?")
        #expect(try await client.confirmSignIn(challengeResponse: pool.customAnswer).tokens != nil)

        // Wrong answers until the server refuses. Without SRP: two wrong answers are each met with
        // another challenge, the third fails the authentication (the define trigger). With SRP,
        // ministack counts the SRP_A and PASSWORD_VERIFIER rounds among its three attempts
        // (_MAX_CHALLENGE_ATTEMPTS), so the first wrong answer is already refused.
        _ = try await client.signIn(username: "alice", password: password, flow: flow)
        var refusedAt: Int?
        for attempt in 1...5 {
            do {
                let result = try await client.confirmSignIn(challengeResponse: "wrong \(attempt)")
                guard case .nextStep(.confirmSignInWithCustomChallenge) = result else {
                    Issue.record("a wrong answer gave \(result)")
                    return
                }
            } catch {
                #expect(error.serviceErrorType == "NotAuthorizedException", "\(error)")
                refusedAt = attempt
                break
            }
        }
        #expect(refusedAt == (flow == .customWithoutSRP ? 3 : 1))
        #expect(await client.holdsPassword == false)
    }

    @Test("custom with SRP and a wrong password: refused at PASSWORD_VERIFIER by the server")
    func customWithSRPWrongPassword() async throws {
        let client = try pool.signIn()
        let refused = CognitoErrorProbe(
            try await pool.failure {
                try await client.signIn(
                    username: "alice",
                    password: SecureBytes(Array("Wr0ng-Password!".utf8)),
                    flow: .customWithSRP
                )
            }
        )
        #expect(refused.type == "NotAuthorizedException", "\(refused)")
    }

    @Test(
        "TOTP: set up with AssociateSoftwareToken/VerifySoftwareToken (a wrong code refused), then sign-in asks for the code; wrong refused, right signs in"
    )
    func totp() async throws {
        let client = try pool.signIn()
        let api = try pool.api()
        let user = pool.totpUser
        guard let first = try await client.signIn(username: user, password: pool.password(user)).tokens else {
            Issue.record("the TOTP user should sign in before MFA is set up")
            return
        }
        let secret = try await api.associateSoftwareToken(accessToken: first.accessToken)
        #expect(secret.count >= 16)
        let wrongSetup = CognitoErrorProbe(
            try await pool.failure {
                try await api.verifySoftwareToken(accessToken: first.accessToken, code: try pool.wrongTOTP(secret))
            }
        )
        #expect(wrongSetup.code == .serviceError, "\(wrongSetup)")
        try await api.verifySoftwareToken(
            accessToken: first.accessToken,
            code: try pool.totp(secret),
            friendlyDeviceName: "tests"
        )

        let step = try await client.signIn(username: user, password: pool.password(user))
        guard case .nextStep(.confirmSignInWithTOTPCode) = step else {
            Issue.record("expected the TOTP step, got \(step)")
            return
        }
        let wrong = CognitoErrorProbe(
            try await pool.failure { try await client.confirmSignIn(challengeResponse: try pool.wrongTOTP(secret)) }
        )
        #expect(wrong.type == "CodeMismatchException", "\(wrong)")
        #expect(await client.holdsPassword == false)

        let again = try await client.signIn(username: user, password: pool.password(user))
        guard case .nextStep(.confirmSignInWithTOTPCode) = again else {
            Issue.record("expected the TOTP step, got \(again)")
            return
        }
        let tokens = try #require(try await client.confirmSignIn(challengeResponse: try pool.totp(secret)).tokens)
        #expect(try await api.getUser(accessToken: tokens.accessToken).username == user)
    }

    @Test("new password required: the temporary password leads to the step; the new password signs in afterwards")
    func newPasswordRequired() async throws {
        let client = try pool.signIn()
        let step = try await client.signIn(
            username: pool.temporaryUser,
            password: SecureBytes(Array(pool.temporaryPassword.utf8))
        )
        guard case .nextStep(.confirmSignInWithNewPassword) = step else {
            Issue.record("expected confirmSignInWithNewPassword, got \(step)")
            return
        }
        #expect(try await client.confirmSignIn(challengeResponse: "N3w-Password-Chosen!").tokens != nil)
        #expect(
            try await client.signIn(
                username: pool.temporaryUser,
                password: SecureBytes(Array("N3w-Password-Chosen!".utf8))
            ).tokens != nil
        )
        let old = CognitoErrorProbe(
            try await pool.failure {
                try await client.signIn(
                    username: pool.temporaryUser,
                    password: SecureBytes(Array(pool.temporaryPassword.utf8))
                )
            }
        )
        #expect(old.type == "NotAuthorizedException")
    }

    @Test(
        "refresh with REFRESH_TOKEN_AUTH and GetTokensFromRefreshToken (with a client secret): new access tokens the server accepts"
    )
    func refresh() async throws {
        let client = try pool.signIn(clientId: pool.secretClientId, secret: pool.clientSecret)
        let api = try pool.api(clientId: pool.secretClientId, secret: pool.clientSecret)
        let tokens = try #require(try await client.signIn(username: "carol", password: pool.password("carol")).tokens)
        let refreshToken = try #require(tokens.refreshToken)
        let viaInitiateAuth = try await client.refresh(refreshToken: refreshToken, username: "carol")
        #expect(viaInitiateAuth.accessToken != tokens.accessToken)
        #expect(try await api.getUser(accessToken: viaInitiateAuth.accessToken).username == "carol")
        let viaGetTokens = try await api.tokensFromRefreshToken(refreshToken)
        #expect(try await api.getUser(accessToken: viaGetTokens.accessToken).username == "carol")
        // ministack does not rotate refresh tokens (peers.md): no new one comes back.
        #expect(viaGetTokens.refreshToken == nil)
    }

    @Test("GlobalSignOut and RevokeToken: afterwards the server refuses the old refresh token and access token")
    func signOutAndRevoke() async throws {
        let client = try pool.signIn()
        let api = try pool.api()
        let global = try #require(try await client.signIn(username: "carol", password: pool.password("carol")).tokens)
        try await api.globalSignOut(accessToken: global.accessToken)
        let refused = CognitoErrorProbe(
            try await pool.failure { try await client.refresh(refreshToken: try #require(global.refreshToken)) }
        )
        #expect(refused.type == "NotAuthorizedException", "\(refused)")
        let user = CognitoErrorProbe(try await pool.failure { try await api.getUser(accessToken: global.accessToken) })
        #expect(user.type == "NotAuthorizedException", "\(user)")

        let local = try #require(try await client.signIn(username: "carol", password: pool.password("carol")).tokens)
        try await api.revokeToken(try #require(local.refreshToken))
        let revoked = CognitoErrorProbe(
            try await pool.failure { try await api.tokensFromRefreshToken(try #require(local.refreshToken)) }
        )
        #expect(revoked.type == "NotAuthorizedException", "\(revoked)")
        #expect(revoked.message == "Refresh Token has been revoked", "\(revoked)")
    }

    @Test("sign-up: not confirmed until ConfirmSignUp with the code sent (a wrong code refused); then it signs in")
    func signUp() async throws {
        let api = try pool.api()
        let client = try pool.signIn()
        let password = SecureBytes(Array("S1gned-Up-Pa55!".utf8))
        let created = try await api.signUp(
            username: "dave",
            password: password,
            attributes: ["email": "dave@example.com"]
        )
        #expect(created.userConfirmed == false)
        let unconfirmed = try await client.signIn(username: "dave", password: password)
        guard case .nextStep(.confirmSignUp) = unconfirmed else {
            Issue.record("expected confirmSignUp, got \(unconfirmed)")
            return
        }
        let wrong = CognitoErrorProbe(
            try await pool.failure { try await api.confirmSignUp(username: "dave", code: "000000") }
        )
        #expect(wrong.type == "CodeMismatchException", "\(wrong)")
        try await api.confirmSignUp(username: "dave", code: try pool.lastCode(sentTo: "dave@example.com"))
        #expect(try await client.signIn(username: "dave", password: password).tokens != nil)
    }

    @Test(
        "forgot password: ConfirmForgotPassword with the code sent (a wrong code refused); the new password signs in, the old is refused"
    )
    func forgotPassword() async throws {
        let api = try pool.api()
        let client = try pool.signIn()
        _ = try await api.forgotPassword(username: "alice")
        let newPassword = SecureBytes(Array("R3set-Pa55word!".utf8))
        let wrong = CognitoErrorProbe(
            try await pool.failure {
                try await api.confirmForgotPassword(username: "alice", code: "000000", newPassword: newPassword)
            }
        )
        #expect(wrong.type == "CodeMismatchException", "\(wrong)")
        try await api.confirmForgotPassword(
            username: "alice",
            code: try pool.lastCode(sentTo: "alice@example.com"),
            newPassword: newPassword
        )
        #expect(try await client.signIn(username: "alice", password: newPassword).tokens != nil)
        let old = CognitoErrorProbe(
            try await pool.failure { try await client.signIn(username: "alice", password: pool.password("alice")) }
        )
        #expect(old.type == "NotAuthorizedException")
    }
}

/// An error's code, Cognito type and message, for assertions.
struct CognitoErrorProbe: CustomStringConvertible {
    let code: AuthCoreError.Code
    let type: String?
    let message: String
    init(_ error: AuthCoreError) {
        code = error.code
        type = error.serviceErrorType
        message = error.reason.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? error.reason
    }
    var description: String { "\(code) \(type ?? "-"): \(message)" }
}

extension CognitoSignInResult {
    /// The tokens of a finished sign-in, nil for a next step.
    var tokens: CognitoTokens? {
        if case .signedIn(let tokens) = self { return tokens }
        return nil
    }
}

/// A fresh user pool in ministack (scripts/cognito_ministack.py setup), with helpers that ask the
/// Python side: TOTP codes (stdlib hmac), the codes ministack "sent", PyJWT's check of a token.
struct MinistackPool {
    let endpoint: String
    let region: String
    let poolId: String
    let clientId: String
    let secretClientId: String
    let clientSecret: String
    let srpOnlyClientId: String
    let shortClientId: String
    let users: [String: String]
    let temporaryUser: String
    let temporaryPassword: String
    let totpUser: String
    let customAnswer: String

    static func make() throws -> MinistackPool {
        let object = try helper(["setup"])
        func text(_ key: String) -> String { object[key] as? String ?? "" }
        return MinistackPool(
            endpoint: text("endpoint"),
            region: text("region"),
            poolId: text("poolId"),
            clientId: text("clientId"),
            secretClientId: text("secretClientId"),
            clientSecret: text("clientSecret"),
            srpOnlyClientId: text("srpOnlyClientId"),
            shortClientId: text("shortClientId"),
            users: object["users"] as? [String: String] ?? [:],
            temporaryUser: text("temporaryUser"),
            temporaryPassword: text("temporaryPassword"),
            totpUser: text("totpUser"),
            customAnswer: text("customAnswer")
        )
    }

    static func helperOutput(_ arguments: [String]) throws -> String {
        _ = try peerEnvironment("AUTHCORE_MINISTACK_URL")
        let result = try run(
            venvPython,
            [repositoryRoot.appendingPathComponent("scripts/cognito_ministack.py").path] + arguments
        )
        guard result.status == 0 else {
            throw PeerError(description: "cognito_ministack.py \(arguments.first ?? "") failed: \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func helper(_ arguments: [String]) throws -> [String: Any] {
        let output = try helperOutput(arguments)
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw PeerError(description: "cognito_ministack.py \(arguments.first ?? "") printed no JSON object")
        }
        return object
    }

    func configuration(clientId: String? = nil, secret: String? = nil) throws -> CognitoUserPoolConfiguration {
        try CognitoUserPoolConfiguration(
            region: region,
            userPoolId: poolId,
            clientId: clientId ?? self.clientId,
            clientSecret: secret.map { SecureBytes(Array($0.utf8)) },
            endpoint: endpoint
        )
    }

    func signIn(clientId: String? = nil, secret: String? = nil) throws -> CognitoSignIn {
        CognitoSignIn(configuration: try configuration(clientId: clientId, secret: secret))
    }

    func api(clientId: String? = nil, secret: String? = nil) throws -> CognitoIdentityProviderAPI {
        CognitoIdentityProviderAPI(configuration: try configuration(clientId: clientId, secret: secret))
    }

    func password(_ user: String) throws -> SecureBytes {
        guard let text = users[user] else { throw PeerError(description: "no user \(user) in the pool") }
        return SecureBytes(Array(text.utf8))
    }

    func totp(_ secret: String) throws -> String { try Self.helperOutput(["totp", secret]) }

    /// A code for ten steps (5 minutes) ahead: outside the ±1 step window the server accepts.
    func wrongTOTP(_ secret: String) throws -> String { try Self.helperOutput(["totp", secret, "10"]) }

    func lastCode(sentTo address: String) throws -> String { try Self.helperOutput(["code", address]) }

    /// The claims of `token` after PyJWT checked its RS256 signature against the pool's JWKS.
    func verifiedClaims(_ token: String) throws -> [String: Any] { try Self.helper(["verify-jwt", poolId, token]) }

    /// The typed error `body` throws (a test failure when it does not throw).
    func failure(_ body: () async throws -> Any) async throws -> AuthCoreError {
        do {
            let value = try await body()
            throw PeerError(description: "expected a refusal, got \(value)")
        } catch let error as AuthCoreError {
            return error
        }
    }
}

/// The app-grade session against ministack: persisted in a file, restored by a new process-like
/// instance, refreshed before expiry (one refresh for concurrent callers), ended by sign-out so that
/// the server refuses the old refresh token.
@Suite("Cognito session against ministack: persistence, refresh, sign-out", .serialized)
struct CognitoSessionMinistackTests {
    let pool: MinistackPool

    init() throws { pool = try MinistackPool.make() }

    func temporaryStorePath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-session-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("session.json").path
    }

    func session(
        path: String,
        clientId: String? = nil,
        secret: String? = nil,
        clockOffset: Int64 = 0,
        method: CognitoSession.RefreshMethod = .getTokensFromRefreshToken
    ) throws -> CognitoSession {
        CognitoSession(
            configuration: try pool.configuration(clientId: clientId, secret: secret),
            store: try FileCognitoTokenStore(path: path),
            clock: OffsetClock(SystemClock(), offsetSeconds: clockOffset),
            refreshMethod: method
        )
    }

    @Test(
        "a session survives a restart through the file store (0600) and refreshes itself, once for concurrent callers"
    )
    func persistAndRefresh() async throws {
        let path = try temporaryStorePath()
        let first = try session(path: path, clientId: pool.shortClientId)
        let before = Timestamp.now()
        let signedIn = try #require(try await first.signIn(username: "carol", password: pool.password("carol")).tokens)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        guard case .signedIn(let username, let expiresAt) = try await first.status() else {
            Issue.record("not signed in after sign-in")
            return
        }
        #expect(username == "carol")
        // 60-second tokens: the expiry is the earlier of ExpiresIn after the request and the tokens' exp claims.
        let exp = try #require(try JWTClaims(token: signedIn.accessToken).time("exp"))
        #expect(expiresAt <= exp)
        let lifetime = before.seconds(until: expiresAt)
        #expect((59...61).contains(lifetime) || expiresAt == exp, "\(lifetime)")

        // "The next launch": a new session over the same file, its clock 40 s ahead, so less than
        // half the 60-s lifetime remains and the tokens are refreshed, by one refresh for all callers.
        let restarted = try session(path: path, clientId: pool.shortClientId, clockOffset: 40)
        guard case .signedIn = try await restarted.status() else {
            Issue.record("the restored session is not signed in")
            return
        }
        let results = try await withThrowingTaskGroup(of: CognitoTokens.self) { group in
            for _ in 0..<6 { group.addTask { try await restarted.tokens() } }
            return try await group.reduce(into: [CognitoTokens]()) { $0.append($1) }
        }
        #expect(await restarted.refreshCount == 1)
        #expect(Set(results.map(\.accessToken)).count == 1)
        let refreshed = try #require(results.first)
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(
            refreshed.refreshToken == signedIn.refreshToken,
            "ministack does not rotate: the old refresh token is kept"
        )
        #expect(
            try await pool.api(clientId: pool.shortClientId).getUser(accessToken: refreshed.accessToken).username
                == "carol"
        )
        // The refreshed tokens were written back: a third instance reads them.
        let third = try session(path: path, clientId: pool.shortClientId)
        #expect(try await third.tokens().accessToken == refreshed.accessToken)
        #expect(await third.refreshCount == 0)
    }

    @Test(
        "REFRESH_TOKEN_AUTH with a client secret (SECRET_HASH from the access token's username) refreshes the session"
    )
    func refreshTokenAuthWithSecret() async throws {
        let path = try temporaryStorePath()
        let session = try session(
            path: path,
            clientId: pool.secretClientId,
            secret: pool.clientSecret,
            method: .refreshTokenAuth
        )
        let signedIn = try #require(
            try await session.signIn(username: "bob+é", password: pool.password("bob+é")).tokens
        )
        let refreshed = try await session.tokens(forceRefresh: true)
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(await session.refreshCount == 1)
        #expect(try await pool.api().getUser(accessToken: refreshed.accessToken).username == "bob+é")
    }

    @Test(
        "sign-out revokes the refresh token (the server refuses it afterwards) and removes the file; global sign-out too"
    )
    func signOut() async throws {
        for global in [false, true] {
            let path = try temporaryStorePath()
            let session = try session(path: path)
            let tokens = try #require(
                try await session.signIn(username: "carol", password: pool.password("carol")).tokens
            )
            guard case .complete = await session.signOut(global: global) else {
                Issue.record("sign-out (global: \(global)) was not complete")
                return
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await session.status() == .signedOut)
            let refused = CognitoErrorProbe(
                try await pool.failure {
                    try await pool.api().tokensFromRefreshToken(try #require(tokens.refreshToken))
                }
            )
            #expect(refused.type == "NotAuthorizedException", "global \(global): \(refused)")
            let user = CognitoErrorProbe(
                try await pool.failure { try await pool.api().getUser(accessToken: tokens.accessToken) }
            )
            #expect(user.type == "NotAuthorizedException", "global \(global): \(user)")
            let noTokens = try await pool.failure { try await session.tokens() }
            #expect(noTokens.code == .credentialsUnavailable)
        }
    }

    @Test("a refresh the server refuses (signed out elsewhere) ends the session and forgets the file")
    func refusedRefreshEndsSession() async throws {
        let path = try temporaryStorePath()
        let session = try session(path: path)
        let tokens = try #require(try await session.signIn(username: "carol", password: pool.password("carol")).tokens)
        try await pool.api().globalSignOut(accessToken: tokens.accessToken)
        let refused = CognitoErrorProbe(try await pool.failure { try await session.tokens(forceRefresh: true) })
        #expect(refused.type == "NotAuthorizedException", "\(refused)")
        #expect(try await session.status() == .signedOut)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// Backend token verification against ministack's real RS256 tokens and its JWKS, and against
/// tampered tokens made from them.
@Suite("Cognito token verification against ministack's JWKS")
struct CognitoTokenVerifierMinistackTests {
    let pool: MinistackPool

    init() throws { pool = try MinistackPool.make() }

    func verifier(clientIds: Set<String>? = nil) throws -> CognitoTokenVerifier {
        try CognitoTokenVerifier(
            region: pool.region,
            userPoolId: pool.poolId,
            clientIds: clientIds ?? [pool.clientId, pool.shortClientId],
            endpoint: pool.endpoint
        )
    }

    func signedIn(clientId: String? = nil) async throws -> CognitoTokens {
        let result = try await pool.signIn(clientId: clientId).signIn(
            username: "carol",
            password: pool.password("carol"),
            flow: .userPassword
        )
        return try #require(result.tokens)
    }

    /// `token` with its payload replaced by `change(claims)` (signature kept).
    static func replacingPayload(_ token: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        let payloadData = try #require(base64URLDecode(parts[1]))
        var claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
        change(&claims)
        let payload = base64URLEncode(try JSONSerialization.data(withJSONObject: claims))
        return [parts[0], payload, parts[2]].joined(separator: ".")
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test(
        "real ID and access tokens verify (one JWKS fetch for both); each is refused as the other kind and for another client"
    )
    func realTokens() async throws {
        let tokens = try await signedIn()
        let verifier = try verifier()
        let id = try await verifier.verify(tokens.idToken, as: .id)
        #expect(id.string("cognito:username") == "carol" || id.string("email") == "carol@example.com")
        let access = try await verifier.verify(tokens.accessToken, as: .access)
        #expect(access.string("username") == "carol")
        #expect(await verifier.fetchCount == 1)
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await verifier.verify(tokens.idToken, as: .access)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await verifier.verify(tokens.accessToken, as: .id)
        }
        let other = try self.verifier(clientIds: ["some-other-client"])
        await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await other.verify(tokens.idToken, as: .id) }
    }

    @Test(
        "tampered tokens are refused: changed claims, a changed signature, alg none, HS256 keyed with the public key, an unknown kid"
    )
    func tamperedTokens() async throws {
        let tokens = try await signedIn()
        let verifier = try verifier()
        let elevated = try Self.replacingPayload(tokens.accessToken) { $0["username"] = "admin" }
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await verifier.verify(elevated, as: .access)
        }
        var parts = tokens.accessToken.split(separator: ".").map(String.init)
        var signature = try #require(Self.base64URLDecode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        parts[2] = Self.base64URLEncode(signature)
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await verifier.verify(parts.joined(separator: "."), as: .access)
        }

        let headerData = try #require(Self.base64URLDecode(parts[0]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        func withHeader(_ change: (inout [String: Any]) -> Void, signature: String) throws -> String {
            var copy = header
            change(&copy)
            return [Self.base64URLEncode(try JSONSerialization.data(withJSONObject: copy)), parts[1], signature].joined(
                separator: "."
            )
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await verifier.verify(try withHeader({ $0["alg"] = "none" }, signature: ""), as: .access)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await verifier.verify(try withHeader({ $0["alg"] = "HS256" }, signature: parts[2]), as: .access)
        }
        // An unknown kid 31 s after the first fetch: one refetch of the key set, then refused; a second
        // unknown kid right after makes no fetch (at most one per 30 s).
        let clock = ManualClock(Timestamp.now())
        let counted = try CognitoTokenVerifier(
            region: pool.region,
            userPoolId: pool.poolId,
            clientIds: [pool.clientId],
            endpoint: pool.endpoint,
            clock: clock
        )
        _ = try await counted.verify(tokens.accessToken, as: .access)
        #expect(await counted.fetchCount == 1)
        clock.advance(seconds: 31)
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await counted.verify(try withHeader({ $0["kid"] = "forged-1" }, signature: parts[2]), as: .access)
        }
        #expect(await counted.fetchCount == 2)
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await counted.verify(try withHeader({ $0["kid"] = "forged-2" }, signature: parts[2]), as: .access)
        }
        #expect(await counted.fetchCount == 2)
        await #expect(throws: AuthCoreError(.malformedInput, "")) {
            try await verifier.verify("not-a-jwt", as: .access)
        }
    }

    @Test("a token is refused 61 s after its exp (60 s leeway) and accepted 59 s after")
    func expiry() async throws {
        let tokens = try await signedIn(clientId: pool.shortClientId)
        let exp = try #require(try JWTClaims(token: tokens.accessToken).time("exp"))
        func verifier(at time: Timestamp) throws -> CognitoTokenVerifier {
            try CognitoTokenVerifier(
                region: pool.region,
                userPoolId: pool.poolId,
                clientIds: [pool.shortClientId],
                endpoint: pool.endpoint,
                clock: FixedClock(time)
            )
        }
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await verifier(at: exp.adding(seconds: 61)).verify(tokens.accessToken, as: .access)
        }
        _ = try await verifier(at: exp.adding(seconds: 59)).verify(tokens.accessToken, as: .access)
    }
}

/// The `authcore cognito` commands against ministack: sign-in into a store, the pending step in a
/// session file answered by a second process, session and sign-out.
@Suite("authcore cognito against ministack: store, session file, session, sign-out", .serialized)
struct CognitoCLIMinistackTests {
    let pool: MinistackPool
    let directory: String

    init() throws {
        pool = try MinistackPool.make()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        directory = url.path
    }

    func object(_ result: ProcessResult) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stdout) \(result.stderr)"
        )
    }

    func signIn(
        _ extra: [String],
        username: String = "carol",
        password: String? = nil,
        flow: String = "user-srp"
    ) throws -> ProcessResult {
        try authcore(
            [
                "cognito", "sign-in", "--region", pool.region, "--user-pool-id", pool.poolId, "--client-id",
                pool.clientId, "--username", username,
                "--flow", flow, "--endpoint", pool.endpoint,
            ] + extra,
            environment: ["COGNITO_PASSWORD": password ?? pool.users[username]]
        )
    }

    @Test(
        "sign-in --store, then session (refreshing if needed) and sign-out; afterwards the server refuses the refresh token"
    )
    func storeSessionSignOut() async throws {
        let store = directory + "/session.json"
        let signedIn = try signIn(["--store", store])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: store)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let refreshToken = try #require((try object(signedIn)["tokens"] as? [String: Any])?["refreshToken"] as? String)

        let session = try authcore(["cognito", "session", "--store", store, "--endpoint", pool.endpoint])
        #expect(session.status == 0, "\(session.stderr)")
        let status = try object(session)
        #expect(status["status"] as? String == "signedIn")
        #expect(status["tokens"] == nil, "tokens only with --show-secrets")
        let expiresAt = try #require(status["expiresAt"] as? String)
        #expect(try Timestamp(iso8601: expiresAt) > Timestamp.now())
        let secrets = try object(
            try authcore(["cognito", "session", "--store", store, "--endpoint", pool.endpoint, "--show-secrets"])
        )
        let accessToken = try #require((secrets["tokens"] as? [String: Any])?["accessToken"] as? String)
        #expect(try await pool.api().getUser(accessToken: accessToken).username == "carol")

        let signOut = try authcore(["cognito", "sign-out", "--store", store, "--endpoint", pool.endpoint])
        #expect(signOut.status == 0, "\(signOut.stderr)")
        #expect(signOut.stdout == "{\"status\":\"signedOut\"}\n")
        #expect(!FileManager.default.fileExists(atPath: store))
        let after = try authcore(["cognito", "session", "--store", store, "--endpoint", pool.endpoint])
        #expect(after.status == 1)
        let refused = CognitoErrorProbe(
            try await pool.failure { try await pool.api().tokensFromRefreshToken(refreshToken) }
        )
        #expect(refused.type == "NotAuthorizedException", "\(refused)")
    }

    @Test(
        "a next step goes to --session-file (0600); confirm-sign-in in another process answers it: wrong gives another step, right signs in"
    )
    func sessionFile() throws {
        let step = directory + "/step.json"
        let store = directory + "/custom.json"
        let first = try signIn(
            ["--session-file", step, "--store", store],
            username: "alice",
            flow: "custom-without-srp"
        )
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            (try object(first)["nextStep"] as? [String: Any])?["type"] as? String == "confirmSignInWithCustomChallenge"
        )
        let attributes = try FileManager.default.attributesOfItem(atPath: step)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: store))

        func confirm(_ answer: String, viaStandardInput: Bool = false) throws -> ProcessResult {
            try authcore(
                ["cognito", "confirm-sign-in", "--session-file", step, "--store", store, "--endpoint", pool.endpoint],
                stdin: viaStandardInput ? answer + "\n" : nil,
                environment: ["COGNITO_CHALLENGE_RESPONSE": viaStandardInput ? nil : answer]
            )
        }
        // A network failure (nothing listens on port 1) leaves the step to be answered again.
        let unreachable = try authcore(
            ["cognito", "confirm-sign-in", "--session-file", step, "--endpoint", "http://127.0.0.1:1/"],
            environment: ["COGNITO_CHALLENGE_RESPONSE": "not it"]
        )
        #expect(unreachable.status == 1)
        #expect(FileManager.default.fileExists(atPath: step))
        let wrong = try confirm("not it")
        #expect(wrong.status == 0, "\(wrong.stderr)")
        #expect(try object(wrong)["status"] as? String == "nextStep")
        let right = try confirm(pool.customAnswer, viaStandardInput: true)
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try object(right)["status"] as? String == "signedIn")
        #expect(!FileManager.default.fileExists(atPath: step), "the answered step is removed")
        #expect(FileManager.default.fileExists(atPath: store), "the session is stored")
        let again = try confirm(pool.customAnswer)
        #expect(again.status == 1, "no step waits any more")
    }

    @Test(
        "a wrong password exits 1 with the server's refusal and stores nothing; --amplify-outputs configures the pool"
    )
    func refusalsAndAmplifyOutputs() throws {
        let store = directory + "/wrong.json"
        let wrong = try signIn(["--store", store], password: "Wr0ng-Password!")
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "error: NotAuthorizedException: Incorrect username or password.\n", "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))

        let outputs = directory + "/amplify_outputs.json"
        let text =
            #"{"version":"1.3","auth":{"aws_region":"\#(pool.region)","user_pool_id":"\#(pool.poolId)","user_pool_client_id":"\#(pool.clientId)","mfa_methods":["TOTP"],"username_attributes":["email"]}}"#
        #expect(FileManager.default.createFile(atPath: outputs, contents: Data(text.utf8)))
        let configured = try authcore(
            ["cognito", "sign-in", "--amplify-outputs", outputs, "--username", "carol", "--endpoint", pool.endpoint],
            environment: ["COGNITO_PASSWORD": pool.users["carol"]]
        )
        #expect(configured.status == 0, "\(configured.stderr)")
        let parsed = try AmplifyAuthOutputs(contentsOfFile: outputs)
        #expect(parsed.mfaMethods == ["TOTP"])
        #expect(parsed.identityPoolId == nil)
    }
}
