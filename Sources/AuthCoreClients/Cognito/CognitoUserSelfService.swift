public import AuthCore

/// How one MFA type should be set for the user (Amplify's `MFAPreference`): `SetUserMFAPreference`'s
/// `Enabled` and `PreferredMfa` ("SetUserMFAPreference", Amazon Cognito API Reference).
public enum CognitoMFAPreference: Sendable, Equatable {
    /// Enabled; which type is preferred is left as it is.
    case enabled
    /// Disabled.
    case disabled
    /// Enabled and the preferred type.
    case preferred
    /// Enabled, not preferred.
    case notPreferred

    var settings: CognitoIdentityProviderRequests.SetMFAPreferences.Settings {
        switch self {
        case .enabled: .init(enabled: true, preferredMfa: nil)
        case .disabled: .init(enabled: false, preferredMfa: false)
        case .preferred: .init(enabled: true, preferredMfa: true)
        case .notPreferred: .init(enabled: true, preferredMfa: false)
        }
    }
}

/// The user's MFA state as `GetUser` reports it.
public struct CognitoMFAStatus: Sendable, Equatable {
    /// The types enabled (`UserMFASettingList`).
    public var enabled: [CognitoMFAType]
    /// The preferred one (`PreferredMfaSetting`), if any.
    public var preferred: CognitoMFAType?

    /// A status.
    public init(enabled: [CognitoMFAType], preferred: CognitoMFAType?) {
        self.enabled = enabled
        self.preferred = preferred
    }
}

/// The account self-service of a signed-in user (Amplify's `updatePassword`, `fetchUserAttributes`,
/// `updateUserAttributes`, `sendUserAttributeVerificationCode`, `confirmUserAttribute`,
/// `deleteUser`, `updateMFAPreference`, `fetchMFAPreference`), each one call of the Cognito Identity
/// Provider API authorised by the access token; and `ResendConfirmationCode` for a user not yet
/// confirmed. ``CognitoSession`` calls these with its current tokens.
extension CognitoIdentityProviderAPI {
    /// `ChangePassword`: the service checks `previous` before it sets `proposed`.
    ///
    /// - Throws: `NotAuthorizedException` for a wrong previous password, `InvalidPasswordException`
    ///   for a proposed one the pool's policy refuses, `LimitExceededException`.
    public func changePassword(
        accessToken: String,
        previous: SecureBytes,
        proposed: SecureBytes
    ) async throws(AuthCoreError) {
        var secrets = try requestSecrets()
        let request = CognitoIdentityProviderRequests.ChangePassword(
            accessToken: accessToken,
            previousPassword: secrets.placeholder(for: previous),
            proposedPassword: secrets.placeholder(for: proposed)
        )
        _ = try await call(
            "ChangePassword",
            request,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.Empty.self
        )
    }

    /// `UpdateUserAttributes`. Returns, for each attribute the pool verifies (`email`,
    /// `phone_number`), where its code went: the change takes effect when the code is confirmed
    /// (``verifyUserAttribute(accessToken:attributeName:code:)``), as Amplify's
    /// `confirmAttributeWithCode` step.
    public func updateUserAttributes(
        accessToken: String,
        attributes: [String: String],
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> [String: CognitoCodeDelivery] {
        guard !attributes.isEmpty else { throw AuthCoreError(.invalidParameter, "no attribute to update") }
        let request = CognitoIdentityProviderRequests.UpdateUserAttributes(
            accessToken: accessToken,
            userAttributes: attributes.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) },
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
        let answer = try await call(
            "UpdateUserAttributes",
            request,
            answer: CognitoIdentityProviderAnswers.UpdateUserAttributes.self
        )
        var pending: [String: CognitoCodeDelivery] = [:]
        for delivery in answer.codeDeliveryDetailsList ?? [] {
            guard let name = delivery.attributeName else { continue }
            pending[name] = CognitoCodeDelivery(medium: delivery.deliveryMedium, destination: delivery.destination)
        }
        return pending
    }

    /// `GetUserAttributeVerificationCode`: sends a code for `attributeName`; returns where it went.
    public func userAttributeVerificationCode(
        accessToken: String,
        attributeName: String,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> CognitoCodeDelivery? {
        let request = CognitoIdentityProviderRequests.GetUserAttributeVerificationCode(
            accessToken: accessToken,
            attributeName: attributeName,
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
        return try await call(
            "GetUserAttributeVerificationCode",
            request,
            answer: CognitoIdentityProviderAnswers.CodeSent.self
        ).codeDeliveryDetails?.delivery
    }

    /// `VerifyUserAttribute`: confirms `attributeName` with the code sent.
    ///
    /// - Throws: `CodeMismatchException`, `ExpiredCodeException`.
    public func verifyUserAttribute(
        accessToken: String,
        attributeName: String,
        code: String
    ) async throws(AuthCoreError) {
        let request = CognitoIdentityProviderRequests.VerifyUserAttribute(
            accessToken: accessToken,
            attributeName: attributeName,
            code: code
        )
        _ = try await call("VerifyUserAttribute", request, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// `ResendConfirmationCode`: the sign-up code again (Amplify's `resendSignUpCode`); returns where it went.
    public func resendSignUpCode(
        username: String,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> CognitoCodeDelivery? {
        let request = CognitoIdentityProviderRequests.UserOfClient(
            clientId: configuration.clientId,
            username: username,
            secretHash: configuration.secretHash(for: username),
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
        return try await call("ResendConfirmationCode", request, answer: CognitoIdentityProviderAnswers.CodeSent.self)
            .codeDeliveryDetails?.delivery
    }

    /// `DeleteUser`: the user and every token of theirs are gone.
    public func deleteUser(accessToken: String) async throws(AuthCoreError) {
        _ = try await call(
            "DeleteUser",
            CognitoIdentityProviderRequests.AccessToken(accessToken: accessToken),
            answer: CognitoIdentityProviderAnswers.Empty.self
        )
    }

    /// `SetUserMFAPreference` for the types given (nil: left as they are).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when no type is given; the service's
    ///   refusal (`InvalidParameterException` for a type the user has not set up).
    public func setMFAPreference(
        accessToken: String,
        sms: CognitoMFAPreference? = nil,
        totp: CognitoMFAPreference? = nil,
        email: CognitoMFAPreference? = nil
    ) async throws(AuthCoreError) {
        guard sms != nil || totp != nil || email != nil else {
            throw AuthCoreError(.invalidParameter, "no MFA preference to set")
        }
        let request = CognitoIdentityProviderRequests.SetMFAPreferences(
            accessToken: accessToken,
            smsMfaSettings: sms?.settings,
            softwareTokenMfaSettings: totp?.settings,
            emailMfaSettings: email?.settings
        )
        _ = try await call("SetUserMFAPreference", request, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// The user's MFA types and preferred one (`GetUser`'s `UserMFASettingList`, `PreferredMfaSetting`).
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` for a type this library does not know.
    public func mfaStatus(accessToken: String) async throws(AuthCoreError) -> CognitoMFAStatus {
        let answer = try await call(
            "GetUser",
            CognitoIdentityProviderRequests.AccessToken(accessToken: accessToken),
            answer: CognitoIdentityProviderAnswers.UserMFASettings.self
        )
        func type(_ name: String) throws(AuthCoreError) -> CognitoMFAType {
            guard let type = CognitoMFAType(rawValue: name) else {
                throw AuthCoreError(
                    .malformedResponse,
                    "GetUser: unknown MFA type '\(printableText(name, limit: 200))'"
                )
            }
            return type
        }
        var enabled: [CognitoMFAType] = []
        for name in answer.userMFASettingList ?? [] { enabled.append(try type(name)) }
        let preferred = try answer.preferredMfaSetting.flatMap { name throws(AuthCoreError) in
            name.isEmpty ? nil : try type(name)
        }
        return CognitoMFAStatus(enabled: enabled, preferred: preferred)
    }
}
