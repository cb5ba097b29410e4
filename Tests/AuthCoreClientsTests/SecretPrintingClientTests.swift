import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreClients

/// No token, password or secret key in any printed form of the clients' public types.
@Suite("Client values print no secret, by any route")
struct SecretPrintingClientTests {
    static let token = "eyJraWQiOiJTRUNSRVRUT0tFTk1BUktFUiJ9"
    static let secret = "SecretKeyMARKER0123456789"

    @Test("HTTPRequest and HTTPResponse: bodies, credential headers and URL tokens are not printed")
    func http() throws {
        let body = Array(#"{"AuthParameters":{"PASSWORD":"\#(Self.secret)"}}"#.utf8)
        let request = HTTPRequest(
            method: "POST",
            url: try RequestURL("https://cognito-idp.us-east-1.amazonaws.com/?token=\(Self.token)"),
            headers: [HTTPHeader("Authorization", Self.token)],
            body: body
        )
        expectNoSecret(request, [Self.secret, Self.token, "123, 34, 65"])
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Set-Cookie", Self.token)], body: body)
        expectNoSecret(response, [Self.secret, Self.token, "123, 34, 65"])
        #expect("\(response)" == "HTTPResponse(200, headers: Set-Cookie, body: \(body.count) bytes)")
        // Secret bodies: the counts only.
        var secretRequest = request
        secretRequest.body = .secret(SecureBytes(body))
        expectNoSecret(secretRequest, [Self.secret, Self.token, "123, 34, 65"])
        let secretResponse = HTTPResponse(status: 200, body: .secret(SecureBytes(body)))
        expectNoSecret(secretResponse, [Self.secret, "123, 34, 65"])
        #expect("\(secretResponse)" == "HTTPResponse(200, headers: , body: \(body.count) secret bytes)")
        let members = try SecretJSONMembers(
            parsing: SecureBytes(Array(#"{"Credentials":{"SecretKey":"\#(Self.secret)"}}"#.utf8)),
            paths: [["Credentials", "SecretKey"]],
            context: "t"
        )
        expectNoSecret(members, [Self.secret])
    }

    @Test("JSONObject shows its keys, never its values")
    func json() throws {
        let object = try JSONObject(
            parsing: Array(#"{"Credentials":{"SecretKey":"\#(Self.secret)","SessionToken":"\#(Self.token)"}}"#.utf8),
            context: "GetCredentialsForIdentity"
        )
        expectNoSecret(object, [Self.secret, Self.token])
        #expect("\(object)" == "JSONObject(GetCredentialsForIdentity, keys: Credentials)")
    }

    @Test("CognitoTokens, CognitoSignInResult, CognitoNextStep (TOTP secret), remembered device")
    func cognito() throws {
        let tokens = CognitoTokens(
            idToken: Self.token + "id",
            accessToken: Self.token + "access",
            refreshToken: Self.token + "refresh",
            expiresIn: 3600,
            tokenType: "Bearer",
            newDevice: (deviceKey: "us-east-1_DEVICEKEYMARKER", deviceGroupKey: "-grp")
        )
        expectNoSecret(tokens, [Self.token, "DEVICEKEYMARKER"])
        expectNoSecret(CognitoSignInResult.signedIn(tokens), [Self.token])
        let totp = CognitoNextStep.continueSignInWithTOTPSetup(
            sharedSecret: "JBSWY3DPEHPK3PXPMARKER",
            username: "alice"
        )
        expectNoSecret(totp, ["JBSWY3DPEHPK3PXPMARKER"])
        expectNoSecret(CognitoSignInResult.nextStep(totp), ["JBSWY3DPEHPK3PXPMARKER"])
        let custom = CognitoNextStep.confirmSignInWithCustomChallenge(parameters: ["answerHint": Self.secret])
        expectNoSecret(custom, [Self.secret])
        let device = CognitoRememberedDevice(
            deviceKey: "us-east-1_DEVICEKEYMARKER99",
            deviceGroupKey: "-grp",
            devicePassword: SecureBytes(Array(Self.secret.utf8))
        )
        expectNoSecret(device, ["DEVICEKEYMARKER", Self.secret])
        #expect("\(device)" == "CognitoRememberedDevice(…ER99)")
    }

    @Test("identity-pool logins: developer and provider tokens are redacted")
    func logins() {
        let token = DeveloperIdentityToken(
            identityId: "us-east-1:abc",
            token: Self.token,
            loginsKey: "cognito-identity.amazonaws.com"
        )
        expectNoSecret(token, [Self.token])
        #expect(
            "\(token)"
                == "DeveloperIdentityToken(identityId: us-east-1:abc, token: <redacted>, loginsKey: cognito-identity.amazonaws.com)"
        )
        expectNoSecret(IdentityLogin.developer(token), [Self.token])
        let providers = IdentityLogin.providers(["accounts.google.com": Self.token])
        expectNoSecret(providers, [Self.token])
        #expect("\(providers)" == "providers(accounts.google.com: <redacted>)")
    }

    @Test("an app error's text is not copied into the credentials error")
    func closureErrors() async throws {
        struct AppError: Error, CustomStringConvertible {
            var description: String { "failed with \(SecretPrintingClientTests.secret)" }
        }
        let provider = ClosureCredentialsProvider { throw AppError() }
        let error = await #expect(throws: AuthCoreError.self) { try await provider.credentials() }
        #expect(error?.code == .credentialsUnavailable)
        #expect(!(error?.reason.contains(Self.secret) ?? true))
    }
    @Test("stored sessions, pending sign-ins, sessions, verifiers and RSA keys print no token or session string")
    func sessions() async throws {
        let stored = CognitoStoredSession(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1",
            username: "alice",
            tokens: CognitoTokens(
                idToken: Self.token + "id",
                accessToken: Self.token + "access",
                refreshToken: Self.token + "refresh",
                expiresIn: 60
            ),
            expiresAt: Timestamp(secondsSince1970: 1_800_000_000)
        )
        expectNoSecret(stored, [Self.token])
        #expect(
            "\(stored)" == "CognitoStoredSession(us-east-1_Abc123, client client1, expiresAt: 2027-01-15T08:00:00Z)"
        )
        let encoded = try stored.encoded()
        let pendingJSON =
            #"{"version":1,"flow":"user-srp","challengeName":"SOFTWARE_TOKEN_MFA","username":"alice","parameters":{"SECRET":"\#(Self.secret)"},"clientMetadata":{},"privateValueBitCount":256,"region":"us-east-1","userPoolId":"us-east-1_Abc123","clientId":"client1","typedUsername":"alice","session":"\#(Self.token)"}"#
        let pending = try CognitoPendingSignIn(decoding: SecureBytes(Array(pendingJSON.utf8)))
        expectNoSecret(pending, [Self.token, Self.secret])
        #expect(pending.challengeName == .softwareTokenMFA)
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1"
        )
        let store = InMemoryCognitoTokenStore()
        try await store.save(try CognitoStoredSession(decoding: encoded))
        let session = CognitoSession(configuration: configuration, store: store)
        _ = try await session.status()
        expectNoSecret(session, [Self.token])
        let verifier = try CognitoTokenVerifier(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientIds: ["client1"]
        )
        expectNoSecret(verifier, [Self.token])
        expectNoSecret(store, [Self.token])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-print-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fileStore = try FileCognitoTokenStore(path: directory + "/s.json")
        try await fileStore.save(try CognitoStoredSession(decoding: encoded))
        expectNoSecret(fileStore, [Self.token])
        expectNoSecret(try FileCognitoDeviceStore(path: directory + "/d.json"), [Self.token])
    }
}
