import AuthCore
@testable import AuthCoreClients
import AuthCoreTestSupport
import Testing

/// No token, password or secret key in any printed form of the clients' public types.
@Suite("Client values print no secret, by any route")
struct SecretPrintingClientTests {
    static let token = "eyJraWQiOiJTRUNSRVRUT0tFTk1BUktFUiJ9"
    static let secret = "SecretKeyMARKER0123456789"

    static func assertNoSecret(_ value: Any, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let printed = everyPrintedForm(of: value)
        for secret in secrets {
            #expect(!printed.contains(secret), "printed form leaks \(secret.prefix(6))…: \(printed)", sourceLocation: sourceLocation)
        }
    }

    @Test("HTTPRequest and HTTPResponse: bodies, credential headers and URL tokens are not printed")
    func http() throws {
        let body = Array(#"{"AuthParameters":{"PASSWORD":"\#(Self.secret)"}}"#.utf8)
        let request = HTTPRequest(
            method: "POST", url: try RequestURL("https://cognito-idp.us-east-1.amazonaws.com/?token=\(Self.token)"),
            headers: [HTTPHeader("Authorization", Self.token)], body: body)
        Self.assertNoSecret(request, [Self.secret, Self.token, "123, 34, 65"])
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Set-Cookie", Self.token)], body: body)
        Self.assertNoSecret(response, [Self.secret, Self.token, "123, 34, 65"])
        #expect("\(response)" == "HTTPResponse(200, headers: Set-Cookie, body \(body.count) bytes)")
    }

    @Test("JSONObject shows its keys, never its values")
    func json() throws {
        let object = try JSONObject(
            parsing: Array(#"{"Credentials":{"SecretKey":"\#(Self.secret)","SessionToken":"\#(Self.token)"}}"#.utf8), context: "GetCredentialsForIdentity")
        Self.assertNoSecret(object, [Self.secret, Self.token])
        #expect("\(object)" == "JSONObject(GetCredentialsForIdentity, keys: Credentials)")
    }

    @Test("CognitoTokens, CognitoSignInResult, CognitoNextStep (TOTP secret), remembered device")
    func cognito() throws {
        let tokens = CognitoTokens(
            idToken: Self.token + "id", accessToken: Self.token + "access", refreshToken: Self.token + "refresh", expiresIn: 3600,
            tokenType: "Bearer", newDevice: (deviceKey: "us-east-1_DEVICEKEYMARKER", deviceGroupKey: "-grp"))
        Self.assertNoSecret(tokens, [Self.token, "DEVICEKEYMARKER"])
        Self.assertNoSecret(CognitoSignInResult.signedIn(tokens), [Self.token])
        let totp = CognitoNextStep.continueSignInWithTOTPSetup(sharedSecret: "JBSWY3DPEHPK3PXPMARKER", username: "alice")
        Self.assertNoSecret(totp, ["JBSWY3DPEHPK3PXPMARKER"])
        Self.assertNoSecret(CognitoSignInResult.nextStep(totp), ["JBSWY3DPEHPK3PXPMARKER"])
        let custom = CognitoNextStep.confirmSignInWithCustomChallenge(parameters: ["answerHint": Self.secret])
        Self.assertNoSecret(custom, [Self.secret])
        let device = CognitoRememberedDevice(
            deviceKey: "us-east-1_DEVICEKEYMARKER99", deviceGroupKey: "-grp", devicePassword: SecureBytes(Array(Self.secret.utf8)))
        Self.assertNoSecret(device, ["DEVICEKEYMARKER", Self.secret])
        #expect("\(device)" == "CognitoRememberedDevice(…ER99)")
    }

    @Test("identity-pool logins: developer and provider tokens are redacted")
    func logins() {
        let developer = CognitoIdentityCredentialsProvider.Login.developer(identityId: "us-east-1:abc", token: Self.token)
        Self.assertNoSecret(developer, [Self.token])
        let providers = CognitoIdentityCredentialsProvider.Login.providers(["accounts.google.com": Self.token])
        Self.assertNoSecret(providers, [Self.token])
        #expect("\(providers)" == "providers(accounts.google.com: <redacted>)")
    }

    @Test("an app error's text is not copied into the credentials error")
    func closureErrors() async throws {
        struct AppError: Error, CustomStringConvertible { var description: String { "failed with \(SecretPrintingClientTests.secret)" } }
        let provider = ClosureCredentialsProvider { throw AppError() }
        let error = await #expect(throws: AuthCoreError.self) { try await provider.credentials() }
        #expect(error?.code == .credentialsUnavailable)
        #expect(!(error?.reason.contains(Self.secret) ?? true))
    }
}
