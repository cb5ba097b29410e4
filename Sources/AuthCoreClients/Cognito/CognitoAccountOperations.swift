public import AuthCore

/// The account operations of a public app client around sign-in: sign-up and its confirmation,
/// password reset, TOTP set-up for a signed-in user, refreshing with `GetTokensFromRefreshToken`, and
/// signing out. Each is one unsigned call of the Cognito Identity Provider API, with `SecretHash`
/// (or `ClientSecret` for `RevokeToken`) for a client that has a secret.
extension CognitoIdentityProviderAPI {
    /// `SignUp`. Returns whether the user is confirmed already and where the code went.
    public func signUp(
        username: String, password: SecureBytes, attributes: [String: String] = [:], clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> (userConfirmed: Bool, delivery: CognitoCodeDelivery?) {
        var body = clientBody(username: username, clientMetadata: clientMetadata)
        body["Password"] = .string(password.unwipedRequestText)
        if !attributes.isEmpty {
            body["UserAttributes"] = .array(attributes.sorted { $0.key < $1.key }.map { ["Name": .string($0.key), "Value": .string($0.value)] })
        }
        let answer = try await call("SignUp", body)
        return (try answer.optionalBool("UserConfirmed") ?? false, try codeDelivery(answer))
    }

    /// `ConfirmSignUp` with the code sent to the user.
    public func confirmSignUp(username: String, code: String, clientMetadata: [String: String] = [:]) async throws(AuthCoreError) {
        var body = clientBody(username: username, clientMetadata: clientMetadata)
        body["ConfirmationCode"] = .string(code)
        _ = try await call("ConfirmSignUp", body)
    }

    /// `ForgotPassword`: sends a reset code; returns where it went.
    public func forgotPassword(username: String, clientMetadata: [String: String] = [:]) async throws(AuthCoreError) -> CognitoCodeDelivery? {
        try codeDelivery(try await call("ForgotPassword", clientBody(username: username, clientMetadata: clientMetadata)))
    }

    /// `ConfirmForgotPassword`: sets `newPassword` with the reset code.
    public func confirmForgotPassword(
        username: String, code: String, newPassword: SecureBytes, clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) {
        var body = clientBody(username: username, clientMetadata: clientMetadata)
        body["ConfirmationCode"] = .string(code)
        body["Password"] = .string(newPassword.unwipedRequestText)
        _ = try await call("ConfirmForgotPassword", body)
    }

    /// `AssociateSoftwareToken` for a signed-in user: the base32 TOTP secret to put in an authenticator.
    public func associateSoftwareToken(accessToken: String) async throws(AuthCoreError) -> String {
        try await call("AssociateSoftwareToken", ["AccessToken": .string(accessToken)]).string("SecretCode")
    }

    /// `VerifySoftwareToken` with a code from the authenticator, then (by default) TOTP as the
    /// preferred MFA (`SetUserMFAPreference`), as Amplify's `verifyTOTPSetup` + `updateMFAPreference` do.
    ///
    /// - Throws: Cognito's refusal of a wrong code (`EnableSoftwareTokenMFAException`, `CodeMismatchException`).
    public func verifySoftwareToken(
        accessToken: String, code: String, friendlyDeviceName: String? = nil, makePreferred: Bool = true
    ) async throws(AuthCoreError) {
        var body: [String: JSONValue] = ["AccessToken": .string(accessToken), "UserCode": .string(code)]
        if let friendlyDeviceName { body["FriendlyDeviceName"] = .string(friendlyDeviceName) }
        let answer = try await call("VerifySoftwareToken", body)
        let status = try answer.optionalString("Status") ?? "SUCCESS"
        guard status == "SUCCESS" else {
            throw AuthCoreError(serviceErrorType: "VerifySoftwareToken", message: "status \(status)", httpStatus: 200)
        }
        guard makePreferred else { return }
        _ = try await call(
            "SetUserMFAPreference", ["AccessToken": .string(accessToken), "SoftwareTokenMfaSettings": ["Enabled": true, "PreferredMfa": true]])
    }

    /// `GetUser`: the user's name and attributes (the access token is checked by the service).
    public func getUser(accessToken: String) async throws(AuthCoreError) -> (username: String, attributes: [String: String]) {
        let answer = try await call("GetUser", ["AccessToken": .string(accessToken)])
        var attributes: [String: String] = [:]
        for item in try answer.optionalObjectArray("UserAttributes") {
            attributes[try item.string("Name")] = try item.optionalString("Value") ?? ""
        }
        return (try answer.string("Username"), attributes)
    }

    /// `GetTokensFromRefreshToken`: fresh tokens, and a new refresh token when the client rotates them
    /// (the old one then stops working after its grace period).
    public func tokensFromRefreshToken(_ refreshToken: String, deviceKey: String? = nil) async throws(AuthCoreError)
        -> CognitoTokens
    {
        var body: [String: JSONValue] = ["ClientId": .string(configuration.clientId), "RefreshToken": .string(refreshToken)]
        if let secret = configuration.clientSecret { body["ClientSecret"] = .string(secret.unwipedRequestText) }
        if let deviceKey { body["DeviceKey"] = .string(deviceKey) }
        let answer = try await call("GetTokensFromRefreshToken", body, answer: CognitoIdentityProviderAnswers.Auth.self)
        guard let result = answer.authenticationResult else {
            throw AuthCoreError(.malformedResponse, "GetTokensFromRefreshToken answered without AuthenticationResult")
        }
        return result.tokens
    }

    /// `GlobalSignOut`: every refresh token of the user stops working, access tokens are refused by
    /// the service's user operations.
    public func globalSignOut(accessToken: String) async throws(AuthCoreError) {
        _ = try await call("GlobalSignOut", ["AccessToken": .string(accessToken)])
    }

    /// `RevokeToken`: this refresh token and the access tokens it issued stop working.
    public func revokeToken(_ refreshToken: String) async throws(AuthCoreError) {
        var body: [String: JSONValue] = ["ClientId": .string(configuration.clientId), "Token": .string(refreshToken)]
        if let secret = configuration.clientSecret { body["ClientSecret"] = .string(secret.unwipedRequestText) }
        _ = try await call("RevokeToken", body)
    }

    private func clientBody(username: String, clientMetadata: [String: String]) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["ClientId": .string(configuration.clientId), "Username": .string(username)]
        if let hash = configuration.secretHash(for: username) { body["SecretHash"] = .string(hash) }
        if !clientMetadata.isEmpty { body["ClientMetadata"] = JSONValue(clientMetadata) }
        return body
    }

    private func codeDelivery(_ answer: JSONObject) throws(AuthCoreError) -> CognitoCodeDelivery? {
        guard let details = try answer.optionalObject("CodeDeliveryDetails") else { return nil }
        return CognitoCodeDelivery(medium: try details.optionalString("DeliveryMedium"), destination: try details.optionalString("Destination"))
    }
}
