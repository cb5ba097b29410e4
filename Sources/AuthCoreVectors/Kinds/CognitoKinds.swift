import AuthCore

/// `cognito-srp` and `cognito-device-srp`: the password (or device) claim of Cognito's SRP variant.
struct CognitoSRPVectorKind: VectorKind {
    let name: String
    let device: Bool

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: [
            "srp_a_hex", "u_hex", "x_hex", "S_hex", "hkdf_key_hex", "signature_b64",
        ])
        let realm: String
        let identity: String
        let password: SecureBytes
        if device {
            realm = try c.string("device_group_key")
            identity = try c.string("device_key")
            password = SecureBytes(Array(try c.string("device_password").utf8))
        } else {
            let poolId = try c.string("pool_id")
            do { realm = try CognitoSRP.poolName(fromPoolId: poolId) } catch { throw .invalid("pool_id", error.reason) }
            identity = try c.string("user_id_for_srp")
            password = SecureBytes(Array(try c.string("password").utf8))
        }
        let a = try c.bigInteger("a_hex")
        let timestamp = try c.string("timestamp")
        let (b, salt, secretBlock) = try c.evaluating("input") {
            (
                try CognitoSRP.number(fromHex: try c.string("srp_b_hex"), parameter: "srp_b_hex"),
                try CognitoSRP.number(fromHex: try c.string("salt_hex"), parameter: "salt_hex"),
                try Base64.decode(try c.string("secret_block_b64"), field: "secret_block_b64")
            )
        }
        let claim: CognitoPasswordClaim
        let intermediates: CognitoClaimIntermediates
        let aValue: BigUInt
        do {
            let ephemeral = try CognitoSRP.ephemeral(privateValue: a)
            aValue = ephemeral.publicValue
            claim = try CognitoSRP.passwordClaim(
                realm: realm,
                identity: identity,
                password: password,
                ephemeral: ephemeral,
                serverPublicValue: b,
                salt: salt,
                secretBlock: secretBlock,
                timestamp: timestamp,
                recordingIntermediates: true
            )
        } catch {
            throw .invalid("claim", "\(error.code): \(error.reason)")
        }
        guard let recorded = claim.intermediates else { throw .invalid("claim", "intermediates were not recorded") }
        intermediates = recorded
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "srp_a_hex": try c.checkNumber(path, expected: expected, got: aValue)
            case "S_hex": try c.checkNumber(path, expected: expected, got: intermediates.premasterSecret)
            case "u_hex":
                try c.checkHex(path, expected: expected, got: SRPVectorKind.width(claim.scramblingParameter, .sha256))
            case "x_hex":
                try c.checkHex(path, expected: expected, got: SRPVectorKind.width(intermediates.privateKey, .sha256))
            case "hkdf_key_hex":
                try c.checkHex(path, expected: expected, got: intermediates.key.withUnsafeBytes { Array($0) })
            default: try c.checkText(path, expected: expected, got: claim.signature)
            }
        }
    }
}

/// `cognito-device-verifier`: the `DeviceSecretVerifierConfig` of `ConfirmDevice`.
struct CognitoDeviceVerifierVectorKind: VectorKind {
    let name = "cognito-device-verifier"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["x_hex", "verifier_hex", "password_verifier_b64", "salt_b64"])
        let salt: BigUInt
        let saltHex = try c.string("salt_hex")
        do { salt = try CognitoSRP.number(fromHex: saltHex, parameter: "salt_hex") } catch {
            throw .invalid("salt_hex", error.reason)
        }
        let groupKey = try c.string("device_group_key")
        let deviceKey = try c.string("device_key")
        let password = SecureBytes(Array(try c.string("device_password").utf8))
        let verifier = try c.evaluating("verifier") {
            try CognitoDeviceVerifier(
                deviceGroupKey: groupKey,
                deviceKey: deviceKey,
                devicePassword: password,
                salt: salt
            )
        }
        let x = CognitoSRP.privateKeyValue(salt: salt, realm: groupKey, identity: deviceKey, password: password)
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "x_hex": try c.checkHex(path, expected: expected, got: SRPVectorKind.width(x, .sha256))
            case "verifier_hex":
                try c.checkHex(path, expected: expected, got: verifier.verifier.signPaddedBigEndianBytes)
            case "password_verifier_b64": try c.checkText(path, expected: expected, got: verifier.passwordVerifier)
            default: try c.checkText(path, expected: expected, got: verifier.salt)
            }
        }
    }
}

/// `cognito-secret-hash`: `SECRET_HASH` = Base64(HMAC-SHA256(client secret, username | client id)).
struct CognitoSecretHashVectorKind: VectorKind {
    let name = "cognito-secret-hash"

    func check(_ c: VectorCase) throws(CaseFailure) {
        _ = try c.expectedFields(allowed: ["secret_hash_b64"])
        let hash = cognitoSecretHash(
            username: try c.string("username"),
            clientId: try c.string("client_id"),
            clientSecret: SecureBytes(Array(try c.string("client_secret").utf8))
        )
        try c.checkText("expect.secret_hash_b64", expected: try c.string("expect.secret_hash_b64"), got: hash)
    }
}

/// `oauth-pkce`: `code_verifier` → `expect.code_challenge` = BASE64URL(SHA-256(ASCII(code_verifier)))
/// without padding (RFC 7636 §4.2, the S256 method the hosted-UI sign-in uses).
struct OAuthPKCEVectorKind: VectorKind {
    let name = "oauth-pkce"

    func check(_ c: VectorCase) throws(CaseFailure) {
        _ = try c.expectedFields(allowed: ["code_challenge"])
        let verifier = SecureBytes(Array(try c.string("code_verifier").utf8))
        let pair: PKCECodeVerifier
        do throws(AuthCoreError) { pair = try PKCECodeVerifier(verifier: verifier) } catch {
            throw .invalid("code_verifier", error.reason)
        }
        try c.checkText("expect.code_challenge", expected: try c.string("expect.code_challenge"), got: pair.challenge)
    }
}
