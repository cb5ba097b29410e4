import AuthCore

/// The requests of the Cognito Identity Provider API calls the library makes, as `Encodable` types
/// (Amazon Cognito user pools API Reference): the one description of each call's fields. Optional
/// fields left nil are not sent.
enum CognitoIdentityProviderRequests {
    struct InitiateAuth: Encodable {
        let authFlow: String
        let clientId: String
        let authParameters: [String: String]
        let clientMetadata: [String: String]?
    }

    struct RespondToAuthChallenge: Encodable {
        let challengeName: CognitoChallengeName
        let clientId: String
        let challengeResponses: [String: String]
        let session: String?
        let clientMetadata: [String: String]?
    }

    /// `AssociateSoftwareToken`: during sign-in with the `Session`, for a signed-in user with the access token.
    struct AssociateSoftwareToken: Encodable {
        var accessToken: String?
        var session: String?
    }

    struct VerifySoftwareToken: Encodable {
        var accessToken: String?
        var session: String?
        let userCode: String
        let friendlyDeviceName: String?
    }

    struct SetUserMFAPreference: Encodable {
        struct Settings: Encodable {
            let enabled: Bool
            let preferredMfa: Bool
        }
        let accessToken: String
        let softwareTokenMfaSettings: Settings
    }

    struct ConfirmDevice: Encodable {
        struct VerifierConfig: Encodable {
            let passwordVerifier: String
            let salt: String
        }
        let accessToken: String
        let deviceKey: String
        let deviceName: String
        let deviceSecretVerifierConfig: VerifierConfig
    }

    /// A call about one user of a public client (`SignUp`, `ConfirmSignUp`, `ForgotPassword`,
    /// `ConfirmForgotPassword`): the client, the user, `SecretHash` for a client with a secret.
    struct UserOfClient: Encodable {
        struct Attribute: Encodable {
            let name: String
            let value: String
        }
        let clientId: String
        let username: String
        let secretHash: String?
        let clientMetadata: [String: String]?
        var password: String?
        var confirmationCode: String?
        var userAttributes: [Attribute]?
    }

    /// `GetUser` and `GlobalSignOut`.
    struct AccessToken: Encodable {
        let accessToken: String
    }

    struct GetTokensFromRefreshToken: Encodable {
        let clientId: String
        let refreshToken: String
        let clientSecret: String?
        let deviceKey: String?
    }

    struct RevokeToken: Encodable {
        let clientId: String
        let token: String
        let clientSecret: String?
    }
}

extension CognitoIdentityProviderRequests {
    /// `ChangePassword`: the passwords are placeholders of the request's secrets.
    struct ChangePassword: Encodable {
        let accessToken: String
        let previousPassword: String
        let proposedPassword: String
    }

    /// `UpdateUserAttributes`.
    struct UpdateUserAttributes: Encodable {
        let accessToken: String
        let userAttributes: [UserOfClient.Attribute]
        let clientMetadata: [String: String]?
    }

    /// `GetUserAttributeVerificationCode`.
    struct GetUserAttributeVerificationCode: Encodable {
        let accessToken: String
        let attributeName: String
        let clientMetadata: [String: String]?
    }

    /// `VerifyUserAttribute`.
    struct VerifyUserAttribute: Encodable {
        let accessToken: String
        let attributeName: String
        let code: String
    }

    /// `SetUserMFAPreference` with any of the three settings (one left nil is not sent, and stays).
    struct SetMFAPreferences: Encodable {
        struct Settings: Encodable {
            let enabled: Bool
            let preferredMfa: Bool?
        }
        let accessToken: String
        let smsMfaSettings: Settings?
        let softwareTokenMfaSettings: Settings?
        let emailMfaSettings: Settings?

        enum CodingKeys: String, CodingKey {
            case accessToken
            // Pascal-cased by ServiceJSON: `SMSMfaSettings`.
            case smsMfaSettings = "sMSMfaSettings"
            case softwareTokenMfaSettings
            case emailMfaSettings
        }
    }
}

extension CognitoIdentityProviderRequests {
    /// `UpdateDeviceStatus`.
    struct UpdateDeviceStatus: Encodable {
        let accessToken: String
        let deviceKey: String
        let deviceRememberedStatus: String
    }

    /// `ForgetDevice`.
    struct ForgetDevice: Encodable {
        let accessToken: String
        let deviceKey: String
    }

    /// `ListDevices`.
    struct ListDevices: Encodable {
        let accessToken: String
        let limit: Int
        let paginationToken: String?
    }
}
