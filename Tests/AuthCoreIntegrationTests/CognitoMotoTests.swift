import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Cognito user-pool flows against moto's server (default mode; peers.md: USER_PASSWORD_AUTH checks
/// the password, SECRET_HASH is checked on USER_SRP_AUTH and REFRESH_TOKEN_AUTH, NEW_PASSWORD_REQUIRED
/// and refresh work; USER_SRP_AUTH is message flow only and its SECRET_BLOCK is a UUID, not Base64).
@Suite("Cognito sign-in against moto", .serialized)
struct CognitoMotoTests {
    struct Pool {
        let endpoint: String
        let region: String
        let poolId: String
        let clientId: String
        let secretClientId: String
        let clientSecret: String
        let users: [String: String]
        let temporaryUser: String
        let temporaryPassword: String
    }

    static func makePool() throws -> Pool {
        let endpoint = try peerEnvironment("AUTHCORE_MOTO_URL")
        let result = try run(venvPython, [repositoryRoot.appendingPathComponent("scripts/cognito_moto_setup.py").path])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw PeerError(description: "cognito_moto_setup.py failed: \(result.stderr)")
        }
        return Pool(
            endpoint: endpoint + "/",
            region: object["region"] as? String ?? "",
            poolId: object["poolId"] as? String ?? "",
            clientId: object["clientId"] as? String ?? "",
            secretClientId: object["secretClientId"] as? String ?? "",
            clientSecret: object["clientSecret"] as? String ?? "",
            users: object["users"] as? [String: String] ?? [:],
            temporaryUser: object["temporaryUser"] as? String ?? "",
            temporaryPassword: object["temporaryPassword"] as? String ?? ""
        )
    }

    func signIn(
        _ pool: Pool,
        client: String? = nil,
        username: String,
        flow: String,
        password: String?,
        secret: String? = nil,
        stdin: String? = nil
    )
        throws -> ProcessResult
    {
        try authcore(
            [
                "cognito", "sign-in", "--region", pool.region, "--user-pool-id", pool.poolId, "--client-id",
                client ?? pool.clientId,
                "--username", username, "--flow", flow, "--endpoint", pool.endpoint,
            ],
            stdin: stdin,
            environment: ["COGNITO_PASSWORD": password, "COGNITO_CLIENT_SECRET": secret]
        )
    }

    @Test("user-password: the right password signs in; a wrong one is NotAuthorizedException (exit 1)")
    func userPassword() throws {
        let pool = try Self.makePool()
        let ok = try signIn(pool, username: "alice", flow: "user-password", password: pool.users["alice"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        #expect(object?["status"] as? String == "signedIn")
        let tokens = object?["tokens"] as? [String: Any]
        #expect((tokens?["accessToken"] as? String)?.split(separator: ".").count == 3)
        #expect((tokens?["idToken"] as? String)?.isEmpty == false)
        #expect(tokens?["expiresIn"] as? Int == 3600)
        // The password from stdin, one trailing newline dropped; a non-ASCII username.
        let viaStdin = try signIn(
            pool,
            username: "bob+é",
            flow: "user-password",
            password: nil,
            stdin: (pool.users["bob+é"] ?? "") + "\n"
        )
        #expect(viaStdin.status == 0, "\(viaStdin.stderr)")
        let wrong = try signIn(pool, username: "alice", flow: "user-password", password: "not-the-password")
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "error: NotAuthorizedException: Incorrect username or password.\n", "\(wrong.stderr)")
    }

    @Test(
        "user-srp reaches PASSWORD_VERIFIER (moto's short SRP_B is accepted) and stops at moto's UUID SECRET_BLOCK with a typed error"
    )
    func userSRPStopsAtSecretBlock() async throws {
        let pool = try Self.makePool()
        let result = try signIn(pool, username: "alice", flow: "user-srp", password: pool.users["alice"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: SECRET_BLOCK: "), "\(result.stderr)")
        // The same through the library: the code is invalidBase64, not unsafePublicValue (the 128-bit
        // SRP_B moto sends is a valid value).
        let client = CognitoSignIn(
            configuration: try CognitoUserPoolConfiguration(
                region: pool.region,
                userPoolId: pool.poolId,
                clientId: pool.clientId,
                endpoint: pool.endpoint
            )
        )
        await #expect(throws: AuthCoreError(.invalidBase64, "")) {
            try await client.signIn(username: "alice", password: SecureBytes(Array((pool.users["alice"] ?? "").utf8)))
        }
    }

    @Test("SECRET_HASH is sent on USER_SRP_AUTH: moto accepts the right client secret and refuses a wrong one")
    func secretHashOnSRP() throws {
        let pool = try Self.makePool()
        let right = try signIn(
            pool,
            client: pool.secretClientId,
            username: "alice",
            flow: "user-srp",
            password: pool.users["alice"],
            secret: pool.clientSecret
        )
        #expect(
            right.stderr.hasPrefix("error: SECRET_BLOCK: "),
            "the hash was accepted and the flow reached PASSWORD_VERIFIER: \(right.stderr)"
        )
        let wrong = try signIn(
            pool,
            client: pool.secretClientId,
            username: "alice",
            flow: "user-srp",
            password: pool.users["alice"],
            secret: "wrong-secret"
        )
        #expect(wrong.status == 1)
        #expect(wrong.stderr.hasPrefix("error: NotAuthorizedException: "), "\(wrong.stderr)")
        let missing = try signIn(
            pool,
            client: pool.secretClientId,
            username: "alice",
            flow: "user-srp",
            password: pool.users["alice"],
            secret: nil
        )
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("error: NotAuthorizedException"), "\(missing.stderr)")
    }

    @Test("refresh with SECRET_HASH gives new tokens; a wrong secret is refused")
    func refresh() async throws {
        let pool = try Self.makePool()
        let configuration = try CognitoUserPoolConfiguration(
            region: pool.region,
            userPoolId: pool.poolId,
            clientId: pool.secretClientId,
            clientSecret: SecureBytes(Array(pool.clientSecret.utf8)),
            endpoint: pool.endpoint
        )
        let client = CognitoSignIn(configuration: configuration)
        guard
            case .signedIn(let tokens) = try await client.signIn(
                username: "alice",
                password: SecureBytes(Array((pool.users["alice"] ?? "").utf8)),
                flow: .userPassword
            )
        else {
            Issue.record("user-password sign-in did not return tokens")
            return
        }
        let refreshToken = try #require(tokens.refreshToken)
        let refreshed = try await client.refresh(refreshToken: refreshToken, username: "alice")
        #expect(refreshed.accessToken.split(separator: ".").count == 3)
        #expect(refreshed.accessToken != tokens.accessToken || refreshed.idToken != tokens.idToken)
        let wrong = CognitoSignIn(
            configuration: try CognitoUserPoolConfiguration(
                region: pool.region,
                userPoolId: pool.poolId,
                clientId: pool.secretClientId,
                clientSecret: SecureBytes(Array("wrong".utf8)),
                endpoint: pool.endpoint
            )
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) {
            try await wrong.refresh(refreshToken: refreshToken, username: "alice")
        }
    }

    @Test("NEW_PASSWORD_REQUIRED is a next step; answering it signs in, and the new password works")
    func newPasswordRequired() async throws {
        let pool = try Self.makePool()
        let cli = try signIn(
            pool,
            username: pool.temporaryUser,
            flow: "user-password",
            password: pool.temporaryPassword
        )
        #expect(cli.status == 0, "a next step is a success: \(cli.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any]
        #expect(object?["status"] as? String == "nextStep")
        #expect((object?["nextStep"] as? [String: Any])?["type"] as? String == "confirmSignInWithNewPassword")

        let client = CognitoSignIn(
            configuration: try CognitoUserPoolConfiguration(
                region: pool.region,
                userPoolId: pool.poolId,
                clientId: pool.clientId,
                endpoint: pool.endpoint
            )
        )
        let first = try await client.signIn(
            username: pool.temporaryUser,
            password: SecureBytes(Array(pool.temporaryPassword.utf8)),
            flow: .userPassword
        )
        guard case .nextStep(.confirmSignInWithNewPassword) = first else {
            Issue.record("expected confirmSignInWithNewPassword, got \(first)")
            return
        }
        guard case .signedIn = try await client.confirmSignIn(challengeResponse: "Br4nd-New-Passw0rd!") else {
            Issue.record("the new password did not sign in")
            return
        }
        let again = try signIn(
            pool,
            username: pool.temporaryUser,
            flow: "user-password",
            password: "Br4nd-New-Passw0rd!"
        )
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"status\":\"signedIn\""))
    }

    @Test("usage errors exit 2: a bad flow, a missing option, a bad endpoint")
    func usage() throws {
        for arguments in [
            [
                "cognito", "sign-in", "--region", "r", "--user-pool-id", "us-east-1_x", "--client-id", "c",
                "--username", "u", "--flow", "bogus",
            ],
            ["cognito", "sign-in", "--region", "r", "--client-id", "c", "--username", "u"],
            [
                "cognito", "sign-in", "--region", "r", "--user-pool-id", "nounderscore", "--client-id", "c",
                "--username", "u",
            ],
            [
                "cognito", "sign-in", "--region", "r", "--user-pool-id", "us-east-1_x", "--client-id", "c",
                "--username", "u", "--endpoint", "ftp://x",
            ],
            [
                "cognito", "sign-in", "--region", "r", "--user-pool-id", "us-east-1_x", "--client-id", "c",
                "--username", "u", "--preferred-challenge", "SMS",
            ],
        ] {
            let result = try authcore(arguments, stdin: "pw\n", environment: ["COGNITO_PASSWORD": "pw"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }
}
