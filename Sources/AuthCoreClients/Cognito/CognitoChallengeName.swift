/// A `ChallengeName` of the Cognito Identity Provider API (`InitiateAuth`/`RespondToAuthChallenge`,
/// "ChallengeName" in the API reference). An open set: a name Cognito adds later is carried as it is
/// and ends as an `AuthCoreError.Code.unsupported` next step, not a crash.
public struct CognitoChallengeName: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name as Cognito spells it.
    public let rawValue: String
    /// A name.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Decoded from the JSON string Cognito sends (`ChallengeName`).
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    /// Encoded as the name's JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// `SMS_MFA`.
    public static let smsMFA = Self(rawValue: "SMS_MFA")
    /// `SOFTWARE_TOKEN_MFA` (TOTP).
    public static let softwareTokenMFA = Self(rawValue: "SOFTWARE_TOKEN_MFA")
    /// `EMAIL_OTP`.
    public static let emailOTP = Self(rawValue: "EMAIL_OTP")
    /// `SMS_OTP`.
    public static let smsOTP = Self(rawValue: "SMS_OTP")
    /// `SELECT_MFA_TYPE`.
    public static let selectMFAType = Self(rawValue: "SELECT_MFA_TYPE")
    /// `MFA_SETUP`.
    public static let mfaSetup = Self(rawValue: "MFA_SETUP")
    /// `PASSWORD_VERIFIER` (answered automatically with the SRP claim).
    public static let passwordVerifier = Self(rawValue: "PASSWORD_VERIFIER")
    /// `CUSTOM_CHALLENGE`.
    public static let customChallenge = Self(rawValue: "CUSTOM_CHALLENGE")
    /// `DEVICE_SRP_AUTH` (answered automatically for a remembered device).
    public static let deviceSRPAuth = Self(rawValue: "DEVICE_SRP_AUTH")
    /// `DEVICE_PASSWORD_VERIFIER` (answered automatically).
    public static let devicePasswordVerifier = Self(rawValue: "DEVICE_PASSWORD_VERIFIER")
    /// `NEW_PASSWORD_REQUIRED`.
    public static let newPasswordRequired = Self(rawValue: "NEW_PASSWORD_REQUIRED")
    /// `SELECT_CHALLENGE` (choice-based sign-in: pick a first factor).
    public static let selectChallenge = Self(rawValue: "SELECT_CHALLENGE")
    /// `PASSWORD` (choice-based sign-in).
    public static let password = Self(rawValue: "PASSWORD")
    /// `PASSWORD_SRP` (choice-based sign-in).
    public static let passwordSRP = Self(rawValue: "PASSWORD_SRP")
    /// `SRP_A` (the first round of `CUSTOM_AUTH` with SRP, `CHALLENGE_NAME`).
    public static let srpA = Self(rawValue: "SRP_A")
    /// `WEB_AUTHN`.
    public static let webAuthn = Self(rawValue: "WEB_AUTHN")
}
