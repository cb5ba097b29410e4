public import AuthCore

/// The signed-in user's account self-service (Amplify's auth category calls of the same names), each
/// made with the session's current access token (refreshed first when it is about to expire).
/// The calls are ``CognitoIdentityProviderAPI``'s; see there for what the service checks.
extension CognitoSession {
    /// Changes the password: the service checks `previous` first.
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable` when signed out; `NotAuthorizedException`
    ///   for a wrong previous password; `InvalidPasswordException` for a proposed one the policy refuses.
    public func changePassword(previous: SecureBytes, proposed: SecureBytes) async throws(AuthCoreError) {
        try await api.changePassword(
            accessToken: try await tokens().accessToken,
            previous: previous,
            proposed: proposed
        )
    }

    /// The user's attributes (`GetUser`): `sub`, `email`, `email_verified`, custom ones.
    public func fetchUserAttributes() async throws(AuthCoreError) -> [String: String] {
        try await api.getUser(accessToken: try await tokens().accessToken).attributes
    }

    /// Updates attributes; returns the attributes waiting for a code, and where each code went
    /// (confirm with ``confirmUserAttribute(_:code:)``).
    public func updateUserAttributes(
        _ attributes: [String: String],
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError)
        -> [String: CognitoCodeDelivery]
    {
        try await api.updateUserAttributes(
            accessToken: try await tokens().accessToken,
            attributes: attributes,
            clientMetadata: clientMetadata
        )
    }

    /// Sends a verification code for `attributeName` (`email`, `phone_number`); returns where it went.
    public func sendUserAttributeVerificationCode(
        for attributeName: String,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError)
        -> CognitoCodeDelivery?
    {
        try await api.userAttributeVerificationCode(
            accessToken: try await tokens().accessToken,
            attributeName: attributeName,
            clientMetadata: clientMetadata
        )
    }

    /// Confirms `attributeName` with the code sent.
    public func confirmUserAttribute(_ attributeName: String, code: String) async throws(AuthCoreError) {
        try await api.verifyUserAttribute(
            accessToken: try await tokens().accessToken,
            attributeName: attributeName,
            code: code
        )
    }

    /// Sets MFA preferences (nil: left as they are).
    public func updateMFAPreference(
        sms: CognitoMFAPreference? = nil,
        totp: CognitoMFAPreference? = nil,
        email: CognitoMFAPreference? = nil
    ) async throws(AuthCoreError) {
        try await api.setMFAPreference(accessToken: try await tokens().accessToken, sms: sms, totp: totp, email: email)
    }

    /// The MFA types enabled and the preferred one.
    public func fetchMFAPreference() async throws(AuthCoreError) -> CognitoMFAStatus {
        try await api.mfaStatus(accessToken: try await tokens().accessToken)
    }
}

extension CognitoSession.Status {
    /// The signed-in user's name; nil when signed out.
    public var username: String? {
        if case .signedIn(let username, _) = self { return username }
        return nil
    }
}
