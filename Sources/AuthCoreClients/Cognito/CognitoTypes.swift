public import AuthCore

/// Where a user pool lives and which app client signs in.
public struct CognitoUserPoolConfiguration: Sendable {
    /// The region (`us-east-1`).
    public var region: String
    /// The user pool id (`us-east-1_AbCdEf123`).
    public var userPoolId: String
    /// The app client id.
    public var clientId: String
    /// The app client secret, for clients that have one (`SECRET_HASH` is then sent on every step).
    public var clientSecret: SecureBytes?
    /// The service endpoint (default from ``AWSEndpoint``: `https://cognito-idp.<region>.amazonaws.com/`, `.amazonaws.com.cn` in China).
    public var endpoint: RequestURL
    /// The name sent with `ConfirmDevice` when a new device is remembered.
    public var deviceName: String
    /// Whether plain `http` may be used to a host that is not loopback (off: `USER_PASSWORD_AUTH`
    /// would send the password in clear).
    public var allowInsecureHTTP: Bool

    /// A configuration.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed pool id or endpoint,
    ///   or a plain-http endpoint that is not loopback without `allowInsecureHTTP`.
    public init(
        region: String,
        userPoolId: String,
        clientId: String,
        clientSecret: SecureBytes? = nil,
        endpoint: String? = nil,
        deviceName: String = "AuthCore",
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        _ = try CognitoSRP.poolName(fromPoolId: userPoolId)
        guard !clientId.isEmpty else { throw AuthCoreError(.invalidParameter, "client id is empty") }
        self.region = region
        self.userPoolId = userPoolId
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.endpoint = try NetworkPolicy.endpoint(
            endpoint,
            service: "cognito-idp",
            region: region,
            allowInsecureHTTP: allowInsecureHTTP
        )
        self.deviceName = deviceName
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// The pool name used in SRP (`AbCdEf123`).
    public var poolName: String { (try? CognitoSRP.poolName(fromPoolId: userPoolId)) ?? userPoolId }

    /// `SECRET_HASH` for `username`, or nil for a client without a secret.
    func secretHash(for username: String) -> String? {
        clientSecret.map { cognitoSecretHash(username: username, clientId: clientId, clientSecret: $0) }
    }
}

/// The sign-in flows of the Amplify auth plugin.
public enum CognitoAuthFlow: String, Sendable, CaseIterable {
    /// `USER_SRP_AUTH` (default): the password never leaves the device.
    case userSRP = "user-srp"
    /// `USER_PASSWORD_AUTH`: the password is sent (TLS-protected), for the Migration trigger.
    case userPassword = "user-password"
    /// `CUSTOM_AUTH` starting with SRP, then custom challenges.
    case customWithSRP = "custom-with-srp"
    /// `CUSTOM_AUTH` with custom challenges only.
    case customWithoutSRP = "custom-without-srp"
    /// `USER_AUTH`: choice-based sign-in (password, SRP, e-mail/SMS OTP, passkeys).
    case userAuth = "user-auth"
}

/// A first factor of choice-based sign-in (`USER_AUTH`).
public enum CognitoFactor: String, Sendable, CaseIterable {
    /// `PASSWORD`.
    case password = "PASSWORD"
    /// `PASSWORD_SRP`.
    case passwordSRP = "PASSWORD_SRP"
    /// `EMAIL_OTP`.
    case emailOTP = "EMAIL_OTP"
    /// `SMS_OTP`.
    case smsOTP = "SMS_OTP"
    /// `WEB_AUTHN`.
    case webAuthn = "WEB_AUTHN"

    /// A factor by its Cognito name (`EMAIL_OTP`) or Amplify's `AuthFactorType` name (`emailOTP`).
    public init?(name: String) {
        guard let factor = Self(rawValue: name) ?? Self.allCases.first(where: { $0.amplifyName == name }) else {
            return nil
        }
        self = factor
    }

    /// Amplify's `AuthFactorType` name (`password`, `passwordSRP`, `emailOTP`, `smsOTP`, `webAuthn`).
    public var amplifyName: String {
        switch self {
        case .password: "password"
        case .passwordSRP: "passwordSRP"
        case .emailOTP: "emailOTP"
        case .smsOTP: "smsOTP"
        case .webAuthn: "webAuthn"
        }
    }
}

/// An MFA type by its Cognito challenge name (`SOFTWARE_TOKEN_MFA`) or Amplify's `MFAType` name (`totp`).
public enum CognitoMFAType: String, Sendable, CaseIterable {
    /// `SMS_MFA` (Amplify `sms`).
    case sms = "SMS_MFA"
    /// `SOFTWARE_TOKEN_MFA` (Amplify `totp`).
    case totp = "SOFTWARE_TOKEN_MFA"
    /// `EMAIL_OTP` (Amplify `email`).
    case email = "EMAIL_OTP"

    /// A type by either name.
    public init?(name: String) {
        switch name {
        case "sms", "SMS_MFA": self = .sms
        case "totp", "SOFTWARE_TOKEN_MFA": self = .totp
        case "email", "EMAIL_OTP": self = .email
        default: return nil
        }
    }
}

/// Where a one-time code was sent.
public struct CognitoCodeDelivery: Sendable, Equatable {
    /// `SMS` or `EMAIL`.
    public var medium: String?
    /// The masked destination (`+*******1234`, `a***@e***.com`).
    public var destination: String?

    /// A delivery.
    public init(medium: String?, destination: String?) {
        self.medium = medium
        self.destination = destination
    }
}

/// The tokens of a signed-in user. `description` shows none of them.
public struct CognitoTokens: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The ID token (JWT).
    public let idToken: String
    /// The access token (JWT).
    public let accessToken: String
    /// The refresh token, when Cognito sent one.
    public let refreshToken: String?
    /// Seconds until the access token expires.
    public let expiresIn: Int

    /// The `ExpiresIn` values accepted from a server: 1 s up to 366 days (Cognito allows 5 minutes
    /// to 1 day; anything else is refused as a malformed answer rather than trusted).
    public static let expiresInRange: ClosedRange<Int64> = 1...31_622_400
    /// `Bearer`.
    public let tokenType: String?
    /// A device Cognito asked to remember (`NewDeviceMetadata`): its key and group key.
    public let newDevice: (deviceKey: String, deviceGroupKey: String)?
    /// What went wrong beside the sign-in that gave these tokens (a device not remembered, a
    /// remembered one the service no longer knew); empty for tokens from a refresh or a store.
    public internal(set) var warnings: [CognitoSignInWarning] = []

    /// Tokens (restored from a store, or made by a test).
    public init(
        idToken: String,
        accessToken: String,
        refreshToken: String?,
        expiresIn: Int,
        tokenType: String? = "Bearer",
        newDevice: (deviceKey: String, deviceGroupKey: String)? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
        self.newDevice = newDevice
    }

    public var description: String {
        "CognitoTokens(idToken: <redacted>, accessToken: <redacted>, refreshToken: \(refreshToken == nil ? "none" : "<redacted>"), expiresIn: \(expiresIn))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["expiresIn": expiresIn, "tokenType": tokenType as Any, "hasRefreshToken": refreshToken != nil],
            displayStyle: .struct
        )
    }
}

/// Something that went wrong beside a sign-in that succeeded (``CognitoTokens/warnings``).
public enum CognitoSignInWarning: Sendable, Equatable {
    /// `ConfirmDevice` failed (the reason): the device is not remembered, so the next sign-in asks
    /// for MFA again.
    case deviceNotRemembered(String)
    /// The service no longer knew the remembered device (the reason: `ResourceNotFoundException`):
    /// it was forgotten here too, and the sign-in was made without it.
    case rememberedDeviceForgotten(String)

    /// The case's name (`deviceNotRemembered`, `rememberedDeviceForgotten`).
    public var typeName: String {
        switch self {
        case .deviceNotRemembered: "deviceNotRemembered"
        case .rememberedDeviceForgotten: "rememberedDeviceForgotten"
        }
    }

    /// The reason given.
    public var reason: String {
        switch self {
        case .deviceNotRemembered(let reason), .rememberedDeviceForgotten(let reason): reason
        }
    }
}

/// What the app must do next to finish signing in. Case names follow Amplify's `AuthSignInStep`.
public enum CognitoNextStep: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// A custom challenge (`CUSTOM_CHALLENGE`): answer with
    /// ``CognitoSignIn/confirmSignIn(challengeResponse:userAttributes:friendlyDeviceName:clientMetadata:)``.
    case confirmSignInWithCustomChallenge(parameters: [String: String])
    /// An SMS MFA code (`SMS_MFA`).
    case confirmSignInWithSMSMFACode(CognitoCodeDelivery)
    /// A TOTP code (`SOFTWARE_TOKEN_MFA`).
    case confirmSignInWithTOTPCode
    /// An e-mail or SMS one-time code (`EMAIL_OTP`, `SMS_OTP`, e-mail MFA).
    case confirmSignInWithOTP(CognitoCodeDelivery)
    /// A new password (`NEW_PASSWORD_REQUIRED`), with the user's attributes and the required ones.
    case confirmSignInWithNewPassword(userAttributes: [String: String], requiredAttributes: [String])
    /// Choose a first factor (`SELECT_CHALLENGE`).
    case continueSignInWithFirstFactorSelection(availableFactors: [CognitoFactor])
    /// Choose an MFA type (`SELECT_MFA_TYPE`).
    case continueSignInWithMFASelection(allowed: [String])
    /// Set up TOTP (`MFA_SETUP`): add the shared secret to an authenticator, answer with a code.
    case continueSignInWithTOTPSetup(sharedSecret: String, username: String)
    /// Set up e-mail MFA (`MFA_SETUP`): answer with the e-mail address.
    case continueSignInWithEmailMFASetup
    /// Choose which MFA to set up (`MFA_SETUP` with several options).
    case continueSignInWithMFASetupSelection(allowed: [String])
    /// Give the password (`USER_AUTH`, after choosing a password factor).
    case confirmSignInWithPassword
    /// Sign a WebAuthn assertion (`WEB_AUTHN`) with these credential request options (JSON); answer
    /// with the credential (JSON). The app owns the authenticator.
    case confirmSignInWithWebAuthn(credentialRequestOptions: String)
    /// The user has not confirmed the sign-up yet (`UserNotConfirmedException`): confirm it with the
    /// code sent (``CognitoIdentityProviderAPI/confirmSignUp(username:code:clientMetadata:)``), then sign in again.
    case confirmSignUp
    /// The password must be reset first (`PasswordResetRequiredException`): ask for a code with
    /// ``CognitoIdentityProviderAPI/forgotPassword(username:clientMetadata:)``, then set a new password.
    case resetPassword

    /// The step's name only: the TOTP shared secret and the custom challenge's parameters are not shown.
    public var description: String { "CognitoNextStep.\(typeName)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["step": typeName], displayStyle: .enum) }

    /// Amplify's `AuthSignInStep` case name.
    public var typeName: String {
        switch self {
        case .confirmSignInWithCustomChallenge: "confirmSignInWithCustomChallenge"
        case .confirmSignInWithSMSMFACode: "confirmSignInWithSMSMFACode"
        case .confirmSignInWithTOTPCode: "confirmSignInWithTOTPCode"
        case .confirmSignInWithOTP: "confirmSignInWithOTP"
        case .confirmSignInWithNewPassword: "confirmSignInWithNewPassword"
        case .continueSignInWithFirstFactorSelection: "continueSignInWithFirstFactorSelection"
        case .continueSignInWithMFASelection: "continueSignInWithMFASelection"
        case .continueSignInWithTOTPSetup: "continueSignInWithTOTPSetup"
        case .continueSignInWithEmailMFASetup: "continueSignInWithEmailMFASetup"
        case .continueSignInWithMFASetupSelection: "continueSignInWithMFASetupSelection"
        case .confirmSignInWithPassword: "confirmSignInWithPassword"
        case .confirmSignInWithWebAuthn: "confirmSignInWithWebAuthn"
        case .confirmSignUp: "confirmSignUp"
        case .resetPassword: "resetPassword"
        }
    }
}

/// The outcome of a sign-in call.
public enum CognitoSignInResult: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Signed in.
    case signedIn(CognitoTokens)
    /// Another step is needed.
    case nextStep(CognitoNextStep)

    public var description: String {
        switch self {
        case .signedIn(let tokens): "signedIn(\(tokens))"
        case .nextStep(let step): "nextStep(\(step))"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["result": description], displayStyle: .enum) }
}

/// A device Cognito remembers for a user (device tracking).
public struct CognitoRememberedDevice: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// `DeviceKey`.
    public let deviceKey: String
    /// `DeviceGroupKey`.
    public let deviceGroupKey: String
    /// The device's random password (secret).
    public let devicePassword: SecureBytes

    /// A device.
    public init(deviceKey: String, deviceGroupKey: String, devicePassword: SecureBytes) {
        self.deviceKey = deviceKey
        self.deviceGroupKey = deviceGroupKey
        self.devicePassword = devicePassword
    }

    /// The device key's last four characters only: the key names the device to Cognito's device SRP.
    public var description: String { "CognitoRememberedDevice(…\(deviceKey.suffix(4)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["device": description], displayStyle: .struct) }
}

/// Keeps remembered devices per user (apps store them in the keychain; tests in memory).
public protocol CognitoDeviceStore: Sendable {
    /// The device remembered for `username`, if any.
    func device(for username: String) async -> CognitoRememberedDevice?
    /// Remembers a device.
    func save(_ device: CognitoRememberedDevice, for username: String) async
    /// Forgets the device of `username`.
    func removeDevice(for username: String) async
}

/// A ``CognitoDeviceStore`` in memory.
public actor InMemoryCognitoDeviceStore: CognitoDeviceStore {
    private var devices: [String: CognitoRememberedDevice] = [:]
    /// An empty store.
    public init() {}
    public func device(for username: String) async -> CognitoRememberedDevice? { devices[username] }
    public func save(_ device: CognitoRememberedDevice, for username: String) async { devices[username] = device }
    public func removeDevice(for username: String) async { devices[username] = nil }
}
