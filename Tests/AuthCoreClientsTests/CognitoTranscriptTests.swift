import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Replays request/response transcripts that follow the Cognito API reference (InitiateAuth,
/// RespondToAuthChallenge, AssociateSoftwareToken, VerifySoftwareToken, ConfirmDevice; see
/// Fixtures/cognito/NOTES.md for sources). The client must send exactly the fixture's requests
/// (`<computed>` fields must be present and non-empty); moto does not implement USER_AUTH, custom
/// challenges or device calls, so these transcripts are what prove those flows.
@Suite("Cognito sign-in state machine against API-reference transcripts")
struct CognitoTranscriptTests {
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/AuthCoreClientsTests/Fixtures/cognito")

    /// Every transcript that starts from a sign-in or refresh (error-prefixed-type is a parser case,
    /// tested below; GetTokensFromRefreshToken is not implemented: refresh uses REFRESH_TOKEN_AUTH).
    static let scenarios = [
        "custom-with-srp", "custom-without-srp", "device-srp", "error-not-authorized", "error-password-reset-required",
        "error-user-not-confirmed", "refresh-token", "srp-mfa-setup-email", "srp-mfa-setup-totp",
        "srp-new-device-confirm",
        "srp-new-password-required", "srp-select-mfa-type", "srp-sms-mfa", "srp-totp-mfa",
        "user-auth-preferred-password-srp",
        "user-auth-preferred-password", "user-auth-preferred-sms-otp", "user-auth-select-challenge-email-otp",
        "user-auth-web-authn",
    ]

    struct Step {
        let target: String
        let body: [String: Any]
        let status: Int
        let response: [String: Any]
        let headers: [String: String]
    }

    static func load(_ name: String) throws -> (context: [String: Any], steps: [Step]) {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("\(name).json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let context = try #require(object["context"] as? [String: Any])
        let steps = try #require(object["steps"] as? [[String: Any]]).map { step -> Step in
            let request = step["request"] as? [String: Any] ?? [:]
            let response = step["response"] as? [String: Any] ?? [:]
            return Step(
                target: request["target"] as? String ?? "",
                body: request["body"] as? [String: Any] ?? [:],
                status: response["status"] as? Int ?? 0,
                response: response["body"] as? [String: Any] ?? [:],
                headers: response["headers"] as? [String: String] ?? [:]
            )
        }
        return (context, steps)
    }

    /// Compares a sent body with the fixture's, field by field (`<computed>`: present, non-empty).
    static func compare(_ sent: Any?, _ expected: Any, path: String, into issues: inout [String]) {
        switch expected {
        case let text as String where text == "<computed>":
            if (sent as? String)?.isEmpty ?? true { issues.append("\(path): missing computed value") }
        case let map as [String: Any]:
            guard let sentMap = sent as? [String: Any] else {
                issues.append("\(path): expected an object")
                return
            }
            for (key, value) in map { compare(sentMap[key], value, path: "\(path).\(key)", into: &issues) }
            for key in sentMap.keys where map[key] == nil { issues.append("\(path).\(key): not in the transcript") }
        case let text as String:
            if sent as? String != text { issues.append("\(path): expected \(text), got \(String(describing: sent))") }
        default:
            if "\(String(describing: sent))" != "\(String(describing: Optional(expected)))" {
                issues.append("\(path): expected \(expected), got \(String(describing: sent))")
            }
        }
    }

    @Test("the client sends exactly the transcript's requests and ends where it ends", arguments: scenarios)
    func replay(scenario: String) async throws {
        let (context, steps) = try Self.load(scenario)
        let responses = try steps.map { step in
            HTTPResponse(
                status: step.status,
                headers: [HTTPHeader("Content-Type", "application/x-amz-json-1.1")]
                    + step.headers.filter { $0.key != "Content-Type" }.sorted { $0.key < $1.key }.map {
                        HTTPHeader($0.key, $0.value)
                    },
                body: [UInt8](try JSONSerialization.data(withJSONObject: step.response))
            )
        }
        let transport = ScriptedTransport(responses)
        let store = InMemoryCognitoDeviceStore()
        let typed = context["typedUsername"] as? String ?? "alice@example.com"
        if let device = context["storedDevice"] as? [String: String] {
            await store.save(
                CognitoRememberedDevice(
                    deviceKey: device["DeviceKey"] ?? "",
                    deviceGroupKey: device["DeviceGroupKey"] ?? "",
                    devicePassword: SecureBytes(Array((device["devicePassword"] ?? "").utf8))
                ),
                for: typed
            )
        }
        let deviceName =
            steps.first { $0.target.hasSuffix("ConfirmDevice") }?.body["DeviceName"] as? String ?? "AuthCore"
        let configuration = try CognitoUserPoolConfiguration(
            region: context["region"] as? String ?? "us-east-1",
            userPoolId: context["userPoolId"] as? String ?? "",
            clientId: context["clientId"] as? String ?? "",
            clientSecret: (context["hasClientSecret"] as? Bool ?? false)
                ? SecureBytes(Array("test-client-secret".utf8)) : nil,
            deviceName: deviceName
        )
        let client = CognitoSignIn(
            configuration: configuration,
            transport: transport,
            clock: FixedClock(Timestamp(secondsSince1970: 1_772_510_706)),
            random: SeededRandom(seed: 11),
            deviceStore: store
        )
        let password = SecureBytes(
            Array(((steps[0].body["AuthParameters"] as? [String: String])?["PASSWORD"] ?? "Passw0rd!").utf8)
        )

        var outcome: Result<CognitoSignInResult, AuthCoreError>
        let first = steps[0]
        let flow = first.body["AuthFlow"] as? String
        let parameters = first.body["AuthParameters"] as? [String: String] ?? [:]
        do throws(AuthCoreError) {
            switch flow {
            case "REFRESH_TOKEN_AUTH":
                outcome = .success(
                    .signedIn(
                        try await client.refresh(
                            refreshToken: parameters["REFRESH_TOKEN"] ?? "",
                            deviceKey: parameters["DEVICE_KEY"]
                        )
                    )
                )
            default:
                let chosen: CognitoAuthFlow =
                    switch flow {
                    case "USER_PASSWORD_AUTH": .userPassword
                    case "CUSTOM_AUTH": parameters["CHALLENGE_NAME"] == "SRP_A" ? .customWithSRP : .customWithoutSRP
                    case "USER_AUTH": .userAuth
                    default: .userSRP
                    }
                let factor = parameters["PREFERRED_CHALLENGE"].flatMap(CognitoFactor.init(rawValue:))
                let needsPassword =
                    chosen != .customWithoutSRP
                    && !(chosen == .userAuth
                        && (factor == nil || factor == .emailOTP || factor == .smsOTP || factor == .webAuthn))
                outcome = .success(
                    try await client.signIn(
                        username: parameters["USERNAME"] ?? typed,
                        password: needsPassword ? password : nil,
                        flow: chosen,
                        preferredFirstFactor: factor,
                        clientMetadata: first.body["ClientMetadata"] as? [String: String] ?? [:]
                    )
                )
            }
            // Answer each next step the way the transcript's following request does.
            while case .success(.nextStep) = outcome, transport.sent.count < steps.count {
                let next = steps[transport.sent.count]
                let answers = next.body["ChallengeResponses"] as? [String: String] ?? [:]
                let answer: String
                var attributes: [String: String] = [:]
                if next.target.hasSuffix("VerifySoftwareToken") {
                    answer = next.body["UserCode"] as? String ?? ""
                    outcome = .success(
                        try await client.confirmSignIn(
                            challengeResponse: answer,
                            friendlyDeviceName: next.body["FriendlyDeviceName"] as? String
                        )
                    )
                    continue
                }
                for key in [
                    "ANSWER", "SMS_MFA_CODE", "SOFTWARE_TOKEN_MFA_CODE", "EMAIL_OTP_CODE", "SMS_OTP_CODE",
                    "NEW_PASSWORD", "PASSWORD", "CREDENTIAL", "EMAIL",
                ]
                where answers[key] != nil {
                    answer = answers[key] ?? ""
                    for (name, value) in answers where name.hasPrefix("userAttributes.") {
                        attributes[String(name.dropFirst(15))] = value
                    }
                    outcome = .success(
                        try await client.confirmSignIn(challengeResponse: answer, userAttributes: attributes)
                    )
                    break
                }
                if transport.sent.count < steps.count && steps[transport.sent.count].target == next.target
                    && answers.keys.allSatisfy({
                        ![
                            "ANSWER", "SMS_MFA_CODE", "SOFTWARE_TOKEN_MFA_CODE", "EMAIL_OTP_CODE", "SMS_OTP_CODE",
                            "NEW_PASSWORD", "PASSWORD", "CREDENTIAL", "EMAIL",
                        ].contains($0)
                    })
                {
                    Issue.record("the transcript's next request has no answer the app could give: \(next.body)")
                    break
                }
            }
        } catch {
            outcome = .failure(error)
        }

        // Every request matches the transcript, and every transcript request was sent.
        #expect(transport.sent.count == steps.count, "sent \(transport.sent.count) of \(steps.count) requests")
        for (index, request) in transport.sent.enumerated() where index < steps.count {
            #expect(request.headers.first(named: "X-Amz-Target") == steps[index].target, "request \(index)")
            #expect(request.headers.first(named: "Content-Type") == "application/x-amz-json-1.1")
            let body = try JSONSerialization.jsonObject(with: (request.body.withInMemoryBytes { Data($0) } ?? Data()))
            var issues: [String] = []
            Self.compare(body, steps[index].body, path: "request[\(index)]", into: &issues)
            #expect(issues.isEmpty, "\(issues)")
        }
        // The end state: tokens, or the service's error with its type kept.
        let last = steps[steps.count - 1]
        // Amplify's next steps for a user who cannot sign in yet (the fixtures' sources).
        let amplifySteps = [
            "error-user-not-confirmed": "confirmSignUp", "error-password-reset-required": "resetPassword",
        ]
        if let expected = amplifySteps[scenario] {
            guard case .success(.nextStep(let step)) = outcome else {
                Issue.record("expected the \(expected) next step, got \(outcome)")
                return
            }
            #expect(step.typeName == expected)
            #expect(await !client.holdsPassword)
        } else if last.status == 200 {
            guard case .success(.signedIn(let tokens)) = outcome else {
                Issue.record("expected tokens, got \(outcome)")
                return
            }
            let result =
                (steps.last { $0.response["AuthenticationResult"] != nil }?.response["AuthenticationResult"])
                as? [String: Any]
            #expect(tokens.accessToken == result?["AccessToken"] as? String)
            #expect(tokens.idToken == result?["IdToken"] as? String)
            #expect(!"\(tokens)".contains(tokens.accessToken))
            #expect(await !client.holdsPassword, "the password outlived the sign-in")
        } else {
            guard case .failure(let error) = outcome else {
                Issue.record("expected the service error, got \(outcome)")
                return
            }
            let type = try #require((last.response["__type"] as? String)?.split(separator: "#").last.map(String.init))
            #expect(error.code == .serviceError)
            #expect(await !client.holdsPassword, "the password outlived a failed sign-in")
            #expect(error.serviceErrorType == type)
            #expect(error.reason == "\(type): \(last.response["message"] as? String ?? "")")
            #expect(error.httpStatus == last.status)
            #expect(error.requestId == last.headers["x-amzn-RequestId"], "the request id of the refusal")
        }
        if scenario == "srp-new-device-confirm" {
            let remembered = await store.device(for: typed)
            #expect(remembered?.deviceKey == "us-east-1_bb0b853f-d818-499c-8a83-fd5884dbb9ea")
        }
    }

    @Test("next steps carry the parameters the app needs")
    func nextStepParameters() async throws {
        func firstStep(_ scenario: String) async throws -> CognitoNextStep? {
            let (context, steps) = try Self.load(scenario)
            let transport = ScriptedTransport(
                try steps.map {
                    HTTPResponse(
                        status: $0.status,
                        body: [UInt8](try JSONSerialization.data(withJSONObject: $0.response))
                    )
                }
            )
            let client = CognitoSignIn(
                configuration: try CognitoUserPoolConfiguration(
                    region: "us-east-1",
                    userPoolId: context["userPoolId"] as? String ?? "",
                    clientId: context["clientId"] as? String ?? "",
                    clientSecret: (context["hasClientSecret"] as? Bool ?? false) ? SecureBytes(Array("s".utf8)) : nil
                ),
                transport: transport,
                clock: FixedClock(Timestamp(secondsSince1970: 1_772_510_706)),
                random: SeededRandom(seed: 3)
            )
            let flow: CognitoAuthFlow = (steps[0].body["AuthFlow"] as? String) == "USER_AUTH" ? .userAuth : .userSRP
            if case .nextStep(let step) = try await client.signIn(
                username: "alice@example.com",
                password: SecureBytes(Array("pw".utf8)),
                flow: flow
            ) {
                return step
            }
            return nil
        }
        #expect(try await firstStep("srp-sms-mfa")?.typeName == "confirmSignInWithSMSMFACode")
        if case .confirmSignInWithSMSMFACode(let delivery)? = try await firstStep("srp-sms-mfa") {
            #expect(delivery.medium == "SMS")
            #expect(delivery.destination?.isEmpty == false)
        } else {
            Issue.record("no SMS step")
        }
        #expect(try await firstStep("srp-totp-mfa") == .confirmSignInWithTOTPCode)
        #expect(
            try await firstStep("srp-new-password-required")
                == .confirmSignInWithNewPassword(
                    userAttributes: ["email_verified": "true", "email": "alice@example.com"],
                    requiredAttributes: ["name"]
                )
        )
        #expect(
            try await firstStep("user-auth-select-challenge-email-otp")
                == .continueSignInWithFirstFactorSelection(availableFactors: [
                    .password, .passwordSRP, .emailOTP, .webAuthn,
                ])
        )
        if case .continueSignInWithTOTPSetup(let secret, let username)? = try await firstStep("srp-mfa-setup-totp") {
            #expect(secret == "6WHXMSFYAVMW5C43ZSZCR26IAYMGLXO47BVA2RDWI5QC7KRYW7WQ")
            #expect(username == "7dc1653c-8866-499d-9bd0-05662060d645")
        } else {
            Issue.record("no TOTP setup step")
        }
        #expect(try await firstStep("srp-mfa-setup-email") == .continueSignInWithEmailMFASetup)
        #expect(
            try await firstStep("user-auth-preferred-sms-otp")
                == .confirmSignInWithOTP(CognitoCodeDelivery(medium: "SMS", destination: "+*******0199"))
        )
        #expect(try await firstStep("srp-select-mfa-type")?.typeName == "continueSignInWithMFASelection")
        if case .confirmSignInWithWebAuthn(let options)? = try await firstStep("user-auth-web-authn") {
            #expect(options.contains("challenge"))
        } else {
            Issue.record("no WebAuthn step")
        }
    }

    @Test("an unknown first factor in AvailableChallenges is an error naming it, not dropped")
    func unknownFactor() async throws {
        let answer: HTTPResponse = .jsonAnswer(
            200,
            [
                "ChallengeName": "SELECT_CHALLENGE", "AvailableChallenges": ["PASSWORD", "FACE_SCAN"],
                "ChallengeParameters": [:], "Session": "s",
            ]
        )
        let client = CognitoSignIn(
            configuration: try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_Xa1b2C3d4",
                clientId: "c"
            ),
            transport: ScriptedTransport([answer]),
            retryPolicy: .none
        )
        let error = await #expect(throws: AuthCoreError.self) {
            try await client.signIn(username: "bob", password: nil, flow: .userAuth)
        }
        #expect(error?.code == .unsupported)
        #expect(error?.reason.contains("FACE_SCAN") == true)
    }

    @Test("a prefixed error type (namespace#Name) is reduced to the name")
    func prefixedErrorType() async throws {
        let (_, steps) = try Self.load("error-prefixed-type")
        let api = CognitoIdentityProviderAPI(
            configuration: try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_Xa1b2C3d4",
                clientId: "c"
            ),
            transport: ScriptedTransport([
                HTTPResponse(
                    status: steps[0].status,
                    body: [UInt8](try JSONSerialization.data(withJSONObject: steps[0].response))
                )
            ])
        )
        do {
            _ = try await api.call("RespondToAuthChallenge", [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .serviceError)
            #expect(error.serviceErrorType == "CodeMismatchException")
        }
    }
}
