public import AuthCore

/// The account operations of a public app client around sign-in: sign-up and its confirmation,
/// password reset, TOTP set-up for a signed-in user, refreshing with `GetTokensFromRefreshToken`, and
/// signing out. Each is one unsigned call of the Cognito Identity Provider API, with `SecretHash`
/// (or `ClientSecret` for `RevokeToken`) for a client that has a secret.
extension CognitoIdentityProviderAPI {
    /// `SignUp`. Returns whether the user is confirmed already and where the code went.
    public func signUp(
        username: String,
        password: SecureBytes,
        attributes: [String: String] = [:],
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> (userConfirmed: Bool, delivery: CognitoCodeDelivery?) {
        var request = user(username, clientMetadata: clientMetadata)
        var secrets = try requestSecrets()
        request.password = secrets.placeholder(for: password)
        if !attributes.isEmpty {
            request.userAttributes = attributes.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) }
        }
        let answer = try await call(
            "SignUp",
            request,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.SignUp.self
        )
        return (answer.userConfirmed ?? false, answer.codeDeliveryDetails?.delivery)
    }

    /// `ConfirmSignUp` with the code sent to the user.
    public func confirmSignUp(
        username: String,
        code: String,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) {
        var request = user(username, clientMetadata: clientMetadata)
        request.confirmationCode = code
        _ = try await call("ConfirmSignUp", request, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// `ForgotPassword`: sends a reset code; returns where it went.
    public func forgotPassword(
        username: String,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> CognitoCodeDelivery? {
        try await call(
            "ForgotPassword",
            user(username, clientMetadata: clientMetadata),
            answer: CognitoIdentityProviderAnswers.ForgotPassword.self
        )
        .codeDeliveryDetails?.delivery
    }

    /// `ConfirmForgotPassword`: sets `newPassword` with the reset code.
    public func confirmForgotPassword(
        username: String,
        code: String,
        newPassword: SecureBytes,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) {
        var request = user(username, clientMetadata: clientMetadata)
        request.confirmationCode = code
        var secrets = try requestSecrets()
        request.password = secrets.placeholder(for: newPassword)
        _ = try await call(
            "ConfirmForgotPassword",
            request,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.Empty.self
        )
    }

    /// `AssociateSoftwareToken` for a signed-in user: the base32 TOTP secret to put in an authenticator.
    public func associateSoftwareToken(accessToken: String) async throws(AuthCoreError) -> String {
        try await call(
            "AssociateSoftwareToken",
            CognitoIdentityProviderRequests.AssociateSoftwareToken(accessToken: accessToken),
            answer: CognitoIdentityProviderAnswers.AssociateSoftwareToken.self
        )
        .secretCode
    }

    /// `VerifySoftwareToken` with a code from the authenticator, then (by default) TOTP as the
    /// preferred MFA (`SetUserMFAPreference`), as Amplify's `verifyTOTPSetup` + `updateMFAPreference` do.
    ///
    /// - Throws: Cognito's refusal of a wrong code (`EnableSoftwareTokenMFAException`, `CodeMismatchException`).
    public func verifySoftwareToken(
        accessToken: String,
        code: String,
        friendlyDeviceName: String? = nil,
        makePreferred: Bool = true
    ) async throws(AuthCoreError) {
        let request = CognitoIdentityProviderRequests.VerifySoftwareToken(
            accessToken: accessToken,
            userCode: code,
            friendlyDeviceName: friendlyDeviceName
        )
        let status =
            try await call(
                "VerifySoftwareToken",
                request,
                answer: CognitoIdentityProviderAnswers.VerifySoftwareToken.self
            ).status ?? "SUCCESS"
        guard status == "SUCCESS" else {
            throw AuthCoreError(serviceErrorType: "VerifySoftwareToken", message: "status \(status)", httpStatus: 200)
        }
        guard makePreferred else { return }
        let preference = CognitoIdentityProviderRequests.SetUserMFAPreference(
            accessToken: accessToken,
            softwareTokenMfaSettings: .init(enabled: true, preferredMfa: true)
        )
        _ = try await call("SetUserMFAPreference", preference, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// `GetUser`: the user's name and attributes (the access token is checked by the service).
    public func getUser(
        accessToken: String
    ) async throws(AuthCoreError) -> (username: String, attributes: [String: String]) {
        let answer = try await call(
            "GetUser",
            CognitoIdentityProviderRequests.AccessToken(accessToken: accessToken),
            answer: CognitoIdentityProviderAnswers.GetUser.self
        )
        var attributes: [String: String] = [:]
        for item in answer.userAttributes ?? [] { attributes[item.name] = item.value ?? "" }
        return (answer.username, attributes)
    }

    /// `GetTokensFromRefreshToken`: fresh tokens, and a new refresh token when the client rotates them
    /// (the old one then stops working after its grace period).
    public func tokensFromRefreshToken(
        _ refreshToken: String,
        deviceKey: String? = nil
    ) async throws(AuthCoreError)
        -> CognitoTokens
    {
        var secrets = try requestSecrets()
        let request = CognitoIdentityProviderRequests.GetTokensFromRefreshToken(
            clientId: configuration.clientId,
            refreshToken: refreshToken,
            clientSecret: configuration.clientSecret.map { secrets.placeholder(for: $0) },
            deviceKey: deviceKey
        )
        let answer = try await call(
            "GetTokensFromRefreshToken",
            request,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.Auth.self
        )
        guard let result = answer.authenticationResult else {
            throw AuthCoreError(.malformedResponse, "GetTokensFromRefreshToken answered without AuthenticationResult")
        }
        return result.tokens
    }

    /// `GlobalSignOut`: every refresh token of the user stops working, access tokens are refused by
    /// the service's user operations.
    public func globalSignOut(accessToken: String) async throws(AuthCoreError) {
        _ = try await call(
            "GlobalSignOut",
            CognitoIdentityProviderRequests.AccessToken(accessToken: accessToken),
            answer: CognitoIdentityProviderAnswers.Empty.self
        )
    }

    /// `RevokeToken`: this refresh token and the access tokens it issued stop working.
    public func revokeToken(_ refreshToken: String) async throws(AuthCoreError) {
        var secrets = try requestSecrets()
        let request = CognitoIdentityProviderRequests.RevokeToken(
            clientId: configuration.clientId,
            token: refreshToken,
            clientSecret: configuration.clientSecret.map { secrets.placeholder(for: $0) }
        )
        _ = try await call("RevokeToken", request, secrets: secrets, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// A request about `username` from this client, with `SecretHash` when the client has a secret.
    private func user(
        _ username: String,
        clientMetadata: [String: String]
    ) -> CognitoIdentityProviderRequests.UserOfClient {
        CognitoIdentityProviderRequests.UserOfClient(
            clientId: configuration.clientId,
            username: username,
            secretHash: configuration.secretHash(for: username),
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
    }
}
