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
        enum CodingKeys: String, CodingKey {
            case authFlow = "AuthFlow", clientId = "ClientId", authParameters = "AuthParameters", clientMetadata = "ClientMetadata"
        }
    }

    struct RespondToAuthChallenge: Encodable {
        let challengeName: String
        let clientId: String
        let challengeResponses: [String: String]
        let session: String?
        let clientMetadata: [String: String]?
        enum CodingKeys: String, CodingKey {
            case challengeName = "ChallengeName", clientId = "ClientId", challengeResponses = "ChallengeResponses", session = "Session"
            case clientMetadata = "ClientMetadata"
        }
    }

    /// `AssociateSoftwareToken`: during sign-in with the `Session`, for a signed-in user with the access token.
    struct AssociateSoftwareToken: Encodable {
        var accessToken: String?
        var session: String?
        enum CodingKeys: String, CodingKey { case accessToken = "AccessToken", session = "Session" }
    }

    struct VerifySoftwareToken: Encodable {
        var accessToken: String?
        var session: String?
        let userCode: String
        let friendlyDeviceName: String?
        enum CodingKeys: String, CodingKey {
            case accessToken = "AccessToken", session = "Session", userCode = "UserCode", friendlyDeviceName = "FriendlyDeviceName"
        }
    }

    struct SetUserMFAPreference: Encodable {
        struct Settings: Encodable {
            let enabled: Bool
            let preferredMfa: Bool
            enum CodingKeys: String, CodingKey { case enabled = "Enabled", preferredMfa = "PreferredMfa" }
        }
        let accessToken: String
        let softwareTokenMfaSettings: Settings
        enum CodingKeys: String, CodingKey { case accessToken = "AccessToken", softwareTokenMfaSettings = "SoftwareTokenMfaSettings" }
    }

    struct ConfirmDevice: Encodable {
        struct VerifierConfig: Encodable {
            let passwordVerifier: String
            let salt: String
            enum CodingKeys: String, CodingKey { case passwordVerifier = "PasswordVerifier", salt = "Salt" }
        }
        let accessToken: String
        let deviceKey: String
        let deviceName: String
        let deviceSecretVerifierConfig: VerifierConfig
        enum CodingKeys: String, CodingKey {
            case accessToken = "AccessToken", deviceKey = "DeviceKey", deviceName = "DeviceName"
            case deviceSecretVerifierConfig = "DeviceSecretVerifierConfig"
        }
    }

    /// A call about one user of a public client (`SignUp`, `ConfirmSignUp`, `ForgotPassword`,
    /// `ConfirmForgotPassword`): the client, the user, `SecretHash` for a client with a secret.
    struct UserOfClient: Encodable {
        struct Attribute: Encodable {
            let name: String
            let value: String
            enum CodingKeys: String, CodingKey { case name = "Name", value = "Value" }
        }
        let clientId: String
        let username: String
        let secretHash: String?
        let clientMetadata: [String: String]?
        var password: String?
        var confirmationCode: String?
        var userAttributes: [Attribute]?
        enum CodingKeys: String, CodingKey {
            case clientId = "ClientId", username = "Username", secretHash = "SecretHash", clientMetadata = "ClientMetadata"
            case password = "Password", confirmationCode = "ConfirmationCode", userAttributes = "UserAttributes"
        }
    }

    /// `GetUser` and `GlobalSignOut`.
    struct AccessToken: Encodable {
        let accessToken: String
        enum CodingKeys: String, CodingKey { case accessToken = "AccessToken" }
    }

    struct GetTokensFromRefreshToken: Encodable {
        let clientId: String
        let refreshToken: String
        let clientSecret: String?
        let deviceKey: String?
        enum CodingKeys: String, CodingKey {
            case clientId = "ClientId", refreshToken = "RefreshToken", clientSecret = "ClientSecret", deviceKey = "DeviceKey"
        }
    }

    struct RevokeToken: Encodable {
        let clientId: String
        let token: String
        let clientSecret: String?
        enum CodingKeys: String, CodingKey { case clientId = "ClientId", token = "Token", clientSecret = "ClientSecret" }
    }
}
