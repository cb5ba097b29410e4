import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Developer-authenticated identities and STS against moto's server (peers.md: the signed
/// `GetOpenIdTokenForDeveloperIdentity` is verified in signature mode; its token is not a JWT;
/// `GetCredentialsForIdentity` answers 90-second credentials with a numeric `Expiration`;
/// `AssumeRole*` credentials sign S3 requests that moto verifies, session token included).
@Suite("Identity pools and STS against moto", .serialized)
struct IdentityMotoTests {
    let signedEndpoint: String
    let defaultEndpoint: String
    let accessKey: String
    let secret: String

    init() throws {
        signedEndpoint = try peerEnvironment("AUTHCORE_MOTO_SIGNED_URL")
        defaultEndpoint = try peerEnvironment("AUTHCORE_MOTO_URL")
        accessKey = try peerEnvironment("AUTHCORE_MOTO_ACCESS_KEY_ID")
        secret = try peerEnvironment("AUTHCORE_MOTO_SECRET_ACCESS_KEY")
    }

    var developer: [String: String?] {
        ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": nil]
    }
    var iamCredentials: Credentials { get throws { try Credentials(accessKeyId: accessKey, secretAccessKey: secret) } }

    /// A JSON call through `authcore sigv4 send` (used for set-up operations AuthCore has no API for).
    func jsonCall(
        _ endpoint: String,
        service: String,
        target: String,
        _ body: String,
        environment: [String: String?]
    ) throws -> [String: Any] {
        let result = try authcore(
            [
                "sigv4", "send", "--region", "us-east-1", "--service", service, "-X", "POST", "-H",
                "Content-Type: application/x-amz-json-1.1",
                "-H", "X-Amz-Target: \(target)", "-d", body, endpoint + "/",
            ],
            environment: environment
        )
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw PeerError(description: "\(target) failed: \(result.stderr)")
        }
        return object
    }

    func createIdentityPool(_ endpoint: String, environment: [String: String?]) throws -> String {
        let pool = try jsonCall(
            endpoint,
            service: "cognito-identity",
            target: "AWSCognitoIdentityService.CreateIdentityPool",
            #"{"IdentityPoolName":"authcore","AllowUnauthenticatedIdentities":true,"DeveloperProviderName":"login.authcore.test"}"#,
            environment: environment
        )
        return try #require(pool["IdentityPoolId"] as? String)
    }

    func developerToken(
        _ endpoint: String,
        pool: String,
        extra: [String] = [],
        environment: [String: String?]
    ) throws -> ProcessResult {
        try authcore(
            [
                "identity", "developer-token", "--region", "us-east-1", "--identity-pool-id", pool, "--provider-name",
                "login.authcore.test",
                "--user-identifier", "alice@example.com", "--endpoint", endpoint + "/",
            ] + extra,
            environment: environment
        )
    }

    func parse(_ text: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            "not a JSON object: \(text)"
        )
    }

    @Test("developer-token: accepted with the developer's secret, 403 with a wrong one, usage errors exit 2")
    func developerTokenSigned() throws {
        let pool = try createIdentityPool(signedEndpoint, environment: developer)
        let ok = try developerToken(
            signedEndpoint,
            pool: pool,
            extra: ["--token-duration", "3600"],
            environment: developer
        )
        #expect(ok.status == 0, "\(ok.stderr)")
        let answer = try parse(ok.stdout)
        #expect(Set(answer.keys) == ["identityId", "token"])
        #expect((answer["identityId"] as? String)?.hasPrefix("us-east-1:") == true, "\(ok.stdout)")
        #expect((answer["token"] as? String)?.isEmpty == false)
        var wrong = developer
        wrong["AWS_SECRET_ACCESS_KEY"] = secret + "x"
        let refused = try developerToken(signedEndpoint, pool: pool, environment: wrong)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: SignatureDoesNotMatch: "), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        for extra in [
            ["--token-duration", "0"], ["--token-duration", "86401"], ["--token-duration", "soon"], ["--bogus"],
        ] {
            let usage = try developerToken(signedEndpoint, pool: pool, extra: extra, environment: developer)
            #expect(usage.status == 2, "\(extra): \(usage.stderr)")
        }
        let noCredentials = try developerToken(
            signedEndpoint,
            pool: pool,
            environment: ["AWS_ACCESS_KEY_ID": nil, "AWS_SECRET_ACCESS_KEY": nil]
        )
        #expect(noCredentials.status == 2)
        #expect(noCredentials.stderr.contains("AWS_ACCESS_KEY_ID"))
    }

    @Test(
        "developer-token --login links social logins whose tokens come from a file or the environment, never argv; lookup and unlink check their options"
    )
    func developerTokenLinkedLogins() throws {
        let pool = try createIdentityPool(signedEndpoint, environment: developer)
        let file = try temporaryFile("EAAGm0PX4ZCpsBA-from-a-file\n", name: "facebook-token")
        var environment = developer
        environment["GOOGLE_TOKEN"] = openIdTokenFixture(issuer: "https://accounts.google.com")
        // moto verifies the signature, which covers the body with both linked logins.
        let linked = try developerToken(
            signedEndpoint,
            pool: pool,
            extra: ["--login", "graph.facebook.com=@\(file)", "--login", "accounts.google.com=env:GOOGLE_TOKEN"],
            environment: environment
        )
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try parse(linked.stdout)["identityId"] is String)
        let refusals: [([String], String)] = [
            (["--login", "graph.facebook.com=EAAGm0PX4ZCpsBA"], "never from the command line"),
            (["--login", "graph.facebook.com=@/nonexistent/token"], "cannot read --login"),
            (["--login", "graph.facebook.com=env:AUTHCORE_UNSET_VARIABLE"], "AUTHCORE_UNSET_VARIABLE is not set"),
            (["--login", "=@\(file)"], "NAME=@FILE"),
            (["--login", "EAAGm0PX4ZCpsBA"], "its value is not shown"),
            (["--login", "login.authcore.test=@\(file)"], "the developer provider itself"),
            (["--login", "graph.facebook.com=@\(file)", "--login", "graph.facebook.com=@\(file)"], "more than once"),
        ]
        for (extra, message) in refusals {
            let usage = try developerToken(signedEndpoint, pool: pool, extra: extra, environment: environment)
            #expect(usage.status == 2, "\(extra): \(usage.stderr)")
            #expect(usage.stderr.contains(message), "\(extra): \(usage.stderr)")
            #expect(!usage.stderr.contains("EAAGm0PX4ZCpsBA"), "a token is never echoed")
        }
        let base = ["--region", "us-east-1", "--identity-pool-id", pool, "--endpoint", signedEndpoint + "/"]
        let lookups: [([String], String)] = [
            ([], "needs --identity-id or --user-identifier"),
            (["--user-identifier", "alice", "--max-results", "61"], "--max-results must be 1...60"),
            (["--user-identifier", "alice", "--max-results", "many"], "--max-results expects an integer"),
        ]
        for (extra, message) in lookups {
            let usage = try authcore(["identity", "lookup-developer-identity"] + base + extra, environment: developer)
            #expect(usage.status == 2 && usage.stderr.contains(message), "\(extra): \(usage.stderr)")
        }
        let unlink = try authcore(
            ["identity", "unlink-developer-identity"] + base + ["--identity-id", "us-east-1:x"],
            environment: developer
        )
        #expect(unlink.status == 2 && unlink.stderr.contains("--provider-name"), "\(unlink.stderr)")
    }

    @Test(
        "the app half: moto's token is not a JWT, so --logins-key is needed; credentials print without secrets by default"
    )
    func appHalfCLI() throws {
        let dummy: [String: String?] = [
            "AWS_ACCESS_KEY_ID": "AKIDDEVELOPER", "AWS_SECRET_ACCESS_KEY": "developer-secret",
        ]
        let pool = try createIdentityPool(defaultEndpoint, environment: dummy)
        let issued = try parse(try developerToken(defaultEndpoint, pool: pool, environment: dummy).stdout)
        let identityId = try #require(issued["identityId"] as? String)
        let token = try #require(issued["token"] as? String)
        #expect(throws: AuthCoreError(.malformedInput, "")) { try JWTClaims(token: token) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-token-\(UUID().uuidString)")
        try Data((token + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func credentials(_ extra: [String]) throws -> ProcessResult {
            try authcore(
                [
                    "identity", "credentials", "--region", "us-east-1", "--identity-id", identityId, "--token-file",
                    file.path,
                    "--endpoint", defaultEndpoint + "/",
                ] + extra
            )
        }
        let missingKey = try credentials([])
        #expect(missingKey.status == 2)
        #expect(missingKey.stderr.contains("--logins-key"), "\(missingKey.stderr)")
        let quiet = try credentials(["--logins-key", "cognito-identity.amazonaws.com"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        let shown = try parse(quiet.stdout)
        #expect(Set(shown.keys) == ["accessKeyId", "expiration"])
        let expiration = try Timestamp(iso8601: try #require(shown["expiration"] as? String))
        #expect(
            (60...120).contains(SystemClock().now().seconds(until: expiration)),
            "moto's 90 s lifetime: \(expiration.iso8601)"
        )
        #expect((shown["expiration"] as? String)?.hasSuffix("Z") == true)
        let loud = try parse(
            try credentials(["--logins-key", "cognito-identity.amazonaws.com", "--show-secrets"]).stdout
        )
        #expect(Set(loud.keys) == ["accessKeyId", "expiration", "secretAccessKey", "sessionToken"])
        let secretShown = try #require(loud["secretAccessKey"] as? String)
        #expect(!secretShown.isEmpty && !quiet.stdout.contains(secretShown))
        // A JWT from another region's issuer is refused locally (moto would not notice).
        try Data(openIdTokenFixture(issuer: "https://cognito-identity.eu-south-2.amazonaws.com").utf8).write(to: file)
        let foreign = try credentials([])
        #expect(foreign.status == 2)
        #expect(foreign.stderr.contains("cognito-identity.amazonaws.com"), "\(foreign.stderr)")
    }

    @Test(
        "the enhanced flow in the library: moto's 90 s credentials with a numeric Expiration refresh at half their lifetime"
    )
    func enhancedFlowRefresh() async throws {
        let client = try CognitoIdentityClient(region: "us-east-1", endpoint: defaultEndpoint + "/")
        let dummy = try Credentials(accessKeyId: "AKIDDEVELOPER", secretAccessKey: "developer-secret")
        let pool = try createIdentityPool(
            defaultEndpoint,
            environment: ["AWS_ACCESS_KEY_ID": "AKIDDEVELOPER", "AWS_SECRET_ACCESS_KEY": "developer-secret"]
        )
        let issued = try await client.developerToken(
            identityPoolId: pool,
            providerName: "login.authcore.test",
            userIdentifier: "bob",
            credentials: dummy
        )
        let identity = CognitoIdentityCredentialsProvider(
            client: client,
            identityPoolId: pool,
            login: IdentityLogin.developer(
                DeveloperIdentityToken(
                    identityId: issued.identityId,
                    token: issued.token,
                    loginsKey: "cognito-identity.amazonaws.com"
                )
            ),
            timeLimit: patientTimeLimit
        )
        try await expectHalfLifetimeRefresh(identity, lifetime: 90)
        let credentials = try await identity.credentials()
        #expect(credentials.accessKeyId.isEmpty == false)
        #expect(credentials.sessionToken?.isEmpty == false)
        #expect(await identity.refreshAttempts == 1, "the second call is served from the cache")
        // Unauthenticated identities: GetId, then credentials.
        let guest = CognitoIdentityCredentialsProvider(
            client: client,
            identityPoolId: pool,
            timeLimit: patientTimeLimit
        )
        _ = try await guest.credentials()
        #expect(await guest.currentIdentityId()?.hasPrefix("us-east-1:") == true)
    }

    func createRole(_ name: String) throws -> String {
        try createAllowAllRole(name, endpoint: signedEndpoint, environment: developer)
    }

    /// Creates a bucket and round-trips an object with `credentials` through `authcore sigv4 send --s3`.
    func s3RoundTrip(_ credentials: Credentials, bucket: String) throws {
        let environment: [String: String?] = [
            "AWS_ACCESS_KEY_ID": credentials.accessKeyId,
            "AWS_SECRET_ACCESS_KEY": credentials.secretAccessKey.withUnsafeBytes {
                String(decoding: $0, as: UTF8.self)
            },
            "AWS_SESSION_TOKEN": credentials.sessionToken,
        ]
        func s3(_ arguments: [String], _ path: String, _ environment: [String: String?]) throws -> ProcessResult {
            try authcore(
                ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3"] + arguments + [
                    signedEndpoint + path
                ],
                environment: environment
            )
        }
        let created = try s3(["-X", "PUT"], "/\(bucket)", environment)
        #expect(created.status == 0, "\(created.stderr)")
        let put = try s3(["-X", "PUT", "-d", "from \(credentials.accessKeyId)"], "/\(bucket)/object.txt", environment)
        #expect(put.status == 0, "\(put.stderr)")
        let get = try s3([], "/\(bucket)/object.txt", environment)
        #expect(get.stdout == "from \(credentials.accessKeyId)", "\(get.stderr)")
        var noToken = environment
        noToken["AWS_SESSION_TOKEN"] = nil
        let refused = try s3([], "/\(bucket)/object.txt", noToken)
        #expect(refused.status == 1, "moto checks the session token")
    }

    @Test(
        "AssumeRole (signed by the library) gives credentials that sign S3 requests moto verifies; a wrong secret is 403"
    )
    func assumeRole() async throws {
        let role = try createRole("authcore-sts")
        let sts = try STSClient(region: "us-east-1", endpoint: signedEndpoint + "/")
        let credentials = try await sts.assumeRole(
            roleArn: role,
            sessionName: "authcore-library",
            durationSeconds: 900,
            credentials: try iamCredentials
        )
        #expect(credentials.accessKeyId.hasPrefix("ASIA"))
        let expiration = try #require(credentials.expiration)
        #expect((800...1000).contains(SystemClock().now().seconds(until: expiration)), "\(expiration.iso8601)")
        try s3RoundTrip(credentials, bucket: "authcore-identity-assumed")
        do {
            _ = try await sts.assumeRole(
                roleArn: role,
                sessionName: "x",
                credentials: try Credentials(accessKeyId: accessKey, secretAccessKey: secret + "x")
            )
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(error.serviceErrorType == "SignatureDoesNotMatch" && error.httpStatus == 403, "\(error)")
        }
    }

    @Test(
        "AssumeRoleWithWebIdentity with the developer token: Expiration with microseconds; the credentials sign S3 requests"
    )
    func assumeRoleWithWebIdentity() async throws {
        let role = try createRole("authcore-web-identity")
        let pool = try createIdentityPool(signedEndpoint, environment: developer)
        let client = try CognitoIdentityClient(region: "us-east-1", endpoint: signedEndpoint + "/")
        let issued = try await client.developerToken(
            identityPoolId: pool,
            providerName: "login.authcore.test",
            userIdentifier: "carol",
            credentials: try iamCredentials
        )
        let sts = try STSClient(region: "us-east-1", endpoint: signedEndpoint + "/")
        // moto in signature mode refuses unsigned STS calls (peers.md), so this one is signed.
        let credentials = try await sts.assumeRoleWithWebIdentity(
            roleArn: role,
            sessionName: "carol",
            webIdentityToken: issued.token,
            durationSeconds: 900,
            signingCredentials: try iamCredentials
        )
        #expect(credentials.accessKeyId.hasPrefix("ASIA"))
        let expiration = try #require(credentials.expiration)
        #expect(expiration.nanoseconds % 1000 == 0, "microsecond precision, as moto sends it")
        #expect(SystemClock().now() < expiration)
        try s3RoundTrip(credentials, bucket: "authcore-identity-web")
    }

    @Test("the basic flow end to end against the default-mode server: GetId, GetOpenIdToken, AssumeRoleWithWebIdentity")
    func basicFlow() async throws {
        let client = try CognitoIdentityClient(region: "us-east-1", endpoint: defaultEndpoint + "/")
        let pool = try createIdentityPool(
            defaultEndpoint,
            environment: ["AWS_ACCESS_KEY_ID": "AKIDDEVELOPER", "AWS_SECRET_ACCESS_KEY": "developer-secret"]
        )
        let sts = try STSClient(region: "us-east-1", endpoint: defaultEndpoint + "/")
        let provider = CognitoIdentityCredentialsProvider(
            client: client,
            identityPoolId: pool,
            flow: .basic(roleArn: "arn:aws:iam::123456789012:role/Cognito_Unauth", sts: sts),
            timeLimit: patientTimeLimit
        )
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyId.hasPrefix("ASIA"))
        #expect(SystemClock().now() < (try #require(credentials.expiration)))
    }
}
