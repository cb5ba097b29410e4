import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The request sequence and `Logins` maps of identity-pool credentials, with a scripted service
/// (the real-service behaviour is in AuthCoreIntegrationTests against moto).
@Suite("Identity pools: enhanced and basic flows, switching logins, typed errors")
struct IdentityProviderTests {
    static let time = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!

    static func withNanoseconds(_ time: Timestamp, _ nanoseconds: Int32) -> Timestamp {
        Timestamp(secondsSince1970: time.secondsSince1970, nanoseconds: nanoseconds)
    }

    static func json(_ object: [String: Any], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data()))
    }

    static func credentialsAnswer(_ id: String, expiration: Any = 1_796_000_000.25) -> HTTPResponse {
        json([
            "Credentials": [
                "AccessKeyId": id, "SecretKey": "secret-\(id)", "SessionToken": "token-\(id)", "Expiration": expiration,
            ]
        ])
    }

    static func body(_ request: HTTPRequest) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: (request.body.withInMemoryBytes { Data($0) } ?? Data())))
            as? [String: Any] ?? [:]
    }

    static func target(_ request: HTTPRequest) -> String? {
        request.headers.first { $0.name.lowercased() == "x-amz-target" }?.value
    }

    static func client(
        _ transport: ScriptedTransport,
        region: String = "us-east-1"
    ) throws(AuthCoreError) -> CognitoIdentityClient {
        try CognitoIdentityClient(
            region: region,
            sender: SignedRequestSender(transport: transport, clock: FixedClock(time))
        )
    }

    @Test("unauthenticated: GetId without Logins, then GetCredentialsForIdentity; an epoch Expiration with a fraction")
    func unauthenticated() async throws {
        let transport = ScriptedTransport([
            Self.json(["IdentityId": "us-east-1:guest"]), Self.credentialsAnswer("ASIAGUEST"),
        ])
        let provider = CognitoIdentityCredentialsProvider(
            client: try Self.client(transport),
            identityPoolId: "us-east-1:pool",
            clock: FixedClock(Self.time)
        )
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyId == "ASIAGUEST")
        #expect(credentials.sessionToken == "token-ASIAGUEST")
        #expect(credentials.expiration?.secondsSince1970 == 1_796_000_000)
        #expect(abs(Int(credentials.expiration?.nanoseconds ?? 0) - 250_000_000) < 1000)
        let sent = transport.sent
        #expect(
            sent.map(Self.target) == [
                "AWSCognitoIdentityService.GetId", "AWSCognitoIdentityService.GetCredentialsForIdentity",
            ]
        )
        #expect(Self.body(sent[0])["IdentityPoolId"] as? String == "us-east-1:pool")
        #expect(Self.body(sent[0])["Logins"] == nil)
        #expect(Self.body(sent[1])["IdentityId"] as? String == "us-east-1:guest")
        #expect(
            sent.allSatisfy { request in !request.headers.contains { $0.name.lowercased() == "authorization" } },
            "app calls are unsigned"
        )
        #expect(await provider.currentIdentityId() == "us-east-1:guest")
    }

    @Test(
        "switching to a developer login keeping the identity: no GetId, Logins keyed by the token's regional issuer; the backend's id is adopted"
    )
    func developerLogin() async throws {
        let token = openIdTokenFixture(issuer: "https://cognito-identity.eu-south-2.amazonaws.com")
        let transport = ScriptedTransport([
            Self.json(["IdentityId": "eu-south-2:guest"]), Self.credentialsAnswer("ASIA1"),
            Self.credentialsAnswer("ASIA2", expiration: "2026-11-29T23:00:00.5Z"), Self.credentialsAnswer("ASIA3"),
        ])
        let provider = CognitoIdentityCredentialsProvider(
            client: try Self.client(transport, region: "eu-south-2"),
            identityPoolId: "eu-south-2:pool",
            clock: FixedClock(Self.time)
        )
        _ = try await provider.credentials()
        #expect(await provider.currentIdentityId() == "eu-south-2:guest")
        try await provider.switchLogin(
            to: IdentityLogin.developer(DeveloperIdentityToken(identityId: "eu-south-2:dev", token: token)),
            keepingIdentity: true
        )
        let developer = try await provider.credentials()
        #expect(developer.accessKeyId == "ASIA2")
        #expect(
            developer.expiration
                == Self.withNanoseconds(
                    Timestamp(year: 2026, month: 11, day: 29, hour: 23, minute: 0, second: 0)!,
                    500_000_000
                )
        )
        #expect(await provider.currentIdentityId() == "eu-south-2:dev")
        let call = transport.sent[2]
        #expect(Self.target(call) == "AWSCognitoIdentityService.GetCredentialsForIdentity")
        #expect(Self.body(call)["IdentityId"] as? String == "eu-south-2:dev")
        #expect(Self.body(call)["Logins"] as? [String: String] == ["cognito-identity.eu-south-2.amazonaws.com": token])
        // A developer login takes its identity from the backend, so clearing the identity asks no GetId.
        try await provider.clearIdentity()
        #expect(try await provider.credentials().accessKeyId == "ASIA3")
        #expect(transport.sent.map(Self.target).filter { $0 == "AWSCognitoIdentityService.GetId" }.count == 1)
        #expect(Self.body(transport.sent[3])["IdentityId"] as? String == "eu-south-2:dev")
    }

    @Test("a developer token of the wrong region is refused before anything is sent")
    func developerWrongRegion() async throws {
        let transport = ScriptedTransport([])
        let provider = CognitoIdentityCredentialsProvider(
            client: try Self.client(transport, region: "eu-south-2"),
            identityPoolId: "eu-south-2:pool",
            login: IdentityLogin.developer(
                DeveloperIdentityToken(
                    identityId: "eu-south-2:dev",
                    token: openIdTokenFixture(issuer: "https://cognito-identity.amazonaws.com")
                )
            ),
            clock: FixedClock(Self.time)
        )
        await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await provider.credentials() }
        #expect(transport.sent.isEmpty)
    }

    @Test("social logins: a JWT is keyed by its issuer, a non-JWT token keeps its key, a wrong key is refused")
    func socialLogins() async throws {
        let google = openIdTokenFixture(issuer: "https://accounts.google.com")
        let transport = ScriptedTransport([
            Self.json(["IdentityId": "us-east-1:social"]), Self.credentialsAnswer("ASIASOCIAL"),
        ])
        let provider = CognitoIdentityCredentialsProvider(
            client: try Self.client(transport),
            identityPoolId: "us-east-1:pool",
            login: IdentityLogin.providers(["accounts.google.com": google, "graph.facebook.com": "EAAGm0PX4ZCpsBA"]),
            clock: FixedClock(Self.time)
        )
        _ = try await provider.credentials()
        #expect(
            Self.body(transport.sent[0])["Logins"] as? [String: String] == [
                "accounts.google.com": google, "graph.facebook.com": "EAAGm0PX4ZCpsBA",
            ]
        )
        try await provider.switchLogin(to: IdentityLogin.providers(["www.amazon.com": google]), keepingIdentity: false)
        #expect(await provider.currentIdentityId() == nil, "switching forgets the identity")
        do {
            _ = try await provider.credentials()
            Issue.record("a Google token under www.amazon.com was accepted")
        } catch {
            #expect(error.reason.contains("use 'accounts.google.com'"), "\(error.reason)")
        }
    }

    @Test(
        "basic flow: GetOpenIdToken, then an unsigned AssumeRoleWithWebIdentity with that token, session name and duration"
    )
    func basicFlow() async throws {
        let token = openIdTokenFixture(issuer: "https://cognito-identity.amazonaws.com")
        let stsAnswer = """
            <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>
            <Credentials><AccessKeyId>ASIABASIC</AccessKeyId><SecretAccessKey>s&amp;k</SecretAccessKey><SessionToken>tok</SessionToken>
            <Expiration>2026-11-29T21:39:33.894375Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>
            """
        let transport = ScriptedTransport([
            Self.json(["IdentityId": "us-east-1:basic"]), Self.json(["IdentityId": "us-east-1:basic", "Token": token]),
            HTTPResponse(status: 200, body: Array(stsAnswer.utf8)),
        ])
        let sts = try STSClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: transport, clock: FixedClock(Self.time))
        )
        let provider = CognitoIdentityCredentialsProvider(
            client: try Self.client(transport),
            identityPoolId: "us-east-1:pool",
            flow: .basic(
                roleArn: "arn:aws:iam::123456789012:role/Cognito_Unauth",
                sts: sts,
                sessionName: "app-user-7",
                durationSeconds: 900
            ),
            clock: FixedClock(Timestamp(year: 2026, month: 11, day: 29, hour: 21, minute: 0, second: 0)!)
        )
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyId == "ASIABASIC")
        #expect(credentials.secretAccessKey.withUnsafeBytes { Array($0) } == Array("s&k".utf8))
        #expect(
            credentials.expiration
                == Self.withNanoseconds(
                    Timestamp(year: 2026, month: 11, day: 29, hour: 21, minute: 39, second: 33)!,
                    894_375_000
                )
        )
        let sent = transport.sent
        #expect(Self.target(sent[1]) == "AWSCognitoIdentityService.GetOpenIdToken")
        #expect(sent[2].url.description.hasPrefix("https://sts.us-east-1.amazonaws.com/"))
        let form = String(decoding: sent[2].body.plainBytes, as: UTF8.self)
        #expect(
            form
                == "Action=AssumeRoleWithWebIdentity&DurationSeconds=900&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2FCognito_Unauth"
                + "&RoleSessionName=app-user-7&Version=2011-06-15&WebIdentityToken=\(token)"
        )
        #expect(!sent[2].headers.contains { $0.name.lowercased() == "authorization" })
    }

    @Test("service errors keep their type and status; malformed answers name the field")
    func errors() async throws {
        let refused = ScriptedTransport([
            Self.json(
                [
                    "__type": "NotAuthorizedException",
                    "message": "Invalid login token. Issuer doesn't match providerName",
                ],
                status: 400
            )
        ])
        do {
            _ = try await CognitoIdentityCredentialsProvider(
                client: try Self.client(refused),
                identityPoolId: "us-east-1:pool",
                clock: FixedClock(Self.time)
            ).credentials()
            Issue.record("no error")
        } catch {
            #expect(error.code == .serviceError)
            #expect(error.serviceErrorType == "NotAuthorizedException")
            #expect(error.httpStatus == 400)
        }
        let cases: [(HTTPResponse, String)] = [
            (Self.json(["IdentityId": "x"]), "Credentials"),
            (Self.json(["Credentials": ["AccessKeyId": "A", "SessionToken": "t", "Expiration": 1]]), "SecretKey"),
            (Self.credentialsAnswer("A", expiration: "next tuesday"), "Expiration"),
            (Self.credentialsAnswer("A", expiration: ["nested": true]), "Expiration"),
            (Self.credentialsAnswer("A", expiration: 1e300), "Expiration"),
            (HTTPResponse(status: 200, body: Array("<html>".utf8)), "GetCredentialsForIdentity"),
        ]
        for (answer, field) in cases {
            let transport = ScriptedTransport([answer])
            do {
                _ = try await Self.client(transport).credentialsForIdentity(identityId: "us-east-1:x")
                Issue.record("accepted a malformed answer (\(field))")
            } catch {
                #expect(error.code == .malformedResponse)
                #expect(error.reason.contains(field), "\(error.reason)")
            }
        }
    }

    @Test(
        "backend: GetOpenIdTokenForDeveloperIdentity is signed and carries every parameter; durations are checked first"
    )
    func developerToken() async throws {
        let transport = ScriptedTransport([Self.json(["IdentityId": "us-east-1:linked", "Token": "tok"])])
        let client = try Self.client(transport)
        let developer = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        )
        let (id, token) = try await client.developerToken(
            identityPoolId: "us-east-1:pool",
            providerName: "login.authcore.test",
            userIdentifier: "alice",
            identityId: "us-east-1:linked",
            additionalLogins: ["graph.facebook.com": "fb"],
            credentials: developer
        )
        #expect(id == "us-east-1:linked" && token == "tok")
        let request = transport.sent[0]
        #expect(Self.target(request) == "AWSCognitoIdentityService.GetOpenIdTokenForDeveloperIdentity")
        let body = Self.body(request)
        #expect(body["IdentityPoolId"] as? String == "us-east-1:pool")
        #expect(body["IdentityId"] as? String == "us-east-1:linked")
        #expect(body["TokenDuration"] as? Int == 900)
        #expect(body["Logins"] as? [String: String] == ["login.authcore.test": "alice", "graph.facebook.com": "fb"])
        let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value ?? ""
        #expect(
            authorization.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261129/us-east-1/cognito-identity/aws4_request, "
            ),
            "\(authorization)"
        )
        for duration in [0, 86_401, -5] {
            let none = ScriptedTransport([])
            await #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try await Self.client(none).developerToken(
                    identityPoolId: "p",
                    providerName: "n",
                    userIdentifier: "u",
                    tokenDuration: duration,
                    credentials: developer
                )
            }
            #expect(none.sent.isEmpty)
        }
    }

    @Test("STS: Expiration with and without fractions; a short DurationSeconds is refused locally; errors are typed")
    func sts() async throws {
        func answer(_ expiration: String, omit: String? = nil) -> HTTPResponse {
            let fields = [
                ("AccessKeyId", "ASIA"), ("SecretAccessKey", "s"), ("SessionToken", "t"), ("Expiration", expiration),
            ]
            .filter { $0.0 != omit }.map { "<\($0.0)>\($0.1)</\($0.0)>" }.joined()
            return HTTPResponse(
                status: 200,
                body: Array(
                    "<AssumeRoleResponse><AssumeRoleResult><Credentials>\(fields)</Credentials></AssumeRoleResult></AssumeRoleResponse>"
                        .utf8
                )
            )
        }
        let developer = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
        let transport = ScriptedTransport([
            answer("2026-11-29T23:00:00Z"), answer("2026-11-29T23:00:00.123Z"),
            answer("2026-11-29T23:00:00Z", omit: "SessionToken"),
            answer("soon"),
            HTTPResponse(
                status: 403,
                body: Array(
                    "<ErrorResponse><Error><Code>AccessDenied</Code><Message>no</Message></Error></ErrorResponse>".utf8
                )
            ),
        ])
        let sts = try STSClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: transport, clock: FixedClock(Self.time))
        )
        let role = "arn:aws:iam::123456789012:role/authcore"
        let whole = try await sts.assumeRole(
            roleArn: role,
            sessionName: "s",
            durationSeconds: 900,
            credentials: developer
        )
        #expect(whole.expiration == Timestamp(year: 2026, month: 11, day: 29, hour: 23, minute: 0, second: 0)!)
        let fractional = try await sts.assumeRole(roleArn: role, sessionName: "s", credentials: developer)
        #expect(fractional.expiration?.nanoseconds == 123_000_000)
        #expect(transport.sent[0].headers.contains { $0.name.lowercased() == "authorization" })
        await #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try await sts.assumeRole(roleArn: role, sessionName: "s", credentials: developer)
        }
        await #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try await sts.assumeRole(roleArn: role, sessionName: "s", credentials: developer)
        }
        do {
            _ = try await sts.assumeRole(roleArn: role, sessionName: "s", credentials: developer)
            Issue.record("no error")
        } catch {
            #expect(error.serviceErrorType == "AccessDenied" && error.httpStatus == 403)
        }
        let sentBefore = transport.sent.count
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await sts.assumeRole(roleArn: role, sessionName: "s", durationSeconds: 899, credentials: developer)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await sts.assumeRoleWithWebIdentity(
                roleArn: role,
                sessionName: "s",
                webIdentityToken: "t",
                durationSeconds: 43_201
            )
        }
        #expect(transport.sent.count == sentBefore)
    }
}

/// The identity provider's event stream: the identity id as it becomes known and is forgotten,
/// refreshes and their failures, in order, to every subscriber.
@Suite("Identity provider events")
struct IdentityProviderEventTests {
    static let start = Timestamp(secondsSince1970: 1_790_000_000)

    @Test("identity changed, credentials refreshed, refresh failed, identity forgotten: in order, to two subscribers")
    func events() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(200, ["IdentityId": "us-east-1:one"]),
            .jsonAnswer(
                200,
                [
                    "IdentityId": "us-east-1:one",
                    "Credentials": [
                        "AccessKeyId": "ASIA1", "SecretKey": "s", "SessionToken": "t", "Expiration": 1_790_003_600,
                    ],
                ]
            ),
            .jsonAnswer(400, ["__type": "NotAuthorizedException", "message": "no"]),
        ])
        let clock = ManualClock(Self.start)
        let provider = CognitoIdentityCredentialsProvider(
            client: try CognitoIdentityClient(
                region: "us-east-1",
                sender: SignedRequestSender(transport: transport, clock: clock, retryPolicy: .none)
            ),
            identityPoolId: "us-east-1:pool",
            clock: clock
        )
        let first = provider.events()
        let second = provider.events()
        _ = try await provider.credentials()
        clock.advance(seconds: 3601)  // expired: the next call must refresh, and its failure is thrown
        _ = await #expect(throws: AuthCoreError.self) { try await provider.credentials() }
        try await provider.clearIdentity()
        let expected: [CognitoIdentityEvent] = [
            .identityChanged(identityId: "us-east-1:one"),
            .credentialsRefreshed(expiresAt: Timestamp(secondsSince1970: 1_790_003_600)),
            .refreshFailed(.serviceError), .identityChanged(identityId: nil),
        ]
        for stream in [first, second] {
            // Collected with a time limit: a missing event fails the test instead of hanging it.
            let seen = await withTaskGroup(of: [CognitoIdentityEvent]?.self) { group in
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    var seen: [CognitoIdentityEvent] = []
                    for _ in expected { if let event = await iterator.next() { seen.append(event) } }
                    return seen
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(20))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? []
            }
            #expect(seen == expected)
        }
    }
}
