import AuthCore

/// The answers the sign-in makes without the app: the SRP password claim (`PASSWORD_VERIFIER`), the
/// device's (`DEVICE_PASSWORD_VERIFIER`), the first step of MFA set-up, and `ConfirmDevice` for a
/// new device (Amazon Cognito API Reference: `RespondToAuthChallenge`, `AssociateSoftwareToken`,
/// `ConfirmDevice`; the SRP arithmetic is `CognitoSRP`'s).
extension CognitoSignIn {
    func answerPasswordVerifier(
        _ parameters: [String: String],
        session: String?,
        ephemeral: consuming SRPPrivateValue,
        password: SecureBytes
    ) async throws(AuthCoreError) -> CognitoIdentityProviderAnswers.Auth {
        let userId = try CognitoNextSteps.required(parameters, CognitoParameter.userIdForSRP)
        let username = parameters[CognitoParameter.username] ?? userId
        let claim = try claim(
            parameters,
            realm: configuration.poolName,
            identity: userId,
            password: password,
            ephemeral: ephemeral
        )
        var responses = [
            CognitoParameter.username: username, CognitoParameter.passwordClaimSecretBlock: claim.secretBlock,
            CognitoParameter.passwordClaimSignature: claim.signature,
            CognitoParameter.timestamp: claim.timestamp,
        ]
        if let hash = configuration.secretHash(for: username) { responses[CognitoParameter.secretHash] = hash }
        if let device = await deviceStore.device(for: typedUsername ?? username) {
            responses[CognitoParameter.deviceKey] = device.deviceKey
        }
        return try await respond(.passwordVerifier, responses, session: session)
    }

    func answerDeviceVerifier(
        _ parameters: [String: String],
        session: String?,
        ephemeral: consuming SRPPrivateValue,
        device: CognitoRememberedDevice,
        username: String
    ) async throws(AuthCoreError) -> CognitoIdentityProviderAnswers.Auth {
        let claim = try claim(
            parameters,
            realm: device.deviceGroupKey,
            identity: device.deviceKey,
            password: device.devicePassword,
            ephemeral: ephemeral
        )
        var responses = [
            CognitoParameter.username: username, CognitoParameter.deviceKey: device.deviceKey,
            CognitoParameter.passwordClaimSecretBlock: claim.secretBlock,
            CognitoParameter.passwordClaimSignature: claim.signature, CognitoParameter.timestamp: claim.timestamp,
        ]
        if let hash = configuration.secretHash(for: username) { responses[CognitoParameter.secretHash] = hash }
        return try await respond(.devicePasswordVerifier, responses, session: session)
    }

    /// Reads `SRP_B`, `SALT`, `SECRET_BLOCK` and computes the claim.
    func claim(
        _ parameters: [String: String],
        realm: String,
        identity: String,
        password: SecureBytes,
        ephemeral: consuming SRPPrivateValue
    ) throws(AuthCoreError) -> (signature: String, timestamp: String, secretBlock: String) {
        let b = try CognitoSRP.number(
            fromHex: try CognitoNextSteps.required(parameters, CognitoParameter.srpB),
            parameter: CognitoParameter.srpB
        )
        let salt = try CognitoSRP.number(
            fromHex: try CognitoNextSteps.required(parameters, CognitoParameter.salt),
            parameter: CognitoParameter.salt
        )
        let secretBlockText = try CognitoNextSteps.required(parameters, CognitoParameter.secretBlock)
        let secretBlock = try Base64.decode(secretBlockText, field: CognitoParameter.secretBlock)
        let timestamp = clock.now().cognitoTimestamp
        let claim = try CognitoSRP.passwordClaim(
            realm: realm,
            identity: identity,
            password: password,
            ephemeral: ephemeral,
            serverPublicValue: b,
            salt: salt,
            secretBlock: secretBlock,
            timestamp: timestamp
        )
        return (claim.signature, timestamp, secretBlockText)
    }

    /// The first step of setting up MFA of `kind` during sign-in: TOTP (`AssociateSoftwareToken`) or
    /// e-mail. SMS cannot be set up here (as in Amplify): it needs a verified `phone_number`, which the
    /// app sets outside sign-in.
    func startMFASetup(kind: String, state: Pending) async throws(AuthCoreError) -> CognitoSignInResult {
        switch CognitoMFAType(name: kind) {
        case .totp: break
        case .email: return .nextStep(.continueSignInWithEmailMFASetup)
        case .sms:
            pending = nil
            throw AuthCoreError(
                .unsupported,
                "Cognito asks to set up SMS MFA, which cannot be done during sign-in: give the user a verified phone_number, or allow TOTP or e-mail MFA"
            )
        case nil:
            throw AuthCoreError(
                .invalidParameter,
                "'\(kind)' is not an MFA type that can be set up (SOFTWARE_TOKEN_MFA or EMAIL_OTP; totp or email)"
            )
        }
        let associated = try await api.call(
            "AssociateSoftwareToken",
            CognitoIdentityProviderRequests.AssociateSoftwareToken(session: state.session),
            answer: CognitoIdentityProviderAnswers.AssociateSoftwareToken.self
        )
        let secret = associated.secretCode
        if let session = associated.session { pending?.session = session }
        return .nextStep(.continueSignInWithTOTPSetup(sharedSecret: secret, username: state.username))
    }

    /// `ConfirmDevice` for a new device, then remembered. A failure does not fail the sign-in (as
    /// Amplify does): it is returned as a warning that goes with the tokens.
    func rememberDeviceIfNew(_ tokens: CognitoTokens) async -> CognitoSignInWarning? {
        guard let device = tokens.newDevice, let username = typedUsername else { return nil }
        do {
            let generated = try CognitoDeviceVerifier.generate(
                deviceGroupKey: device.deviceGroupKey,
                deviceKey: device.deviceKey,
                random: random
            )
            let request = CognitoIdentityProviderRequests.ConfirmDevice(
                accessToken: tokens.accessToken,
                deviceKey: device.deviceKey,
                deviceName: configuration.deviceName,
                deviceSecretVerifierConfig: .init(
                    passwordVerifier: generated.verifier.passwordVerifier,
                    salt: generated.verifier.salt
                )
            )
            _ = try await api.call("ConfirmDevice", request, answer: CognitoIdentityProviderAnswers.Empty.self)
            await deviceStore.save(
                CognitoRememberedDevice(
                    deviceKey: device.deviceKey,
                    deviceGroupKey: device.deviceGroupKey,
                    devicePassword: generated.devicePassword
                ),
                for: username
            )
            return nil
        } catch {
            return .deviceNotRemembered(error.reason)
        }
    }
}
