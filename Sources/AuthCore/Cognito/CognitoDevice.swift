/// Device tracking: the verifier sent with `ConfirmDevice` (`DeviceSecretVerifierConfig`).
///
/// `x = H(PADs(salt) | H(deviceGroupKey | deviceKey | ":" | devicePassword))`, `v = g^x mod N`;
/// `PasswordVerifier = Base64(PADs(v))`, `Salt = Base64(PADs(salt))` (vectors.md
/// `cognito-device-verifier`).
public struct CognitoDeviceVerifier: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// `PasswordVerifier` (Base64).
    public let passwordVerifier: String
    /// `Salt` (Base64).
    public let salt: String
    /// `v`.
    public let verifier: BigUInt

    public var description: String { "CognitoDeviceVerifier(salt: \(salt))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["salt": salt], displayStyle: .struct) }

    /// The verifier for a device password and salt.
    public init(
        deviceGroupKey: String,
        deviceKey: String,
        devicePassword: SecureBytes,
        salt: BigUInt
    ) throws(AuthCoreError) {
        let x = CognitoSRP.privateKey(salt: salt, realm: deviceGroupKey, identity: deviceKey, password: devicePassword)
        let v = try CognitoSRP.group.engine.generatorPower(x, bitCount: 256)
        v.withUnsafeLimbBytes { ConstantFlow.declassify($0) }  // sent to Cognito (ConfirmDevice)
        self.verifier = v
        self.passwordVerifier = Base64.encode(v.signPaddedBigEndianBytes)
        self.salt = Base64.encode(salt.signPaddedBigEndianBytes)
    }

    /// A new device secret: 40 random bytes as Base64 (the device password, kept by the app) and a
    /// 16-byte random salt, with their verifier.
    public static func generate(
        deviceGroupKey: String,
        deviceKey: String,
        random: some SecureRandomGenerator = SystemRandom()
    )
        throws(AuthCoreError) -> (devicePassword: SecureBytes, verifier: CognitoDeviceVerifier)
    {
        let passwordBytes = try random.secureBytes(count: 40)
        let password = Base64.encodeSecret(passwordBytes)
        let saltBytes = try random.secureBytes(count: 16)
        saltBytes.withUnsafeBytes { ConstantFlow.declassify($0) }  // sent to Cognito (ConfirmDevice)
        let salt = BigUInt(bigEndianBytes: saltBytes)
        return (
            password,
            try CognitoDeviceVerifier(
                deviceGroupKey: deviceGroupKey,
                deviceKey: deviceKey,
                devicePassword: password,
                salt: salt
            )
        )
    }
}

/// `SECRET_HASH` = Base64(HMAC-SHA256(client secret, username | client id)), for app clients with a secret.
///
/// The username is the one Cognito expects at each step: the typed name on `InitiateAuth`, then the
/// `USERNAME`/`USER_ID_FOR_SRP` of the challenge.
public func cognitoSecretHash(username: String, clientId: String, clientSecret: SecureBytes) -> String {
    clientSecret.withUnsafeBytes { key in
        Array((username + clientId).utf8).withUnsafeBytes {
            HashAlgorithm.sha256.authenticationCode(for: $0, using: key)
        }
    }.base64
}
