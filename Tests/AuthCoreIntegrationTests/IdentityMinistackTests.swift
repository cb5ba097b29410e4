import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Identity pools against ministack with `AUTH=true` (peers.md): with a user-pool ID token as the
/// login it refuses a key that is not a registered provider, an `iss` that does not match the key, a
/// tampered signature and a token without `aud` (an access token); it links logins to identities and
/// refuses an identity's credentials without one of its own logins (`Logins don't match`, `Access to
/// Identity … is forbidden`); its `GetOpenIdToken` answers RS256 JWTs; the credentials it vends are
/// STS sessions its own SigV4 check accepts. Each test makes fresh pools (scripts/cognito_ministack.py
/// identity-setup). It does not implement `GetOpenIdTokenForDeveloperIdentity` (moto: IdentityDeveloperBackendTests).
@Suite("Identity pools against ministack (verifying server)", .serialized)
struct IdentityMinistackTests {
    let setup: [String: Any]
    let endpoint: String

    init() throws {
        setup = try MinistackPool.helper(["identity-setup"])
        endpoint = try #require(setup["endpoint"] as? String)
    }

    func text(_ key: String) throws -> String { try #require(setup[key] as? String, "identity-setup gave no \(key)") }
    var identityPoolId: String { get throws { try text("identityPoolId") } }
    var providerKey: String { get throws { "cognito-idp.us-east-1.amazonaws.com/\(try text("poolId"))" } }
    var client: CognitoIdentityClient {
        get throws { try CognitoIdentityClient(region: "us-east-1", endpoint: endpoint) }
    }

    func session(_ user: String) async throws -> CognitoSession {
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: try text("poolId"),
            clientId: try text("clientId"),
            endpoint: endpoint
        )
        let session = CognitoSession(configuration: configuration)
        let password = try #require((setup["users"] as? [String: String])?[user])
        _ = try await session.signIn(username: user, password: SecureBytes(Array(password.utf8)), flow: .userPassword)
        return session
    }

    func makeProvider(
        _ login: any IdentityLoginSource,
        store: any CognitoIdentityStore = InMemoryCognitoIdentityStore()
    ) throws -> CognitoIdentityCredentialsProvider {
        CognitoIdentityCredentialsProvider(
            client: try client,
            identityPoolId: try identityPoolId,
            login: login,
            store: store,
            timeLimit: patientTimeLimit
        )
    }

    /// The service's refusal of `body`.
    func refusal(_ body: () async throws -> Any) async throws -> AuthCoreError {
        do {
            let value = try await body()
            throw PeerError(description: "expected a refusal, got \(value)")
        } catch let error as AuthCoreError {
            return error
        }
    }

    /// `sts GetCallerIdentity` signed with `credentials` (ministack checks the signature and the session token).
    func callerArn(_ credentials: Credentials) throws -> String {
        let result = try authcore(
            [
                "sigv4", "send", "--region", "us-east-1", "--service", "sts", "-H",
                "Content-Type: application/x-www-form-urlencoded",
                "-d", "Action=GetCallerIdentity&Version=2011-06-15", endpoint,
            ],
            environment: [
                "AWS_ACCESS_KEY_ID": credentials.accessKeyId,
                "AWS_SECRET_ACCESS_KEY": credentials.secretAccessKey.withUnsafeBytes {
                    String(decoding: $0, as: UTF8.self)
                },
                "AWS_SESSION_TOKEN": credentials.sessionToken,
            ]
        )
        guard result.status == 0, let start = result.stdout.range(of: "<Arn>"),
            let end = result.stdout.range(of: "</Arn>")
        else {
            throw PeerError(description: "GetCallerIdentity failed: \(result.stderr) \(result.stdout.prefix(300))")
        }
        return String(result.stdout[start.upperBound..<end.lowerBound])
    }

    @Test(
        "the user-pool bridge: a signed-in session's ID token, keyed by its iss, gives credentials ministack's STS accepts; refreshed with the session"
    )
    func bridge() async throws {
        let alice = try await session("alice")
        let provider = try makeProvider(IdentityLogin.userPool(alice))
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyId.hasPrefix("ASIA"))
        #expect(
            try callerArn(credentials).hasSuffix("/CognitoIdentityCredentials"),
            "an assumed-role session of the pool's role"
        )
        let id = try #require(await provider.currentIdentityId())
        #expect(
            try CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: try await alice.tokens().idToken)
                == (try providerKey)
        )
        // The session refreshes its tokens; the next credentials come from the new ID token, same identity.
        _ = try await alice.tokens(forceRefresh: true)
        await provider.clearCredentials()
        let again = try await provider.credentials()
        #expect(again.accessKeyId != credentials.accessKeyId)
        #expect(try await provider.identityId() == id)
        // An access token in place of the ID token is refused locally, before anything is sent.
        struct AccessTokenSource: CognitoIDTokenSource {
            let session: CognitoSession
            func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String {
                try await session.tokens().accessToken
            }
        }
        let wrongToken = try makeProvider(IdentityLogin.userPool(AccessTokenSource(session: alice)))
        let local = try await refusal { try await wrongToken.credentials() }
        #expect(local.code == .invalidParameter, "\(local)")
        #expect(local.reason.contains("'access' token"), "\(local.reason)")
    }

    @Test(
        "ministack's checks of a user-pool login: unregistered key, issuer mismatch, tampered signature, access token — each refused; the right one accepted"
    )
    func issuerChecks() async throws {
        let alice = try await session("alice")
        let tokens = try await alice.tokens()
        let client = try client
        let pool = try identityPoolId
        let key = try providerKey
        let id = try await client.getId(identityPoolId: pool, logins: [key: tokens.idToken])
        #expect(id.hasPrefix("us-east-1:"))
        _ = try await client.credentialsForIdentity(identityId: id, logins: [key: tokens.idToken])
        var tampered = Array(tokens.idToken.utf8)
        tampered[tampered.count - 5] =
            tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let cases: [(String, [String: String], String)] = [
            (
                "a key that is not a registered provider",
                ["cognito-idp.us-east-1.amazonaws.com/us-east-1_NotRegistered": tokens.idToken],
                "Token is not from a supported provider of this identity pool."
            ),
            (
                "another registered pool's key",
                ["cognito-idp.us-east-1.amazonaws.com/\(try text("otherPoolId"))": tokens.idToken],
                "Invalid login token. Issuer doesn't match providerName"
            ),
            (
                "a tampered signature", [key: String(decoding: tampered, as: UTF8.self)],
                "Invalid login token. Token signature invalid."
            ),
            ("the access token", [key: tokens.accessToken], "Invalid login token. Missing a required claim: aud"),
        ]
        for (what, logins, message) in cases {
            let error = try await refusal { try await client.credentialsForIdentity(identityId: id, logins: logins) }
            #expect(error.serviceErrorType == "NotAuthorizedException", "\(what): \(error)")
            #expect(error.reason.contains(message), "\(what): \(error.reason)")
        }
        // The library's own checks catch the issuer and token-type mistakes before sending.
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: tokens.accessToken)
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try CognitoIdentityIssuer.loginsKey(
                for: tokens.idToken,
                explicitKey: "cognito-idp.us-east-1.amazonaws.com/\(try text("otherPoolId"))",
                region: "us-east-1"
            )
        }
        // GetOpenIdToken: an RS256 JWT from the Cognito identity issuer, keyed as the library expects.
        let openId = try await client.getOpenIdToken(identityId: id, logins: [key: tokens.idToken])
        let header =
            try JSONSerialization.jsonObject(
                with: Data(try Base64.decode(openId.split(separator: ".")[0], alphabet: .urlSafe, field: "header"))
            ) as? [String: Any]
        #expect(header?["alg"] as? String == "RS256")
        #expect(try JWTClaims(token: openId).issuer == "https://cognito-identity.amazonaws.com")
        #expect(try JWTClaims(token: openId).string("sub") == id)
        #expect(
            try CognitoIdentityIssuer.loginsKey(for: openId, explicitKey: nil, region: "us-east-1")
                == "cognito-identity.amazonaws.com"
        )
    }

    @Test(
        "switching against the service's linking rules: guest → user keeps the identity; user → other user needs clearIdentity; user → guest too"
    )
    func switching() async throws {
        let alice = try await session("alice")
        let bob = try await session("bob")
        let provider = try makeProvider(IdentityLogin.unauthenticated)
        _ = try await provider.credentials()
        let guest = try #require(await provider.currentIdentityId())
        // Unauthenticated → authenticated, keeping the identity: ministack links alice's login to it.
        try await provider.switchLogin(to: IdentityLogin.userPool(alice), keepingIdentity: true)
        _ = try await provider.credentials()
        #expect(try await provider.identityId() == guest)
        // Alice → bob keeping the identity: the identity holds alice's login, so the service refuses.
        try await provider.switchLogin(to: IdentityLogin.userPool(bob), keepingIdentity: true)
        let mismatch = try await refusal { try await provider.credentials() }
        #expect(mismatch.serviceErrorType == "NotAuthorizedException")
        #expect(mismatch.reason.contains("Logins don't match"), "\(mismatch.reason)")
        // … and with clearIdentity (keepingIdentity: false) bob gets his own identity.
        try await provider.switchLogin(to: IdentityLogin.userPool(bob), keepingIdentity: false)
        _ = try await provider.credentials()
        let bobs = try await provider.identityId()
        #expect(bobs != guest)
        // Bob → unauthenticated keeping the identity: forbidden (it holds a login); cleared, a new guest.
        try await provider.switchLogin(to: IdentityLogin.unauthenticated, keepingIdentity: true)
        let forbidden = try await refusal { try await provider.credentials() }
        #expect(forbidden.reason.contains("Access to Identity '\(bobs)' is forbidden"), "\(forbidden.reason)")
        try await provider.clearIdentity()
        _ = try await provider.credentials()
        let newGuest = try await provider.identityId()
        #expect(newGuest != guest && newGuest != bobs)
        // Back to alice (cleared): GetId finds the identity her login is linked to, the first guest's.
        try await provider.switchLogin(to: IdentityLogin.userPool(alice), keepingIdentity: false)
        _ = try await provider.credentials()
        #expect(try await provider.identityId() == guest)
    }

    @Test(
        "persistence across processes: two CLI runs with one --identity-store print the same identity; credentials use it; another store, another identity"
    )
    func persistenceAcrossRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-idstore-\(UUID().uuidString)"
        ).path
        let other = directory + "-other"
        for path in [directory, other] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        defer { for path in [directory, other] { try? FileManager.default.removeItem(atPath: path) } }
        let pool = try identityPoolId
        func getId(_ store: String) throws -> String {
            let result = try authcore([
                "identity", "get-id", "--region", "us-east-1", "--identity-pool-id", pool, "--identity-store", store,
                "--endpoint", endpoint,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return try #require(object?["identityId"] as? String, "\(result.stdout)")
        }
        let first = try getId(directory)
        #expect(try getId(directory) == first)
        #expect(try getId(other) != first)
        let credentials = try authcore(
            [
                "identity", "credentials", "--region", "us-east-1", "--identity-pool-id", pool, "--identity-store",
                directory, "--endpoint", endpoint,
                "--format", "credential-process",
            ])
        #expect(credentials.status == 0, "\(credentials.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(credentials.stdout.utf8)) as? [String: Any]
        )
        #expect(Set(object.keys) == ["Version", "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"])
        #expect(object["Version"] as? Int == 1)
        #expect(try getId(directory) == first, "the credentials run kept the stored identity")
        // The file is the library's store: a provider in this process reads the same id.
        #expect(try await FileCognitoIdentityStore(directory: directory).identityId(forPool: pool) == first)
        // An authenticated run with a user-pool ID token from a file, keyed by its iss.
        let token = try await session("alice").tokens().idToken
        let tokenFile = try temporaryFile(token, name: "id-token")
        let signedIn = try authcore(
            [
                "identity", "credentials", "--region", "us-east-1", "--identity-pool-id", pool, "--token-file",
                tokenFile, "--endpoint", endpoint,
            ])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout.contains("\"accessKeyId\":\"ASIA"), "\(signedIn.stdout)")
        let usage = try authcore([
            "identity", "credentials", "--region", "us-east-1", "--identity-id", first, "--identity-pool-id", pool,
        ])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("one of --identity-id and --identity-pool-id"), "\(usage.stderr)")
    }
}
