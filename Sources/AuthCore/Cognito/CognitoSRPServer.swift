/// The server side of Cognito's SRP variant: for a backend that runs Cognito-compatible SRP for its
/// own users (and for tests that verify signatures made by other clients).
///
/// Given a stored verifier `v = g^x` and salt, it produces `SRP_B = (k·v + g^b) mod N` and a random
/// secret block, then checks a client's `PASSWORD_CLAIM_SIGNATURE` in constant time with
/// `S = (A·v^u)^b mod N`.
public enum CognitoSRPServer {
    /// A server's challenge for one sign-in: `(b, B)` and the secret block; used once.
    public struct Challenge: ~Copyable, Sendable {
        let privateValue: SRPPrivateValue
        /// `SRP_B`.
        public let serverPublicValue: BigUInt
        /// The raw secret block (send it Base64-encoded as `SECRET_BLOCK`).
        public let secretBlock: [UInt8]
    }

    /// Draws `b`, computes `SRP_B` for `verifier`, and draws a secret block of `secretBlockByteCount` bytes.
    public static func makeChallenge(
        verifier: BigUInt,
        secretBlockByteCount: Int = 64,
        random: some SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) -> Challenge {
        let b = try CognitoSRP.group.engine.generatePrivateValue(
            group: CognitoSRP.group,
            randomBitCount: CognitoSRP.configuration.privateValueBitCount,
            offsetBits: CognitoSRP.configuration.serverOffsetBits,
            random: random
        )
        return try challenge(
            privateValue: b,
            verifier: verifier,
            secretBlock: random.secureBytes(count: secretBlockByteCount).withUnsafeBytes { Array($0) }
        )
    }

    /// A challenge from an explicit `b` and secret block (tests). Package API: an explicit value is used
    /// at its own bit length.
    package static func challenge(
        privateValue b: BigUInt,
        verifier: BigUInt,
        secretBlock: [UInt8]
    ) throws(AuthCoreError) -> Challenge {
        let value = try CognitoSRP.group.engine.explicitPrivateValue(group: CognitoSRP.group, b)
        return try challenge(privateValue: value, verifier: verifier, secretBlock: secretBlock)
    }

    static func challenge(
        privateValue: consuming SRPPrivateValue,
        verifier: BigUInt,
        secretBlock: [UInt8]
    ) throws(AuthCoreError)
        -> Challenge
    {
        let v = try CognitoSRP.group.engine.checkedVerifier(verifier)
        let b = CognitoSRP.group.engine.serverPublicValue(
            k: CognitoSRP.multiplier,
            verifier: v,
            gb: privateValue.publicValue
        )
        return Challenge(privateValue: privateValue, serverPublicValue: b, secretBlock: secretBlock)
    }

    /// Checks a client's claim; returns the claim key on success.
    ///
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` for `A ≥ N`, `A ≡ 0 (mod N)` or `u = 0`;
    ///   ``AuthCoreError/Code/invalidBase64`` for a malformed signature;
    ///   ``AuthCoreError/Code/signatureMismatch`` when the signature does not verify (constant-time).
    public static func verifyClaim(
        realm: String,
        identity: String,
        verifier: BigUInt,
        clientPublicValue: BigUInt,
        signature: String,
        timestamp: String,
        challenge: consuming Challenge
    ) throws(AuthCoreError) -> SecureBytes {
        let a = try CognitoSRP.group.validatedPublicValue(clientPublicValue, field: "SRP_A")
        let v = try CognitoSRP.group.engine.checkedVerifier(verifier)
        let received = try Base64.decode(signature, field: "PASSWORD_CLAIM_SIGNATURE")
        let premaster = try CognitoSRP.configuration.serverPremaster(
            clientPublicValue: a,
            serverPublicValue: challenge.serverPublicValue,
            verifier: v,
            privateValue: challenge.privateValue
        )
        let (s, u) = (premaster.secret, premaster.scramblingParameter)
        let key = try CognitoSRP.claimKey(premasterSecret: s, scramblingParameter: u)
        let expected = CognitoSRP.claimSignature(
            key: key,
            realm: realm,
            identity: identity,
            secretBlock: challenge.secretBlock,
            timestamp: timestamp
        )
        guard expected.withUnsafeBytes({ constantTimeEqual($0, received) }) else {
            throw AuthCoreError(.signatureMismatch, "PASSWORD_CLAIM_SIGNATURE does not verify")
        }
        return key
    }

    /// The verifier for a user: `v = g^x`, `x = H(PADs(salt) | H(poolName | userId | ":" | password))`.
    public static func verifier(
        realm: String,
        identity: String,
        password: SecureBytes,
        salt: BigUInt
    ) throws(AuthCoreError) -> BigUInt {
        let x = CognitoSRP.privateKey(salt: salt, realm: realm, identity: identity, password: password)
        return try CognitoSRP.group.engine.generatorPower(x, bitCount: CognitoSRP.configuration.hashBitCount)
    }
}
