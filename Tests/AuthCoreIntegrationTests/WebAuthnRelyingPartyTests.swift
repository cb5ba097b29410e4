import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// AuthCore's software passkey authenticator against an independent relying party: a loopback
/// stand-in whose every check is py_webauthn's (`scripts/webauthn_rp.py`, PyPI webauthn 3.0.1). It
/// verifies registrations (attestation `none` and `packed` self-attestation) and assertions made for
/// Cognito-shaped options, and refuses a wrong origin, RP id, challenge or counter. The Cognito calls
/// around them (`StartWebAuthnRegistration`, `CompleteWebAuthnRegistration`, the `WEB_AUTHN`
/// challenge) have no local peer: they are scripted answers here, and what the client sent Cognito is
/// handed to the relying party to verify.
@Suite("WebAuthn: the software authenticator against py_webauthn", .serialized)
final class WebAuthnRelyingPartyTests {
    static let origin = "https://login.authcore.test"
    let relyingParty: LoopbackScript

    init() throws {
        relyingParty = try LoopbackScript(
            script: "webauthn_rp.py",
            arguments: ["--rp-id", "authcore.test", "--origin", Self.origin]
        )
    }

    deinit { relyingParty.stop() }

    /// POSTs `body` to the relying party; its status and JSON answer.
    func post(_ path: String, _ body: [String: Any]) async throws -> (status: Int, answer: [String: Any]) {
        let response = try await HTTP1Transport().send(
            HTTPRequest(
                method: "POST",
                url: try RequestURL(relyingParty.url + path),
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: [UInt8](try JSONSerialization.data(withJSONObject: body))
            )
        )
        let answer = try JSONSerialization.jsonObject(with: Data(response.body.plainBytes)) as? [String: Any] ?? [:]
        return (response.status, answer)
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Registers a credential of `authenticator` with the relying party; the verification's answer.
    func register(_ authenticator: SoftwareWebAuthnAuthenticator) async throws -> (status: Int, answer: [String: Any]) {
        let options = try await post("/registration/options", ["userName": "alice"])
        let ceremony = try #require(options.answer["ceremony"] as? String)
        let creation = try JSONSerialization.data(withJSONObject: try #require(options.answer["options"]))
        let credential = try await authenticator.createCredential(options: [UInt8](creation))
        return try await post(
            "/registration/verify",
            ["ceremony": ceremony, "credential": try Self.object(credential)]
        )
    }

    /// The relying party's request options (a JSON string, as Cognito's CREDENTIAL_REQUEST_OPTIONS).
    func requestOptions() async throws -> (ceremony: String, options: String) {
        let answer = try await post("/authentication/options", [:]).answer
        return (try #require(answer["ceremony"] as? String), try #require(answer["options"] as? String))
    }

    func verify(_ ceremony: String, _ credential: [UInt8]) async throws -> (status: Int, answer: [String: Any]) {
        try await post(
            "/authentication/verify",
            ["ceremony": ceremony, "credential": String(decoding: credential, as: UTF8.self)]
        )
    }

    @Test(
        "registration: attestation none and packed self-attestation, each verified by py_webauthn",
        arguments: [
            SoftwareWebAuthnAuthenticator.Attestation.none, .packedSelf,
        ]
    )
    func registration(attestation: SoftwareWebAuthnAuthenticator.Attestation) async throws {
        let authenticator = try SoftwareWebAuthnAuthenticator(origin: Self.origin, attestation: attestation)
        let verified = try await register(authenticator)
        #expect(verified.status == 200, "\(verified.answer)")
        #expect(verified.answer["fmt"] as? String == (attestation == .none ? "none" : "packed"))
        #expect(verified.answer["userVerified"] as? Bool == true)
        #expect(verified.answer["credentialId"] as? String == (await authenticator.credentialIds.first))
        // The relying party excludes the credential it holds: the authenticator refuses to make another.
        let options = try await post("/registration/options", ["userName": "alice"])
        let creation = [UInt8](try JSONSerialization.data(withJSONObject: try #require(options.answer["options"])))
        let excluded = await #expect(throws: AuthCoreError.self) {
            try await authenticator.createCredential(options: creation)
        }
        #expect(excluded?.code == .invalidParameter, "\(String(describing: excluded))")
    }

    @Test(
        "assertions: verified, the counter rising; a wrong origin, RP id, challenge or counter is refused by py_webauthn"
    )
    func assertions() async throws {
        let authenticator = try SoftwareWebAuthnAuthenticator(origin: Self.origin, attestation: .packedSelf)
        #expect(try await register(authenticator).status == 200)
        for expected in 1...2 {
            let request = try await requestOptions()
            let verified = try await verify(
                request.ceremony,
                try await authenticator.getAssertion(options: Array(request.options.utf8))
            )
            #expect(verified.status == 200, "\(verified.answer)")
            #expect(verified.answer["newSignCount"] as? Int == expected)
        }

        // A wrong challenge: an assertion for one ceremony offered to another.
        let first = try await requestOptions()
        let second = try await requestOptions()
        let stale = try await verify(
            second.ceremony,
            try await authenticator.getAssertion(options: Array(first.options.utf8))
        )
        #expect(stale.status == 400)
        #expect(
            (stale.answer["error"] as? String)?.contains("challenge was not expected challenge") == true,
            "\(stale.answer)"
        )

        // A wrong RP id: an assertion whose authenticator data names another RP.
        await authenticator.setReportedRPID("login.authcore.test")
        let narrow = try await requestOptions()
        let wrongRP = try await verify(
            narrow.ceremony,
            try await authenticator.getAssertion(options: Array(narrow.options.utf8))
        )
        await authenticator.setReportedRPID(nil)
        #expect(wrongRP.status == 400)
        #expect((wrongRP.answer["error"] as? String)?.contains("Unexpected RP ID hash") == true, "\(wrongRP.answer)")

        // A counter that did not rise (a cloned authenticator).
        await authenticator.setSignCount(0, forCredentialAt: 0)
        let cloned = try await requestOptions()
        let counter = try await verify(
            cloned.ceremony,
            try await authenticator.getAssertion(options: Array(cloned.options.utf8))
        )
        #expect(counter.status == 400)
        #expect(
            (counter.answer["error"] as? String)?.contains("was not greater than current count") == true,
            "\(counter.answer)"
        )

        // A wrong origin: the same key, used from another origin.
        await authenticator.setSignCount(100, forCredentialAt: 0)
        try await authenticator.setOrigin("https://evil.authcore.test")
        let phished = try await requestOptions()
        let wrongOrigin = try await verify(
            phished.ceremony,
            try await authenticator.getAssertion(options: Array(phished.options.utf8))
        )
        #expect(wrongOrigin.status == 400)
        #expect(
            (wrongOrigin.answer["error"] as? String)?.contains("Unexpected client data origin") == true,
            "\(wrongOrigin.answer)"
        )

        // And an RP id that is not the origin's domain is refused by the authenticator itself.
        try await authenticator.setOrigin(Self.origin)
        var foreign = try #require(
            try JSONSerialization.jsonObject(with: Data(try await requestOptions().options.utf8)) as? [String: Any]
        )
        foreign["rpId"] = "example.org"
        let outside = await #expect(throws: AuthCoreError.self) {
            try await authenticator.getAssertion(options: [UInt8](try JSONSerialization.data(withJSONObject: foreign)))
        }
        #expect(outside?.code == .invalidParameter, "\(String(describing: outside))")
    }

    @Test(
        "Cognito passkeys: associateWebAuthnCredential and a WEB_AUTHN sign-in send what py_webauthn verifies (Cognito's side scripted)"
    )
    func cognitoCeremonies() async throws {
        let authenticator = try SoftwareWebAuthnAuthenticator(origin: Self.origin)
        let registration = try await post("/registration/options", ["userName": "alice"])
        let ceremony = try #require(registration.answer["ceremony"] as? String)
        let request = try await requestOptions()
        let now = Int(Date().timeIntervalSince1970)
        let tokens: [String: Any] = [
            "IdToken": unsignedJWT(["exp": now + 3600, "iat": now]),
            "AccessToken": unsignedJWT(["username": "alice", "exp": now + 3600, "iat": now]),
            "RefreshToken": "r", "ExpiresIn": 3600, "TokenType": "Bearer",
        ]
        let transport = ScriptedTransport([
            .jsonAnswer(200, ["AuthenticationResult": tokens]),  // USER_PASSWORD_AUTH: signed in
            .jsonAnswer(200, ["CredentialCreationOptions": try #require(registration.answer["options"])]),
            .jsonAnswer(200, [:]),  // CompleteWebAuthnRegistration
            .jsonAnswer(
                200,
                [
                    "Credentials": [
                        [
                            "CredentialId": "abc", "FriendlyCredentialName": "laptop",
                            "RelyingPartyId": "authcore.test", "AuthenticatorTransports": ["internal"],
                            "CreatedAt": 1_736_293_876.115,
                        ]
                    ]
                ]
            ),
            .jsonAnswer(
                200,
                [
                    "ChallengeName": "WEB_AUTHN",
                    "ChallengeParameters": ["CREDENTIAL_REQUEST_OPTIONS": request.options], "Session": "s1",
                ]
            ),
            .jsonAnswer(200, ["AuthenticationResult": tokens]),
        ])
        let session = CognitoSession(
            configuration: try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_Abc123",
                clientId: "client1"
            ),
            transport: transport,
            retryPolicy: .none
        )
        _ = try await session.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        try await session.associateWebAuthnCredential(using: authenticator)
        let listed = try await session.listWebAuthnCredentials()
        #expect(
            listed == [
                CognitoWebAuthnCredential(
                    credentialId: "abc",
                    friendlyName: "laptop",
                    relyingPartyId: "authcore.test",
                    authenticatorAttachment: nil,
                    transports: ["internal"],
                    createdAt: Timestamp(checkedEpochSeconds: 1_736_293_876.115)
                )
            ]
        )

        // What went to CompleteWebAuthnRegistration is a registration py_webauthn accepts.
        let completion = try Self.object(try #require(transport.sent[2].body.withInMemoryBytes { Array($0) }))
        #expect(
            transport.sent[2].headers.first(named: "X-Amz-Target")
                == "AWSCognitoIdentityProviderService.CompleteWebAuthnRegistration"
        )
        let credential = try #require(completion["Credential"] as? [String: Any], "the credential goes as an object")
        let registered = try await post("/registration/verify", ["ceremony": ceremony, "credential": credential])
        #expect(registered.status == 200, "\(registered.answer)")

        // The WEB_AUTHN sign-in: the assertion in CREDENTIAL is one py_webauthn accepts.
        let step = try await session.signIn(
            username: "alice",
            password: nil,
            flow: .userAuth,
            preferredFirstFactor: .webAuthn
        )
        guard case .nextStep(.confirmSignInWithWebAuthn) = step else {
            Issue.record("expected the WebAuthn step, got \(step)")
            return
        }
        guard case .signedIn = try await session.confirmSignInWithWebAuthn(using: authenticator) else {
            Issue.record("not signed in")
            return
        }
        let answer = try Self.object(try #require(transport.sent[5].body.withInMemoryBytes { Array($0) }))
        #expect(answer["ChallengeName"] as? String == "WEB_AUTHN")
        let responses = try #require(answer["ChallengeResponses"] as? [String: String])
        #expect(responses["USERNAME"] == "alice")
        let assertion = try #require(responses["CREDENTIAL"])
        let verified = try await verify(request.ceremony, Array(assertion.utf8))
        #expect(verified.status == 200, "\(verified.answer)")
        let noStep = await #expect(throws: AuthCoreError.self) {
            try await session.confirmSignInWithWebAuthn(using: authenticator)
        }
        #expect(noStep?.code == .invalidParameter)
    }
}
