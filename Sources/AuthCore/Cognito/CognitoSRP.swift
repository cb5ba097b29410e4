/// Amazon Cognito's SRP variant (user-pool `USER_SRP_AUTH` and device `DEVICE_SRP_AUTH`).
///
/// Cognito uses the 3072-bit RFC 5054 prime with g = 2 and SHA-256, but not RFC 5054's padding: every
/// number is hashed in *sign-padded* form (its minimal big-endian bytes, with a `00` byte in front
/// when the first byte is ≥ 0x80: ``BigUInt/signPaddedBigEndianBytes``), as the AWS SDKs' `padHex`
/// does. Getting this wrong fails about one sign-in in a few hundred. The formulas (vectors.md
/// `cognito-srp`):
///
/// ```
/// k = H(PADs(N) | PADs(g))                 u = H(PADs(A) | PADs(B))
/// x = H(PADs(salt) | H(realm | identity | ":" | password))
/// S = (B - k·g^x)^(a + u·x) mod N          (client)     = (A·v^u)^b mod N   (server)
/// key = HKDF-SHA256(salt = PADs(u), ikm = PADs(S), info = "Caldera Derived Key", 16 bytes)
/// PASSWORD_CLAIM_SIGNATURE = Base64(HMAC-SHA256(key, realm | identity | secret block | TIMESTAMP))
/// ```
///
/// For a user, `realm` is the pool name (the part of the pool id after `_`) and `identity` the
/// `USER_ID_FOR_SRP`; for a device, `realm` is the device group key and `identity` the device key.
public enum CognitoSRP {
    /// The group: N of RFC 5054's 3072-bit group, g = 2.
    public static let group = SRPGroup(
        name: "cognito-3072",
        modulus: SRPGroup.rfc5054Group3072.modulus,
        generator: BigUInt(2)
    )
    /// Cognito as a policy of the one SRP front end: the group, SHA-256 and the sign-padded
    /// ``SRPHashConvention/cognito`` (k, u and x come from ``SRPConfiguration``; the claim below is
    /// Cognito's own).
    public static let configuration = SRPConfiguration(
        validGroup: group,
        hash: .sha256,
        convention: .cognito,
        privateValueBitCount: defaultPrivateValueBitCount
    )
    /// `k = H(PADs(N) | PADs(g))`.
    public static var multiplier: BigUInt { configuration.multiplier }
    /// The HKDF `info` of the claim key.
    public static let derivedKeyInfo = Array("Caldera Derived Key".utf8)
    /// The default number of random bits in `a` (RFC 5054's minimum; the Amplify Swift client's choice).
    public static let defaultPrivateValueBitCount = 256

    /// Draws a fresh `(a, A)`: can be prepared before the password is known, used once.
    ///
    /// - Parameters:
    ///   - randomBitCount: random bits in `a`, 256...1024 (default 256).
    ///   - random: the source of `a` (default: the system's CSPRNG through OpenSSL).
    /// - Throws: ``AuthCoreError/Code/randomFailure``, ``AuthCoreError/Code/invalidParameter``.
    public static func makeEphemeral(
        randomBitCount: Int = defaultPrivateValueBitCount,
        random: some SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) -> SRPPrivateValue {
        try group.engine.generatePrivateValue(
            group: group,
            randomBitCount: randomBitCount,
            offsetBits: configuration.clientOffsetBits(randomBits: randomBitCount),
            random: random
        )
    }

    /// An ephemeral from an explicit `a` (test vectors). Package API: an explicit value is used at its
    /// own bit length, so the work done depends on it.
    package static func ephemeral(privateValue a: BigUInt) throws(AuthCoreError) -> SRPPrivateValue {
        try group.engine.explicitPrivateValue(group: group, a)
    }

    /// The pool name inside a user-pool id (`us-east-1_AbCdEf123` → `AbCdEf123`).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an id without `_` or with an empty part.
    public static func poolName(fromPoolId poolId: String) throws(AuthCoreError) -> String {
        guard let underscore = poolId.firstIndex(of: "_"), underscore != poolId.startIndex,
            poolId.index(after: underscore) != poolId.endIndex
        else {
            throw AuthCoreError(.invalidParameter, "user pool id must look like <region>_<name>")
        }
        return String(poolId[poolId.index(after: underscore)...])
    }

    /// The region inside a user-pool id (`us-east-1_AbCdEf123` → `us-east-1`).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an id without `_` or with an empty part.
    public static func region(fromPoolId poolId: String) throws(AuthCoreError) -> String {
        _ = try poolName(fromPoolId: poolId)
        return String(decoding: poolId.utf8.prefix { $0 != UInt8(ascii: "_") }, as: UTF8.self)
    }

    /// Reads a number Cognito sends as hex (`SRP_B`, `SALT`): any case, odd length, leading zeros.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidHex`` naming the parameter.
    public static func number(fromHex text: String, parameter: String) throws(AuthCoreError) -> BigUInt {
        guard text.utf8.count <= 4096 else {
            throw AuthCoreError(.inputTooLarge, "\(parameter) is longer than 4096 hex digits")
        }
        return try BigUInt(hex: text, field: parameter)
    }

    // MARK: - Formulas

    /// `x = H(PADs(salt) | H(realm | identity | ":" | password))` as a fixed-width secret scalar:
    /// RFC 5054's `x` with `I = realm | identity` and the salt's sign-padded bytes.
    static func privateKey(salt: BigUInt, realm: String, identity: String, password: SecureBytes) -> LimbBuffer {
        configuration.privateKeyScalar(
            username: Array(realm.utf8) + Array(identity.utf8),
            password: password,
            salt: salt.signPaddedBigEndianBytes
        )
    }

    /// `x` as a number (secret; vectors and tests).
    package static func privateKeyValue(
        salt: BigUInt,
        realm: String,
        identity: String,
        password: SecureBytes
    ) -> BigUInt {
        privateKey(salt: salt, realm: realm, identity: identity, password: password).secretBigUInt
    }

    /// The 16-byte claim key: HKDF-SHA256(salt = PADs(u), ikm = PADs(S), "Caldera Derived Key").
    ///
    /// S stays in fixed-width storage. PADs(S) starts at one of `00 ‖ S`'s first three bytes (a `00`
    /// before a top bit, S's first byte, or past one zero byte); HKDF-Extract runs from each and the
    /// one for S's own start is kept without a branch on it
    /// (``SecureBytes/transformingSuffix(from:candidates:_:)``): only a start further in (two zero
    /// bytes and a byte below 0x80 at S's top, about 2⁻¹⁷ of sign-ins) is declassified. S is never
    /// zero (a zero base is refused before the exponentiation, and N is prime).
    static func claimKey(
        premasterSecret s: LimbBuffer,
        scramblingParameter u: BigUInt
    ) throws(AuthCoreError) -> SecureBytes {
        let padded = s.secureBigEndianBytes(leadingZeros: 1)  // 00 ‖ S: the sign byte is always available
        // Secret: PADs(S) keeps one 00 before a first byte ≥ 0x80, none otherwise. S ≠ 0, so the
        // start is inside the bytes.
        // &-: no overflow check to branch on
        let start = padded.leadingZeroByteCount &- Int(padded.firstNonZeroByte >> 7)
        let first = padded.count - group.byteCount  // S's first possible byte (public): N's length from the end
        let salt = u.signPaddedBigEndianBytes
        let prk = padded.transformingSuffix(from: start, candidates: (first - 1)..<(first + 2)) { ikm in
            salt.withUnsafeBytes { HashAlgorithm.sha256.hkdfExtract(inputKeyMaterial: ikm, salt: $0) }
        }
        return try prk.withUnsafeBytes { (p) throws(AuthCoreError) -> SecureBytes in
            try derivedKeyInfo.withUnsafeBytesTyped { (i) throws(AuthCoreError) -> SecureBytes in
                try HashAlgorithm.sha256.hkdfExpand(pseudoRandomKey: p, info: i, outputByteCount: 16)
            }
        }
    }

    /// `Base64(HMAC-SHA256(key, realm | identity | secretBlock | timestamp))`.
    static func claimSignature(
        key: SecureBytes,
        realm: String,
        identity: String,
        secretBlock: [UInt8],
        timestamp: String
    ) -> Digest {
        key.withUnsafeBytes { k in
            var mac = KeyedHMAC(algorithm: .sha256, key: k)
            return mac.authenticationCode { (feed: (UnsafeRawBufferPointer) -> Void) in
                Array(realm.utf8).withUnsafeBytes(feed)
                Array(identity.utf8).withUnsafeBytes(feed)
                secretBlock.withUnsafeBytes(feed)
                Array(timestamp.utf8).withUnsafeBytes(feed)
            }
        }
    }
}

/// The values of one Cognito password (or device) claim.
public struct CognitoPasswordClaim: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `PASSWORD_CLAIM_SIGNATURE` (standard Base64).
    public let signature: String
    /// `TIMESTAMP`, exactly as signed.
    public let timestamp: String
    /// `u` (public).
    public let scramblingParameter: BigUInt
    /// `x`, `S` and the HKDF key, when a package caller asked for them (vectors and tests).
    package let intermediates: CognitoClaimIntermediates?

    public var description: String { "CognitoPasswordClaim(timestamp: \(timestamp))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["signature": signature, "timestamp": timestamp], displayStyle: .struct)
    }
}

/// Secret intermediates of one Cognito claim, kept only for package callers (vectors, tests).
package struct CognitoClaimIntermediates: Sendable {
    /// `x`.
    package let privateKey: BigUInt
    /// `S`.
    package let premasterSecret: BigUInt
    /// The HKDF claim key.
    package let key: SecureBytes
}

extension CognitoSRP {
    /// Computes the `PASSWORD_VERIFIER` (or `DEVICE_PASSWORD_VERIFIER`) answer on the client.
    ///
    /// - Parameters:
    ///   - realm: the pool name (user) or device group key (device).
    ///   - identity: `USER_ID_FOR_SRP` (user) or the device key (device).
    ///   - password: the password (or the device's random password).
    ///   - ephemeral: the client's `(a, A)` sent as `SRP_A`.
    ///   - serverPublicValue: `SRP_B` as a number; a value shorter than N is valid.
    ///   - salt: `SALT` as a number.
    ///   - secretBlock: `SECRET_BLOCK`, Base64-decoded.
    ///   - timestamp: the `TIMESTAMP` string to sign (see ``Timestamp/cognitoTimestamp``).
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` for `B ≥ N`, `B ≡ 0 (mod N)` or `u = 0`.
    public static func passwordClaim(
        realm: String,
        identity: String,
        password: SecureBytes,
        ephemeral: borrowing SRPPrivateValue,
        serverPublicValue: BigUInt,
        salt: BigUInt,
        secretBlock: [UInt8],
        timestamp: String
    ) throws(AuthCoreError) -> CognitoPasswordClaim {
        try passwordClaim(
            realm: realm,
            identity: identity,
            password: password,
            ephemeral: ephemeral,
            serverPublicValue: serverPublicValue,
            salt: salt,
            secretBlock: secretBlock,
            timestamp: timestamp,
            recordingIntermediates: false
        )
    }

    /// The same, optionally keeping `x`, `S` and the key in the claim (vectors and tests only).
    package static func passwordClaim(
        realm: String,
        identity: String,
        password: SecureBytes,
        ephemeral: borrowing SRPPrivateValue,
        serverPublicValue: BigUInt,
        salt: BigUInt,
        secretBlock: [UInt8],
        timestamp: String,
        recordingIntermediates: Bool
    ) throws(AuthCoreError) -> CognitoPasswordClaim {
        guard ephemeral.group == group else {
            throw AuthCoreError(
                .invalidParameter,
                "the ephemeral belongs to \(ephemeral.group.name), not Cognito's group"
            )
        }
        let b = try group.validatedPublicValue(serverPublicValue, field: "SRP_B")
        let x = privateKey(salt: salt, realm: realm, identity: identity, password: password)
        let premaster = try configuration.clientPremaster(serverPublicValue: b, x: x, ephemeral: ephemeral)
        let (s, u) = (premaster.secret, premaster.scramblingParameter)
        let key = try claimKey(premasterSecret: s, scramblingParameter: u)
        let signature = claimSignature(
            key: key,
            realm: realm,
            identity: identity,
            secretBlock: secretBlock,
            timestamp: timestamp
        )
        return CognitoPasswordClaim(
            signature: signature.publishedBase64,
            timestamp: timestamp,
            scramblingParameter: u,
            intermediates: recordingIntermediates
                ? CognitoClaimIntermediates(privateKey: x.secretBigUInt, premasterSecret: s.secretBigUInt, key: key)
                : nil
        )
    }
}
