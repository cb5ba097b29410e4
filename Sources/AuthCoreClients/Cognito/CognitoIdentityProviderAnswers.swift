import AuthCore

/// The answers of the Cognito Identity Provider API calls a sign-in makes, as `Codable` types
/// (Amazon Cognito user pools API Reference: `InitiateAuth`, `RespondToAuthChallenge`,
/// `GetTokensFromRefreshToken`, `AssociateSoftwareToken`, `VerifySoftwareToken`), decoded by
/// ``ServiceJSON`` with errors that name the field.
enum CognitoIdentityProviderAnswers {
    /// `InitiateAuth`, `RespondToAuthChallenge` and `GetTokensFromRefreshToken`: tokens, or the next challenge.
    struct Auth: Decodable {
        let authenticationResult: AuthenticationResult?
        let challengeName: CognitoChallengeName?
        let challengeParameters: [String: String]?
        let session: String?
        let availableChallenges: [String]?
    }

    /// `AuthenticationResult`: `ExpiresIn` must lie in ``CognitoTokens/expiresInRange``.
    struct AuthenticationResult: Decodable {
        struct NewDeviceMetadata: Decodable {
            let deviceKey: String
            let deviceGroupKey: String
        }
        let idToken: String
        let accessToken: String
        let refreshToken: String?
        let expiresIn: BoundedInteger<ExpiresInBounds>
        let tokenType: String?
        let newDeviceMetadata: NewDeviceMetadata?

        var tokens: CognitoTokens {
            CognitoTokens(
                idToken: idToken,
                accessToken: accessToken,
                refreshToken: refreshToken,
                expiresIn: Int(expiresIn.value),  // in range: fits Int
                tokenType: tokenType,
                newDevice: newDeviceMetadata.map { ($0.deviceKey, $0.deviceGroupKey) }
            )
        }
    }

    enum ExpiresInBounds: IntegerBounds { static var range: ClosedRange<Int64> { CognitoTokens.expiresInRange } }

    /// `AssociateSoftwareToken`: the TOTP shared secret.
    struct AssociateSoftwareToken: Decodable {
        let secretCode: String
        let session: String?
    }

    /// `VerifySoftwareToken`: `SUCCESS` or `ERROR`.
    struct VerifySoftwareToken: Decodable {
        let status: String?
        let session: String?
    }

    /// `SignUp`.
    struct SignUp: Decodable {
        let userConfirmed: Bool?
        let codeDeliveryDetails: CodeDeliveryDetails?
    }

    /// `ForgotPassword`.
    struct ForgotPassword: Decodable {
        let codeDeliveryDetails: CodeDeliveryDetails?
    }

    /// Where a code was sent.
    struct CodeDeliveryDetails: Decodable {
        let deliveryMedium: String?
        let destination: String?

        var delivery: CognitoCodeDelivery { CognitoCodeDelivery(medium: deliveryMedium, destination: destination) }
    }

    /// `GetUser`.
    struct GetUser: Decodable {
        struct Attribute: Decodable {
            let name: String
            let value: String?
        }
        let username: String
        let userAttributes: [Attribute]?
    }

    /// An answer whose fields are not used.
    struct Empty: Decodable {}
}

extension CognitoIdentityProviderAnswers {
    /// `UpdateUserAttributes`: where the codes of attributes that need verifying went.
    struct UpdateUserAttributes: Decodable {
        struct Delivery: Decodable {
            let attributeName: String?
            let deliveryMedium: String?
            let destination: String?
        }
        let codeDeliveryDetailsList: [Delivery]?
    }

    /// `GetUserAttributeVerificationCode` and `ResendConfirmationCode`.
    struct CodeSent: Decodable {
        let codeDeliveryDetails: CodeDeliveryDetails?
    }

    /// `GetUser`'s MFA settings.
    struct UserMFASettings: Decodable {
        let userMFASettingList: [String]?
        let preferredMfaSetting: String?
    }
}

extension CognitoIdentityProviderAnswers {
    /// `ListDevices`.
    struct ListDevices: Decodable {
        struct Device: Decodable {
            let deviceKey: String
            let deviceAttributes: [GetUser.Attribute]?
            let deviceCreateDate: ServiceTimestamp?
            let deviceLastModifiedDate: ServiceTimestamp?
            let deviceLastAuthenticatedDate: ServiceTimestamp?
        }
        let devices: [Device]?
        let paginationToken: String?
    }
}
