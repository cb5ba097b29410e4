import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The device lifecycle against scripted answers shaped as the API reference documents them (no
/// local peer implements `ConfirmDevice`, `ListDevices`, `UpdateDeviceStatus` or `ForgetDevice`):
/// a device the service no longer knows is forgotten and the sign-in made again without it; a failed
/// `ConfirmDevice` is a warning with the tokens; remember, forget and list send what the API asks.
@Suite("Cognito devices: deleted-device recovery, ConfirmDevice warnings, remember/forget/list (scripted)")
struct CognitoDeviceLifecycleTests {
    static let configuration = try! CognitoUserPoolConfiguration(
        region: "us-east-1",
        userPoolId: "us-east-1_Abc123",
        clientId: "client1"
    )  // test constant
    static let device = CognitoRememberedDevice(
        deviceKey: "us-east-1_dev-1",
        deviceGroupKey: "-grp",
        devicePassword: SecureBytes(Array("pw".utf8))
    )

    static func tokensAnswer(newDevice: Bool = false) -> HTTPResponse {
        let now = Int(Date().timeIntervalSince1970)
        var result: [String: Any] = [
            "IdToken": unsignedJWT(["exp": now + 3600, "iat": now]),
            "AccessToken": unsignedJWT(["username": "alice", "exp": now + 3600, "iat": now]),
            "RefreshToken": "refresh", "ExpiresIn": 3600, "TokenType": "Bearer",
        ]
        if newDevice { result["NewDeviceMetadata"] = ["DeviceKey": "us-east-1_dev-2", "DeviceGroupKey": "-grp2"] }
        return .jsonAnswer(200, ["AuthenticationResult": result, "ChallengeParameters": [:]])
    }

    static func body(_ request: HTTPRequest) throws -> [String: Any] {
        let bytes = try #require(request.body.withInMemoryBytes { Array($0) })
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test(
        "a remembered device the service deleted: forgotten, the sign-in made again without DEVICE_KEY, a warning with the tokens"
    )
    func deletedDevice() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(400, ["__type": "ResourceNotFoundException", "message": "Device does not exist."]),
            Self.tokensAnswer(),
        ])
        let store = InMemoryCognitoDeviceStore()
        await store.save(Self.device, for: "alice")
        let client = CognitoSignIn(
            configuration: Self.configuration,
            transport: transport,
            deviceStore: store,
            retryPolicy: .none
        )
        let result = try await client.signIn(
            username: "alice",
            password: SecureBytes(Array("pw".utf8)),
            flow: .userPassword
        )
        guard case .signedIn(let tokens) = result else {
            Issue.record("expected tokens, got \(result)")
            return
        }
        #expect(tokens.warnings == [.rememberedDeviceForgotten("ResourceNotFoundException: Device does not exist.")])
        #expect(await store.device(for: "alice") == nil)
        let sent = transport.sent
        #expect(sent.count == 2)
        let first = try #require(try Self.body(sent[0])["AuthParameters"] as? [String: String])
        let second = try #require(try Self.body(sent[1])["AuthParameters"] as? [String: String])
        #expect(first["DEVICE_KEY"] == "us-east-1_dev-1")
        #expect(second["DEVICE_KEY"] == nil)
        #expect(await client.holdsPassword == false)
    }

    @Test(
        "ResourceNotFoundException about something else (the client) keeps the device and fails the sign-in; no device, no retry"
    )
    func otherNotFound() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(
                400,
                ["__type": "ResourceNotFoundException", "message": "User pool client client1 does not exist."]
            )
        ])
        let store = InMemoryCognitoDeviceStore()
        await store.save(Self.device, for: "alice")
        let client = CognitoSignIn(
            configuration: Self.configuration,
            transport: transport,
            deviceStore: store,
            retryPolicy: .none
        )
        let error = await #expect(throws: AuthCoreError.self) {
            try await client.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        }
        #expect(error?.serviceErrorType == "ResourceNotFoundException")
        #expect(await store.device(for: "alice")?.deviceKey == "us-east-1_dev-1")
        #expect(transport.sent.count == 1)

        let again = ScriptedTransport([
            .jsonAnswer(400, ["__type": "ResourceNotFoundException", "message": "Device does not exist."])
        ])
        let without = CognitoSignIn(configuration: Self.configuration, transport: again, retryPolicy: .none)
        _ = await #expect(throws: AuthCoreError.self) {
            try await without.signIn(username: "bob", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        }
        #expect(again.sent.count == 1, "no device was sent: nothing to retry without")
    }

    @Test("a failed ConfirmDevice: signed in all the same, with a deviceNotRemembered warning, and no device stored")
    func confirmDeviceFails() async throws {
        let transport = ScriptedTransport([
            Self.tokensAnswer(newDevice: true),
            .jsonAnswer(400, ["__type": "InvalidParameterException", "message": "Device already confirmed."]),
        ])
        let store = InMemoryCognitoDeviceStore()
        let client = CognitoSignIn(
            configuration: Self.configuration,
            transport: transport,
            deviceStore: store,
            retryPolicy: .none
        )
        let result = try await client.signIn(
            username: "alice",
            password: SecureBytes(Array("pw".utf8)),
            flow: .userPassword
        )
        guard case .signedIn(let tokens) = result else {
            Issue.record("expected tokens, got \(result)")
            return
        }
        #expect(tokens.warnings == [.deviceNotRemembered("InvalidParameterException: Device already confirmed.")])
        #expect(await store.device(for: "alice") == nil)
        #expect(
            transport.sent.last?.headers.first(named: "X-Amz-Target")
                == "AWSCognitoIdentityProviderService.ConfirmDevice"
        )

        let fine = ScriptedTransport([
            Self.tokensAnswer(newDevice: true), .jsonAnswer(200, ["UserConfirmationNecessary": false]),
        ])
        let confirmed = CognitoSignIn(
            configuration: Self.configuration,
            transport: fine,
            deviceStore: store,
            retryPolicy: .none
        )
        guard
            case .signedIn(let good) = try await confirmed.signIn(
                username: "alice",
                password: SecureBytes(Array("pw".utf8)),
                flow: .userPassword
            )
        else {
            Issue.record("expected tokens")
            return
        }
        #expect(good.warnings.isEmpty)
        #expect(await store.device(for: "alice")?.deviceKey == "us-east-1_dev-2")
    }

    @Test("remember, list (every page) and forget: the requests, and this device forgotten locally")
    func manageDevices() async throws {
        let transport = ScriptedTransport([
            Self.tokensAnswer(),
            .jsonAnswer(200, [:]),
            .jsonAnswer(
                200,
                [
                    "Devices": [
                        [
                            "DeviceKey": "us-east-1_dev-1",
                            "DeviceAttributes": [["Name": "device_name", "Value": "laptop"]],
                            "DeviceCreateDate": 1_780_000_000.5, "DeviceLastAuthenticatedDate": 1_790_000_000,
                        ]
                    ], "PaginationToken": "p2",
                ]
            ),
            .jsonAnswer(200, ["Devices": [["DeviceKey": "us-east-1_dev-9"]]]),
            .jsonAnswer(200, [:]),
        ])
        let devices = InMemoryCognitoDeviceStore()
        let session = CognitoSession(
            configuration: Self.configuration,
            transport: transport,
            deviceStore: devices,
            retryPolicy: .none
        )
        _ = try await session.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        await devices.save(Self.device, for: "alice")
        try await session.rememberDevice()
        let listed = try await session.fetchDevices()
        #expect(listed.map(\.deviceKey) == ["us-east-1_dev-1", "us-east-1_dev-9"])
        #expect(listed.first?.name == "laptop")
        #expect(listed.first?.lastAuthenticatedAt == Timestamp(secondsSince1970: 1_790_000_000))
        try await session.forgetDevice()
        #expect(await devices.device(for: "alice") == nil)

        let sent = transport.sent
        let remember = try Self.body(sent[1])
        #expect(
            remember["DeviceKey"] as? String == "us-east-1_dev-1"
                && remember["DeviceRememberedStatus"] as? String == "remembered"
        )
        #expect(try Self.body(sent[2])["PaginationToken"] == nil && Self.body(sent[2])["Limit"] as? Int == 60)
        #expect(try Self.body(sent[3])["PaginationToken"] as? String == "p2")
        #expect(try Self.body(sent[4])["DeviceKey"] as? String == "us-east-1_dev-1")
        #expect(sent[4].headers.first(named: "X-Amz-Target") == "AWSCognitoIdentityProviderService.ForgetDevice")

        let none = await #expect(throws: AuthCoreError.self) { try await session.rememberDevice() }
        #expect(none?.code == .invalidParameter)
    }

    @Test("a ListDevices that repeats its pagination token is refused, not followed forever")
    func paginationLoop() async throws {
        let page: HTTPResponse = .jsonAnswer(200, ["Devices": [], "PaginationToken": "same"])
        let api = CognitoIdentityProviderAPI(
            configuration: Self.configuration,
            transport: ScriptedTransport([page, page]),
            retryPolicy: .none
        )
        let error = await #expect(throws: AuthCoreError.self) { try await api.listDevices(accessToken: "a") }
        #expect(error?.code == .malformedResponse)
    }

    @Test(
        "the retry without the device fails too: that error is thrown, after exactly two requests, and the device stays forgotten"
    )
    func retryFails() async throws {
        let gone: HTTPResponse = .jsonAnswer(
            400,
            ["__type": "ResourceNotFoundException", "message": "Device does not exist."]
        )
        let refused: HTTPResponse = .jsonAnswer(
            400,
            ["__type": "NotAuthorizedException", "message": "Incorrect username or password."]
        )
        let transport = ScriptedTransport([gone, refused])
        let store = InMemoryCognitoDeviceStore()
        await store.save(Self.device, for: "alice")
        let client = CognitoSignIn(
            configuration: Self.configuration,
            transport: transport,
            deviceStore: store,
            retryPolicy: .none
        )
        let error = await #expect(throws: AuthCoreError.self) {
            try await client.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        }
        #expect(error?.serviceErrorType == "NotAuthorizedException")
        #expect(transport.sent.count == 2)
        #expect(await store.device(for: "alice") == nil)
        #expect(await client.holdsPassword == false)
    }

    @Test(
        "a flow whose first call may send codes is not made again: the device is forgotten and the error thrown; so in a later step"
    )
    func noRetryForCustomFlows() async throws {
        let gone: HTTPResponse = .jsonAnswer(
            400,
            ["__type": "ResourceNotFoundException", "message": "Device does not exist."]
        )
        let store = InMemoryCognitoDeviceStore()
        await store.save(Self.device, for: "alice")
        let first = ScriptedTransport([gone])
        let custom = CognitoSignIn(
            configuration: Self.configuration,
            transport: first,
            deviceStore: store,
            retryPolicy: .none
        )
        _ = await #expect(throws: AuthCoreError.self) {
            try await custom.signIn(username: "alice", password: nil, flow: .customWithoutSRP)
        }
        #expect(first.sent.count == 1)
        #expect(await store.device(for: "alice") == nil)

        // In a later step (the custom challenge's answer).
        await store.save(Self.device, for: "alice")
        let later = ScriptedTransport([
            .jsonAnswer(
                200,
                [
                    "ChallengeName": "CUSTOM_CHALLENGE", "ChallengeParameters": ["USERNAME": "alice", "question": "?"],
                    "Session": "s",
                ]
            ), gone,
        ])
        let client = CognitoSignIn(
            configuration: Self.configuration,
            transport: later,
            deviceStore: store,
            retryPolicy: .none
        )
        _ = try await client.signIn(username: "alice", password: nil, flow: .customWithoutSRP)
        let error = await #expect(throws: AuthCoreError.self) {
            try await client.confirmSignIn(challengeResponse: "answer")
        }
        #expect(error?.serviceErrorType == "ResourceNotFoundException")
        #expect(await store.device(for: "alice") == nil, "forgotten for the next sign-in")
    }
}
