import AuthCore

/// The answers of the Cognito Identity Provider API calls a sign-in makes, as `Codable` types
/// (Amazon Cognito user pools API Reference: `InitiateAuth`, `RespondToAuthChallenge`,
/// `GetTokensFromRefreshToken`, `AssociateSoftwareToken`, `VerifySoftwareToken`), decoded by
/// ``ServiceJSON`` with errors that name the field.
enum CognitoIdentityProviderAnswers {
    /// `InitiateAuth`, `RespondToAuthChallenge` and `GetTokensFromRefreshToken`: tokens, or the next challenge.
    struct Auth: Decodable {
        let authenticationResult: AuthenticationResult?
        let challengeName: String?
        let challengeParameters: [String: String]?
        let session: String?
        let availableChallenges: [String]?
        enum CodingKeys: String, CodingKey {
            case authenticationResult = "AuthenticationResult", challengeName = "ChallengeName", challengeParameters = "ChallengeParameters"
            case session = "Session", availableChallenges = "AvailableChallenges"
        }
    }

    /// `AuthenticationResult`: `ExpiresIn` must lie in ``CognitoTokens/expiresInRange``.
    struct AuthenticationResult: Decodable {
        struct NewDeviceMetadata: Decodable {
            let deviceKey: String
            let deviceGroupKey: String
            enum CodingKeys: String, CodingKey { case deviceKey = "DeviceKey", deviceGroupKey = "DeviceGroupKey" }
        }
        let idToken: String
        let accessToken: String
        let refreshToken: String?
        let expiresIn: BoundedInteger<ExpiresInBounds>
        let tokenType: String?
        let newDeviceMetadata: NewDeviceMetadata?
        enum CodingKeys: String, CodingKey {
            case idToken = "IdToken", accessToken = "AccessToken", refreshToken = "RefreshToken", expiresIn = "ExpiresIn"
            case tokenType = "TokenType", newDeviceMetadata = "NewDeviceMetadata"
        }

        var tokens: CognitoTokens {
            CognitoTokens(
                idToken: idToken, accessToken: accessToken, refreshToken: refreshToken, expiresIn: Int(expiresIn.value),  // in range: fits Int
                tokenType: tokenType, newDevice: newDeviceMetadata.map { ($0.deviceKey, $0.deviceGroupKey) })
        }
    }

    enum ExpiresInBounds: IntegerBounds { static var range: ClosedRange<Int64> { CognitoTokens.expiresInRange } }

    /// `AssociateSoftwareToken`: the TOTP shared secret.
    struct AssociateSoftwareToken: Decodable {
        let secretCode: String
        let session: String?
        enum CodingKeys: String, CodingKey { case secretCode = "SecretCode", session = "Session" }
    }

    /// `VerifySoftwareToken`: `SUCCESS` or `ERROR`.
    struct VerifySoftwareToken: Decodable {
        let status: String?
        let session: String?
        enum CodingKeys: String, CodingKey { case status = "Status", session = "Session" }
    }

    /// `SignUp`.
    struct SignUp: Decodable {
        let userConfirmed: Bool?
        let codeDeliveryDetails: CodeDeliveryDetails?
        enum CodingKeys: String, CodingKey { case userConfirmed = "UserConfirmed", codeDeliveryDetails = "CodeDeliveryDetails" }
    }

    /// `ForgotPassword`.
    struct ForgotPassword: Decodable {
        let codeDeliveryDetails: CodeDeliveryDetails?
        enum CodingKeys: String, CodingKey { case codeDeliveryDetails = "CodeDeliveryDetails" }
    }

    /// Where a code was sent.
    struct CodeDeliveryDetails: Decodable {
        let deliveryMedium: String?
        let destination: String?
        enum CodingKeys: String, CodingKey { case deliveryMedium = "DeliveryMedium", destination = "Destination" }

        var delivery: CognitoCodeDelivery { CognitoCodeDelivery(medium: deliveryMedium, destination: destination) }
    }

    /// `GetUser`.
    struct GetUser: Decodable {
        struct Attribute: Decodable {
            let name: String
            let value: String?
            enum CodingKeys: String, CodingKey { case name = "Name", value = "Value" }
        }
        let username: String
        let userAttributes: [Attribute]?
        enum CodingKeys: String, CodingKey { case username = "Username", userAttributes = "UserAttributes" }
    }

    /// An answer whose fields are not used.
    struct Empty: Decodable {}
}
