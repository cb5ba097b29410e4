import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The self-service calls no local peer has (`GetUserAttributeVerificationCode`,
/// `VerifyUserAttribute`, e-mail MFA) and the request shapes of the others, against scripted answers
/// shaped as the API reference documents them. The calls ministack has are proved against it in
/// `CognitoSelfServiceTests`.
@Suite("Cognito self-service: request shapes and answers (scripted)")
struct CognitoSelfServiceUnitTests {
    static func api(_ transport: ScriptedTransport) throws -> CognitoIdentityProviderAPI {
        CognitoIdentityProviderAPI(
            configuration: try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1"
            ),
            transport: transport,
            retryPolicy: .none
        )
    }

    static func body(_ request: HTTPRequest?) throws -> [String: Any] {
        let bytes = try #require(request?.body.withInMemoryBytes { Array($0) })
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test(
        "an attribute's verification: the code sent, then confirmed; a wrong code is the service's CodeMismatchException"
    )
    func verifyAttribute() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(
                200,
                [
                    "CodeDeliveryDetails": [
                        "AttributeName": "email", "DeliveryMedium": "EMAIL", "Destination": "a***@e***.com",
                    ]
                ]
            ),
            .jsonAnswer(
                400,
                ["__type": "CodeMismatchException", "message": "Invalid verification code provided, please try again."]
            ),
            .jsonAnswer(200, [:]),
        ])
        let api = try Self.api(transport)
        let delivery = try await api.userAttributeVerificationCode(
            accessToken: "access",
            attributeName: "email",
            clientMetadata: ["k": "v"]
        )
        #expect(delivery == CognitoCodeDelivery(medium: "EMAIL", destination: "a***@e***.com"))
        let wrong = await #expect(throws: AuthCoreError.self) {
            try await api.verifyUserAttribute(accessToken: "access", attributeName: "email", code: "000000")
        }
        #expect(wrong?.serviceErrorType == "CodeMismatchException")
        try await api.verifyUserAttribute(accessToken: "access", attributeName: "email", code: "123456")
        let sent = transport.sent
        #expect(
            sent.map { $0.headers.first(named: "X-Amz-Target") } == [
                "AWSCognitoIdentityProviderService.GetUserAttributeVerificationCode",
                "AWSCognitoIdentityProviderService.VerifyUserAttribute",
                "AWSCognitoIdentityProviderService.VerifyUserAttribute",
            ]
        )
        let first = try Self.body(sent.first)
        #expect(first["AccessToken"] as? String == "access" && first["AttributeName"] as? String == "email")
        #expect(first["ClientMetadata"] as? [String: String] == ["k": "v"])
        let last = try Self.body(sent.last)
        #expect(last["Code"] as? String == "123456" && last["AttributeName"] as? String == "email")
    }

    @Test("an update that needs verifying: each attribute's delivery from CodeDeliveryDetailsList")
    func updateWithVerification() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(
                200,
                [
                    "CodeDeliveryDetailsList": [
                        ["AttributeName": "email", "DeliveryMedium": "EMAIL", "Destination": "n***@e***.com"],
                        ["AttributeName": "phone_number", "DeliveryMedium": "SMS", "Destination": "+*******0100"],
                    ]
                ]
            )
        ])
        let pending = try await Self.api(transport).updateUserAttributes(
            accessToken: "access",
            attributes: ["email": "new@example.com", "phone_number": "+15550100"]
        )
        #expect(
            pending == [
                "email": CognitoCodeDelivery(medium: "EMAIL", destination: "n***@e***.com"),
                "phone_number": CognitoCodeDelivery(medium: "SMS", destination: "+*******0100"),
            ]
        )
        let body = try Self.body(transport.sent.first)
        let attributes = try #require(body["UserAttributes"] as? [[String: String]])
        #expect(
            attributes == [
                ["Name": "email", "Value": "new@example.com"], ["Name": "phone_number", "Value": "+15550100"],
            ]
        )
        let empty = await #expect(throws: AuthCoreError.self) {
            try await Self.api(ScriptedTransport([])).updateUserAttributes(accessToken: "a", attributes: [:])
        }
        #expect(empty?.code == .invalidParameter)
    }

    @Test(
        "MFA preferences: SMSMfaSettings, SoftwareTokenMfaSettings, EmailMfaSettings as the API names them; one left out is not sent"
    )
    func mfaPreferenceShape() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(200, [:]),
            .jsonAnswer(
                200,
                [
                    "UserMFASettingList": ["EMAIL_OTP", "SMS_MFA"], "PreferredMfaSetting": "EMAIL_OTP", "Username": "u",
                    "UserAttributes": [],
                ]
            ), .jsonAnswer(200, ["UserMFASettingList": ["WEIRD_MFA"], "Username": "u"]),
        ])
        let api = try Self.api(transport)
        try await api.setMFAPreference(accessToken: "access", sms: .notPreferred, email: .preferred)
        let body = try Self.body(transport.sent.first)
        #expect(body["SMSMfaSettings"] as? [String: Bool] == ["Enabled": true, "PreferredMfa": false])
        #expect(body["EmailMfaSettings"] as? [String: Bool] == ["Enabled": true, "PreferredMfa": true])
        #expect(body["SoftwareTokenMfaSettings"] == nil)
        #expect(Set(body.keys) == ["AccessToken", "SMSMfaSettings", "EmailMfaSettings"])
        #expect(
            try await api.mfaStatus(accessToken: "access")
                == CognitoMFAStatus(enabled: [.email, .sms], preferred: .email)
        )
        let unknown = await #expect(throws: AuthCoreError.self) { try await api.mfaStatus(accessToken: "access") }
        #expect(unknown?.code == .malformedResponse)
        let none = await #expect(throws: AuthCoreError.self) {
            try await Self.api(ScriptedTransport([])).setMFAPreference(accessToken: "a")
        }
        #expect(none?.code == .invalidParameter)
        let enabledOnly = ScriptedTransport([.jsonAnswer(200, [:])])
        try await Self.api(enabledOnly).setMFAPreference(accessToken: "a", totp: .enabled)
        #expect(
            try Self.body(enabledOnly.sent.first)["SoftwareTokenMfaSettings"] as? [String: Bool] == ["Enabled": true]
        )
    }

    @Test("change password: both passwords go in the body from wiping storage, never in a plain copy")
    func changePasswordShape() async throws {
        let transport = ScriptedTransport([.jsonAnswer(200, [:])])
        try await Self.api(transport).changePassword(
            accessToken: "access",
            previous: SecureBytes(Array("Old-Pa55!".utf8)),
            proposed: SecureBytes(Array("New-Pa55!".utf8))
        )
        let request = try #require(transport.sent.first)
        guard case .secret = request.body else {
            Issue.record("the body is not in wiping storage")
            return
        }
        let body = try Self.body(request)
        #expect(
            body["PreviousPassword"] as? String == "Old-Pa55!" && body["ProposedPassword"] as? String == "New-Pa55!"
        )
    }
}
