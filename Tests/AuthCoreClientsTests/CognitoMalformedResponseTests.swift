import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

@Suite("Cognito: malformed responses are typed errors, never crashes")
struct CognitoMalformedResponseTests {
    let configuration = try! CognitoUserPoolConfiguration(
        region: "us-east-1",
        userPoolId: "us-east-1_Xa1b2C3d4",
        clientId: "client"
    )  // test constant

    func verifierChallenge(_ parameters: [String: String]) -> HTTPResponse {
        let body: [String: Any] = [
            "ChallengeName": "PASSWORD_VERIFIER", "ChallengeParameters": parameters, "Session": "s",
        ]
        return HTTPResponse(status: 200, body: [UInt8]((try? JSONSerialization.data(withJSONObject: body)) ?? Data()))
    }

    func signIn(_ responses: [HTTPResponse]) async -> AuthCoreError? {
        let client = CognitoSignIn(
            configuration: configuration,
            transport: ScriptedTransport(responses),
            clock: FixedClock(Timestamp(secondsSince1970: 1_772_510_706)),
            random: SeededRandom(seed: 4)
        )
        do {
            _ = try await client.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)))
            return nil
        } catch {
            return error
        }
    }

    static let valid: [String: String] = [
        "SALT": "7461e6b9129cbd1f36dd61594c09a431", "SRP_B": "9f4b1a", "SECRET_BLOCK": "AQIDBA==",
        "USER_ID_FOR_SRP": "7dc1653c-8866-499d-9bd0-05662060d645", "USERNAME": "7dc1653c-8866-499d-9bd0-05662060d645",
    ]

    @Test(
        "PASSWORD_VERIFIER parameters: each malformed one gives the right code and names the parameter",
        arguments: [
            ("SRP_B", nil, AuthCoreError.Code.malformedResponse),
            ("SRP_B", "zz-not-hex", .invalidHex),
            ("SRP_B", "0", .unsafePublicValue),
            ("SRP_B", String(repeating: "f", count: 800), .unsafePublicValue),
            ("SALT", nil, .malformedResponse),
            ("SALT", "xyz", .invalidHex),
            ("SECRET_BLOCK", "0f5e3c2a-1b4d-4e6f-8a9b-0c1d2e3f4a5b", .invalidBase64),
            ("SECRET_BLOCK", nil, .malformedResponse),
            ("USER_ID_FOR_SRP", nil, .malformedResponse),
        ] as [(String, String?, AuthCoreError.Code)]
    )
    func malformedVerifier(parameter: String, value: String?, code: AuthCoreError.Code) async {
        var parameters = Self.valid
        parameters[parameter] = value
        let error = await signIn([verifierChallenge(parameters)])
        #expect(error?.code == code)
        if code != .unsafePublicValue {
            #expect(error?.reason.contains(parameter) == true, "\(String(describing: error))")
        }
    }

    @Test("bodies that are not the documented shape")
    func malformedBodies() async {
        let cases: [(String, AuthCoreError.Code)] = [
            ("not json", .malformedResponse),
            ("[1,2,3]", .malformedResponse),
            ("{}", .malformedResponse),  // neither tokens nor a challenge
            (#"{"AuthenticationResult":{"IdToken":"i","ExpiresIn":3600}}"#, .malformedResponse),  // no AccessToken
            (#"{"AuthenticationResult":{"IdToken":"i","AccessToken":"a","ExpiresIn":"soon"}}"#, .malformedResponse),
            (#"{"ChallengeName":"SMS_MFA","ChallengeParameters":{"CODE_DELIVERY_DESTINATION":5}}"#, .malformedResponse),
            (
                #"{"ChallengeName":"SELECT_MFA_TYPE","ChallengeParameters":{"MFAS_CAN_CHOOSE":"[not json"}}"#,
                .malformedResponse
            ),
            (#"{"ChallengeName":"SOMETHING_NEW","ChallengeParameters":{}}"#, .unsupported),
        ]
        for (body, code) in cases {
            let error = await signIn([HTTPResponse(status: 200, body: Array(body.utf8))])
            #expect(error?.code == code, "\(body): \(String(describing: error))")
        }
        // ExpiresIn outside 1...366 days, fractional or of another type: an error naming the field, not its value.
        for expiresIn in ["1e300", "-5", "1.5", "true", "0", "31622401", "\"3600\"", "null"] {
            let body = #"{"AuthenticationResult":{"IdToken":"i","AccessToken":"a","ExpiresIn":"# + expiresIn + "}}"
            let error = await signIn([HTTPResponse(status: 200, body: Array(body.utf8))])
            #expect(error?.code == .malformedResponse, "\(expiresIn)")
            #expect(
                error?.reason.contains("InitiateAuth: AuthenticationResult.ExpiresIn") == true,
                "\(String(describing: error?.reason))"
            )
            #expect(
                error?.reason.contains(expiresIn) == false || expiresIn == "0",
                "\(String(describing: error?.reason))"
            )
        }
        // A refusal keeps the service's type and message; one with a non-JSON body still gives a typed error.
        let refused = await signIn([
            HTTPResponse(
                status: 400,
                body: Array(#"{"__type":"NotAuthorizedException","message":"Incorrect username or password."}"#.utf8)
            )
        ])
        #expect(refused?.reason == "NotAuthorizedException: Incorrect username or password.")
        // (A 502 to InitiateAuth with USER_SRP_AUTH is retried: three answers, the last one reported.)
        let html = await signIn(
            Array(repeating: HTTPResponse(status: 502, body: Array("<html>bad gateway</html>".utf8)), count: 3)
        )
        #expect(html?.code == .serviceError)
        #expect(html?.httpStatus == 502)
    }

    @Test("confirmSignIn without a pending step, and oversized answers, are refused cleanly")
    func stateErrors() async {
        let client = CognitoSignIn(configuration: configuration, transport: ScriptedTransport([]))
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await client.confirmSignIn(challengeResponse: "123456")
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await client.signIn(username: "", password: nil)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await client.signIn(username: "a", password: nil, flow: .userSRP)
        }
    }
}
