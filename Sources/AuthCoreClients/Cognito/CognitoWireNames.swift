/// The names Cognito's sign-in calls use on the wire, in one place: `AuthParameters`,
/// `ChallengeParameters` and `ChallengeResponses` members (Amazon Cognito API Reference:
/// `InitiateAuth`, `RespondToAuthChallenge`, `ChallengeResponseType`), the flows' `AuthFlow`, and
/// which challenge each first factor and MFA type is.
enum CognitoParameter {
    static let username = "USERNAME"
    static let secretHash = "SECRET_HASH"
    static let deviceKey = "DEVICE_KEY"
    static let srpA = "SRP_A"
    static let srpB = "SRP_B"
    static let salt = "SALT"
    static let secretBlock = "SECRET_BLOCK"
    static let userIdForSRP = "USER_ID_FOR_SRP"
    static let password = "PASSWORD"
    static let newPassword = "NEW_PASSWORD"
    static let passwordClaimSignature = "PASSWORD_CLAIM_SIGNATURE"
    static let passwordClaimSecretBlock = "PASSWORD_CLAIM_SECRET_BLOCK"
    static let timestamp = "TIMESTAMP"
    static let answer = "ANSWER"
    static let challengeName = "CHALLENGE_NAME"
    static let preferredChallenge = "PREFERRED_CHALLENGE"
    static let refreshToken = "REFRESH_TOKEN"
    static let email = "EMAIL"
    static let credential = "CREDENTIAL"
    static let credentialRequestOptions = "CREDENTIAL_REQUEST_OPTIONS"
    static let mfasCanSetup = "MFAS_CAN_SETUP"
    static let mfasCanChoose = "MFAS_CAN_CHOOSE"
    static let codeDeliveryMedium = "CODE_DELIVERY_DELIVERY_MEDIUM"
    static let codeDeliveryDestination = "CODE_DELIVERY_DESTINATION"
    /// The prefix of a new password's attributes (`userAttributes.<name>`).
    static let userAttributePrefix = "userAttributes."
    /// `VerifySoftwareToken`'s `Status` for a good code.
    static let success = "SUCCESS"
}

extension CognitoAuthFlow {
    /// `AuthFlow` on the wire (`USER_SRP_AUTH`, `USER_PASSWORD_AUTH`, `CUSTOM_AUTH`, `USER_AUTH`).
    public var wireName: String {
        switch self {
        case .userSRP: "USER_SRP_AUTH"
        case .userPassword: "USER_PASSWORD_AUTH"
        case .customWithSRP, .customWithoutSRP: "CUSTOM_AUTH"
        case .userAuth: "USER_AUTH"
        }
    }

    /// `REFRESH_TOKEN_AUTH`, the refresh's `AuthFlow`.
    static let refreshTokenAuth = "REFRESH_TOKEN_AUTH"
}

extension CognitoFactor {
    /// The challenge this factor is (`ANSWER` of `SELECT_CHALLENGE`, `PREFERRED_CHALLENGE`).
    public var challengeName: CognitoChallengeName {
        switch self {
        case .password: .password
        case .passwordSRP: .passwordSRP
        case .emailOTP: .emailOTP
        case .smsOTP: .smsOTP
        case .webAuthn: .webAuthn
        }
    }
}

extension CognitoMFAType {
    /// The challenge this MFA type is (`SMS_MFA`, `SOFTWARE_TOKEN_MFA`, `EMAIL_OTP`).
    public var challengeName: CognitoChallengeName { CognitoChallengeName(rawValue: rawValue) }
}

extension CognitoChallengeName {
    /// The `ChallengeResponses` member that carries the code of a code challenge (`SMS_MFA_CODE`,
    /// `SOFTWARE_TOKEN_MFA_CODE`, `EMAIL_OTP_CODE`, `SMS_OTP_CODE`); nil for the others.
    var codeResponseName: String? {
        switch self {
        case .smsMFA: "SMS_MFA_CODE"
        case .softwareTokenMFA: "SOFTWARE_TOKEN_MFA_CODE"
        case .emailOTP: "EMAIL_OTP_CODE"
        case .smsOTP: "SMS_OTP_CODE"
        default: nil
        }
    }
}
