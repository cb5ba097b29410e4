public import AuthCore

/// A passkey registered for the user (`ListWebAuthnCredentials`' `WebAuthnCredentialDescription`).
public struct CognitoWebAuthnCredential: Sendable, Equatable {
    /// `CredentialId` (base64url).
    public var credentialId: String
    /// `FriendlyCredentialName`.
    public var friendlyName: String?
    /// `RelyingPartyId`.
    public var relyingPartyId: String?
    /// `AuthenticatorAttachment` (`platform`, `cross-platform`).
    public var authenticatorAttachment: String?
    /// `AuthenticatorTransports` (`internal`, `usb`, `hybrid`, …).
    public var transports: [String]
    /// `CreatedAt`.
    public var createdAt: Timestamp?

    /// A description.
    public init(
        credentialId: String,
        friendlyName: String?,
        relyingPartyId: String?,
        authenticatorAttachment: String?,
        transports: [String],
        createdAt: Timestamp?
    ) {
        self.credentialId = credentialId
        self.friendlyName = friendlyName
        self.relyingPartyId = relyingPartyId
        self.authenticatorAttachment = authenticatorAttachment
        self.transports = transports
        self.createdAt = createdAt
    }
}

/// Passkey management of a signed-in user (Amazon Cognito API Reference: `StartWebAuthnRegistration`,
/// `CompleteWebAuthnRegistration`, `ListWebAuthnCredentials`, `DeleteWebAuthnCredential`).
extension CognitoIdentityProviderAPI {
    /// `StartWebAuthnRegistration`: the `CredentialCreationOptions` (a
    /// `PublicKeyCredentialCreationOptionsJSON` object) as JSON text for the authenticator.
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` when the answer has no options object.
    public func startWebAuthnRegistration(accessToken: String) async throws(AuthCoreError) -> [UInt8] {
        let answer = try await call("StartWebAuthnRegistration", ["AccessToken": .string(accessToken)])
        guard let options = answer.value["CredentialCreationOptions"], options.objectMembers != nil else {
            throw AuthCoreError(
                .malformedResponse,
                "StartWebAuthnRegistration answered without a CredentialCreationOptions object"
            )
        }
        return try ServiceJSON.encode(options, keys: .asDeclared)
    }

    /// `CompleteWebAuthnRegistration` with the authenticator's `RegistrationResponseJSON`, sent as an object.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` when `credential` is not a JSON object; the
    ///   service's refusal (`WebAuthnChallengeNotFoundException`, `WebAuthnOriginNotAllowedException`, …).
    public func completeWebAuthnRegistration(accessToken: String, credential: [UInt8]) async throws(AuthCoreError) {
        let object: JSONObject
        do { object = try JSONObject(parsing: credential, context: "registration response") } catch {
            throw AuthCoreError(.malformedInput, "the authenticator's registration response is not a JSON object")
        }
        _ = try await call(
            "CompleteWebAuthnRegistration",
            ["AccessToken": .string(accessToken), "Credential": object.value]
        )
    }

    /// `ListWebAuthnCredentials`, every page (at most `maximumPages` of 20).
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` for a malformed answer, a repeated
    ///   `NextToken`, or more than `maximumPages` pages.
    public func listWebAuthnCredentials(
        accessToken: String,
        maximumPages: Int = 50
    ) async throws(AuthCoreError) -> [CognitoWebAuthnCredential] {
        var found: [CognitoWebAuthnCredential] = []
        var token: String?
        for _ in 0..<max(1, maximumPages) {
            var body: [String: JSONValue] = ["AccessToken": .string(accessToken), "MaxResults": 20]
            if let token { body["NextToken"] = .string(token) }
            let page = try await call("ListWebAuthnCredentials", body)
            for item in try page.optionalObjectArray("Credentials") {
                let created: Timestamp?
                switch item.value["CreatedAt"] {
                case .integer(let seconds)?: created = Timestamp(checkedEpochSeconds: Double(seconds))
                case .number(let seconds)?: created = Timestamp(checkedEpochSeconds: seconds)
                default: created = nil
                }
                found.append(
                    CognitoWebAuthnCredential(
                        credentialId: try item.string("CredentialId"),
                        friendlyName: try item.optionalString("FriendlyCredentialName"),
                        relyingPartyId: try item.optionalString("RelyingPartyId"),
                        authenticatorAttachment: try item.optionalString("AuthenticatorAttachment"),
                        transports: try item.stringArray("AuthenticatorTransports"),
                        createdAt: created
                    )
                )
            }
            guard let next = try page.optionalString("NextToken"), !next.isEmpty else { return found }
            guard next != token else {
                throw AuthCoreError(.malformedResponse, "ListWebAuthnCredentials repeated its NextToken")
            }
            token = next
        }
        throw AuthCoreError(.malformedResponse, "ListWebAuthnCredentials has more than \(max(1, maximumPages)) pages")
    }

    /// `DeleteWebAuthnCredential`.
    public func deleteWebAuthnCredential(accessToken: String, credentialId: String) async throws(AuthCoreError) {
        _ = try await call(
            "DeleteWebAuthnCredential",
            ["AccessToken": .string(accessToken), "CredentialId": .string(credentialId)]
        )
    }
}

extension CognitoSignIn {
    /// Answers a `WEB_AUTHN` step (``CognitoNextStep/confirmSignInWithWebAuthn(credentialRequestOptions:)``)
    /// with an assertion `authenticator` makes for its `CREDENTIAL_REQUEST_OPTIONS`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when no WebAuthn step is waiting; the
    ///   authenticator's errors; the service's refusal of the assertion.
    public func confirmSignInWithWebAuthn(
        using authenticator: some WebAuthnAuthenticator
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        guard let waiting = currentPending, waiting.challengeName == .webAuthn,
            let options = waiting.parameters[CognitoParameter.credentialRequestOptions]
        else {
            throw AuthCoreError(.invalidParameter, "no WebAuthn step is waiting for an answer")
        }
        let credential = try await authenticator.getAssertion(options: Array(options.utf8))
        // The step may have changed while the authenticator worked (the actor is reentrant): the
        // assertion answers only the step it was made for.
        guard let now = currentPending, now.challengeName == .webAuthn, now.session == waiting.session,
            now.parameters[CognitoParameter.credentialRequestOptions] == options
        else { throw AuthCoreError(.invalidParameter, "the WebAuthn step changed while the authenticator signed") }
        return try await confirmSignIn(challengeResponse: String(decoding: credential, as: UTF8.self))
    }
}

extension CognitoSession {
    /// Answers a `WEB_AUTHN` step with `authenticator` (``CognitoSignIn/confirmSignInWithWebAuthn(using:)``);
    /// tokens become the session.
    public func confirmSignInWithWebAuthn(
        using authenticator: some WebAuthnAuthenticator
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        let requested = clock.now()
        let result = try await signInClient.confirmSignInWithWebAuthn(using: authenticator)
        return try await adopt(result, requested: requested)
    }

    /// Registers a passkey made by `authenticator` (`StartWebAuthnRegistration` → the authenticator's
    /// attestation → `CompleteWebAuthnRegistration`), as Amplify's `associateWebAuthnCredential`.
    public func associateWebAuthnCredential(using authenticator: some WebAuthnAuthenticator) async throws(AuthCoreError)
    {
        let accessToken = try await tokens().accessToken
        let options = try await api.startWebAuthnRegistration(accessToken: accessToken)
        let credential = try await authenticator.createCredential(options: options)
        try await api.completeWebAuthnRegistration(accessToken: accessToken, credential: credential)
    }

    /// The user's passkeys.
    public func listWebAuthnCredentials() async throws(AuthCoreError) -> [CognitoWebAuthnCredential] {
        try await api.listWebAuthnCredentials(accessToken: try await tokens().accessToken)
    }

    /// Deletes one of the user's passkeys.
    public func deleteWebAuthnCredential(_ credentialId: String) async throws(AuthCoreError) {
        try await api.deleteWebAuthnCredential(accessToken: try await tokens().accessToken, credentialId: credentialId)
    }
}
