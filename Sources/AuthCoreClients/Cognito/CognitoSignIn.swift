public import AuthCore

/// Signs a user into an Amazon Cognito user pool: the sign-in state machine of the Amplify auth
/// plugin over the Cognito Identity Provider API.
///
/// ```swift
/// let auth = CognitoSignIn(configuration: try CognitoUserPoolConfiguration(
///     region: "eu-west-1", userPoolId: "eu-west-1_AbC123", clientId: "7abc…"))
/// switch try await auth.signIn(username: "alice", password: SecureBytes(passwordBytes)) {
/// case .signedIn(let tokens): use(tokens)
/// case .nextStep(let step): ask the user, then try await auth.confirmSignIn(challengeResponse: answer)
/// }
/// ```
///
/// `PASSWORD_VERIFIER`, `DEVICE_SRP_AUTH` and `DEVICE_PASSWORD_VERIFIER` are answered without the
/// app; every other challenge becomes a ``CognitoNextStep``. `SECRET_HASH` goes with every step of a
/// client that has a secret, computed with the username Cognito expects at that step. When Cognito
/// sends `NewDeviceMetadata`, the device is confirmed (`ConfirmDevice`) and remembered; later
/// sign-ins then answer `DEVICE_SRP_AUTH` with it.
public actor CognitoSignIn {
    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    let api: CognitoIdentityProviderAPI
    let clock: any SigningClock
    let random: any SecureRandomGenerator
    /// Remembered devices.
    public let deviceStore: any CognitoDeviceStore

    /// The state between calls: what Cognito asked last, and what answering it needs.
    struct Pending: Sendable {
        var challengeName: CognitoChallengeName
        var session: String?
        /// The username Cognito expects from now on (`USERNAME` of the challenge).
        var username: String
        var parameters: [String: String]
        var selectedFactor: CognitoFactor?
        var mfaSetupKind: String?
    }

    var pending: Pending?
    /// Set while a `signIn` or `confirmSignIn` is suspended at the network: the actor is reentrant,
    /// and a second call would replace the password and pending step under the first.
    private var stepInFlight = false
    var typedUsername: String?
    private var password: SecureBytes?
    private var flow: CognitoAuthFlow = .userSRP
    var privateValueBitCount = CognitoSRP.defaultPrivateValueBitCount
    /// Sent with every `RespondToAuthChallenge` of the sign-in (the Lambda triggers see it at each step).
    private var clientMetadata: [String: String] = [:]
    /// What went wrong on the side of this sign-in, for its tokens (``CognitoTokens/warnings``).
    private var warnings: [CognitoSignInWarning] = []

    /// A sign-in client.
    public init(
        configuration: CognitoUserPoolConfiguration,
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        deviceStore: any CognitoDeviceStore = InMemoryCognitoDeviceStore(),
        retryPolicy: RetryPolicy = .standard
    ) {
        self.configuration = configuration
        self.api = CognitoIdentityProviderAPI(
            configuration: configuration,
            transport: transport,
            retryPolicy: retryPolicy
        )
        self.clock = clock
        self.random = random
        self.deviceStore = deviceStore
    }

    // MARK: - Starting

    /// Starts signing in.
    ///
    /// - Parameters:
    ///   - username: the name the user typed (alias, e-mail or username).
    ///   - password: the password (nil for `customWithoutSRP`, or `userAuth` with a passwordless factor).
    ///   - flow: the flow (default ``CognitoAuthFlow/userSRP``).
    ///   - preferredFirstFactor: for ``CognitoAuthFlow/userAuth``: the factor to try first.
    ///   - preparedEphemeral: an `(a, A)` prepared while the user typed
    ///     (`CognitoSRP.makeEphemeral(randomBitCount:random:)` in AuthCore); used once.
    ///   - privateValueBitCount: random bits of a fresh `a` (default 256).
    ///   - clientMetadata: passed to the pool's Lambda triggers.
    /// - Returns: the tokens, or the next step.
    /// - Throws: `AuthCoreError.Code.serviceError` with Cognito's error type and message;
    ///   typed errors for malformed responses (never a crash).
    public func signIn(
        username: String,
        password: SecureBytes?,
        flow: CognitoAuthFlow = .userSRP,
        preferredFirstFactor: CognitoFactor? = nil,
        preparedEphemeral: consuming SRPPrivateValue? = nil,
        privateValueBitCount: Int = CognitoSRP.defaultPrivateValueBitCount,
        clientMetadata: [String: String] = [:]
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        guard !username.isEmpty else { throw AuthCoreError(.invalidParameter, "username is empty") }
        try beginStep()
        defer { endStep() }
        do throws(AuthCoreError) {
            let device = await deviceStore.device(for: username)
            do throws(AuthCoreError) {
                return try await signInStep(
                    username: username,
                    password: password,
                    flow: flow,
                    preferredFirstFactor: preferredFirstFactor,
                    preparedEphemeral: preparedEphemeral,
                    privateValueBitCount: privateValueBitCount,
                    clientMetadata: clientMetadata
                )
            } catch {
                // A remembered device the service no longer knows (deleted or forgotten elsewhere):
                // forgotten here too, and the sign-in made again without it, as Amplify does. The
                // warning goes with the tokens.
                guard device != nil, Self.isUnknownDevice(error) else { throw error }
                await deviceStore.removeDevice(for: username)
                // Made again only for the flows whose first call sends no code (their triggers do
                // not run): the password flows. The others report it; the next sign-in goes without.
                guard flow == .userSRP || flow == .userPassword else { throw error }
                let result = try await signInStep(
                    username: username,
                    password: password,
                    flow: flow,
                    preferredFirstFactor: preferredFirstFactor,
                    preparedEphemeral: nil,
                    privateValueBitCount: privateValueBitCount,
                    clientMetadata: clientMetadata,
                    warnings: [.rememberedDeviceForgotten(error.reason)]
                )
                return result
            }
        } catch {
            self.password = nil  // a failed sign-in keeps no password
            pending = nil
            // Amplify's answers to a user who cannot sign in yet: next steps, not failures.
            switch error.serviceErrorType {
            case "UserNotConfirmedException": return .nextStep(.confirmSignUp)
            case "PasswordResetRequiredException": return .nextStep(.resetPassword)
            default: throw error
            }
        }
    }

    /// Whether `error` is the service's refusal of an unknown device (`ResourceNotFoundException`:
    /// "Device does not exist.", what Amplify matches), not of an unknown client or user.
    static func isUnknownDevice(_ error: AuthCoreError) -> Bool {
        guard error.serviceErrorType == "ResourceNotFoundException" else { return false }
        let reason = Array(error.reason.utf8)
        let phrase = Array("Device does not exist".utf8)
        guard reason.count >= phrase.count else { return false }
        return (0...(reason.count - phrase.count)).contains { reason[$0..<($0 + phrase.count)].elementsEqual(phrase) }
    }

    private func signInStep(
        username: String,
        password: SecureBytes?,
        flow: CognitoAuthFlow,
        preferredFirstFactor: CognitoFactor?,
        preparedEphemeral: consuming SRPPrivateValue?,
        privateValueBitCount: Int,
        clientMetadata: [String: String],
        warnings: [CognitoSignInWarning] = []
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        reset()
        self.warnings = warnings
        typedUsername = username
        self.password = password
        self.flow = flow
        self.privateValueBitCount = privateValueBitCount
        self.clientMetadata = clientMetadata
        var parameters: [String: String] = [CognitoParameter.username: username]
        var secrets = try api.requestSecrets()
        if let hash = configuration.secretHash(for: username) { parameters[CognitoParameter.secretHash] = hash }
        let device = await deviceStore.device(for: username)
        if let device { parameters[CognitoParameter.deviceKey] = device.deviceKey }
        let authFlow = flow.wireName
        var ephemeral: SRPPrivateValue? = preparedEphemeral
        switch flow {
        case .userSRP, .customWithSRP:
            guard password != nil else { throw AuthCoreError(.invalidParameter, "\(flow.rawValue) needs a password") }
            let value = try takeOrMakeEphemeral(&ephemeral)
            parameters[CognitoParameter.srpA] = value.publicValue.hexLowercased
            ephemeral = consume value
            if flow == .customWithSRP {
                parameters[CognitoParameter.challengeName] = CognitoChallengeName.srpA.rawValue
            }
        case .userPassword:
            guard let password else { throw AuthCoreError(.invalidParameter, "user-password needs a password") }
            parameters[CognitoParameter.password] = secrets.placeholder(for: password)
        case .customWithoutSRP:
            break
        case .userAuth:
            if let factor = preferredFirstFactor {
                parameters[CognitoParameter.preferredChallenge] = factor.challengeName.rawValue
                switch factor {
                case .password:
                    guard let password else {
                        throw AuthCoreError(.invalidParameter, "the PASSWORD factor needs a password")
                    }
                    parameters[CognitoParameter.password] = secrets.placeholder(for: password)
                case .passwordSRP:
                    guard password != nil else {
                        throw AuthCoreError(.invalidParameter, "the PASSWORD_SRP factor needs a password")
                    }
                    let value = try takeOrMakeEphemeral(&ephemeral)
                    parameters[CognitoParameter.srpA] = value.publicValue.hexLowercased
                    ephemeral = consume value
                default:
                    break
                }
            }
        }
        let request = CognitoIdentityProviderRequests.InitiateAuth(
            authFlow: authFlow,
            clientId: configuration.clientId,
            authParameters: parameters,
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
        let response = try await api.call(
            "InitiateAuth",
            request,
            authFlow: authFlow,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.Auth.self
        )
        return try await handle(response, operation: "InitiateAuth", ephemeral: ephemeral)
    }

    /// Answers the current next step.
    ///
    /// - Parameters:
    ///   - challengeResponse: the code, answer, new password, chosen factor/MFA type (its Cognito name,
    ///     e.g. `EMAIL_OTP`, `SOFTWARE_TOKEN_MFA`), e-mail address, password, or WebAuthn credential JSON.
    ///   - userAttributes: attributes to send with a new password (`userAttributes.<name>`).
    ///   - friendlyDeviceName: for TOTP setup: the name of the authenticator (`FriendlyDeviceName`).
    ///   - clientMetadata: for the pool's Lambda triggers (nil: the metadata given to
    ///     ``signIn(username:password:flow:preferredFirstFactor:preparedEphemeral:privateValueBitCount:clientMetadata:)``);
    ///     sent with this and every later step.
    /// - Throws: `AuthCoreError.Code.invalidParameter` when no sign-in is waiting for an answer.
    public func confirmSignIn(
        challengeResponse: String,
        userAttributes: [String: String] = [:],
        friendlyDeviceName: String? = nil,
        clientMetadata: [String: String]? = nil
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        try beginStep()
        defer { endStep() }
        if let clientMetadata { self.clientMetadata = clientMetadata }
        do {
            return try await confirmSignInStep(
                challengeResponse: challengeResponse,
                userAttributes: userAttributes,
                friendlyDeviceName: friendlyDeviceName
            )
        } catch {
            password = nil  // a failed step keeps no password
            // A remembered device the service no longer knows, met in a later step: forgotten, so
            // the next sign-in goes without it (this one cannot be made again: its codes are spent).
            if Self.isUnknownDevice(error), let username = typedUsername ?? pending?.username,
                await deviceStore.device(for: username) != nil
            {
                await deviceStore.removeDevice(for: username)
            }
            throw error
        }
    }

    private func confirmSignInStep(
        challengeResponse: String,
        userAttributes: [String: String],
        friendlyDeviceName: String?
    ) async throws(AuthCoreError) -> CognitoSignInResult {
        guard var state = pending else {
            throw AuthCoreError(.invalidParameter, "no sign-in step is waiting for an answer")
        }
        var responses: [String: String] = [CognitoParameter.username: state.username]
        var secrets = try api.requestSecrets()
        var challenge = state.challengeName
        var ephemeral: SRPPrivateValue?
        switch state.challengeName {
        case .customChallenge:
            responses[CognitoParameter.answer] = challengeResponse
        case .selectMFAType:
            // Cognito's or Amplify's name of the chosen MFA type.
            responses[CognitoParameter.answer] =
                CognitoMFAType(name: challengeResponse)?.challengeName.rawValue ?? challengeResponse
        case .smsMFA, .softwareTokenMFA, .emailOTP, .smsOTP:
            responses[state.challengeName.codeResponseName ?? ""] = challengeResponse
        case .password:
            responses[CognitoParameter.password] = secrets.placeholder(for: SecureBytes(challengeResponse.utf8))
        case .webAuthn:
            responses[CognitoParameter.credential] = challengeResponse
        case .newPasswordRequired:
            responses[CognitoParameter.newPassword] = secrets.placeholder(for: SecureBytes(challengeResponse.utf8))
            for (name, value) in userAttributes { responses[CognitoParameter.userAttributePrefix + name] = value }
        case .selectChallenge:
            let factor: CognitoFactor
            if let selected = state.selectedFactor {
                // The password for a factor chosen earlier.
                factor = selected
                password = SecureBytes(challengeResponse.utf8)
            } else {
                guard let chosen = CognitoFactor(name: challengeResponse) else {
                    let factors = CognitoFactor.allCases.map(\.rawValue).joined(separator: ", ")
                    throw AuthCoreError(
                        .invalidParameter,
                        "the answer is not a first factor (expected one of \(factors))"
                    )
                }
                factor = chosen
            }
            responses[CognitoParameter.answer] = factor.challengeName.rawValue
            if factor == .password || factor == .passwordSRP {
                guard let password else {
                    state.selectedFactor = factor
                    pending = state
                    return .nextStep(.confirmSignInWithPassword)
                }
                if factor == .password {
                    responses[CognitoParameter.password] = secrets.placeholder(for: password)
                } else {
                    let value = try CognitoSRP.makeEphemeral(randomBitCount: privateValueBitCount, random: random)
                    responses[CognitoParameter.srpA] = value.publicValue.hexLowercased
                    ephemeral = consume value
                }
            }
        case .mfaSetup:
            let kind = state.mfaSetupKind ?? (CognitoMFAType(name: challengeResponse)?.rawValue ?? challengeResponse)
            if state.mfaSetupKind == nil {
                // The user picked which MFA to set up.
                state.mfaSetupKind = kind
                pending = state
                return try await startMFASetup(kind: kind, state: state)
            }
            if CognitoMFAType(name: kind) == .totp {
                let verify = CognitoIdentityProviderRequests.VerifySoftwareToken(
                    session: state.session,
                    userCode: challengeResponse,
                    friendlyDeviceName: friendlyDeviceName
                )
                let verified = try await api.call(
                    "VerifySoftwareToken",
                    verify,
                    answer: CognitoIdentityProviderAnswers.VerifySoftwareToken.self
                )
                let status = verified.status ?? CognitoParameter.success
                guard status == CognitoParameter.success else {
                    throw AuthCoreError(
                        serviceErrorType: "VerifySoftwareToken",
                        message: "status \(status)",
                        httpStatus: 200
                    )
                }
                if let session = verified.session { state.session = session }
            } else {
                responses[CognitoParameter.email] = challengeResponse
            }
            challenge = .mfaSetup
        default:
            throw AuthCoreError(.unsupported, "challenge \(state.challengeName) cannot be answered by the app")
        }
        if let hash = configuration.secretHash(for: state.username) { responses[CognitoParameter.secretHash] = hash }
        if let device = await deviceStore.device(for: typedUsername ?? state.username) {
            responses[CognitoParameter.deviceKey] = device.deviceKey
        }
        let response = try await respond(challenge, responses, session: state.session, secrets: secrets)
        return try await handle(response, operation: "RespondToAuthChallenge", ephemeral: ephemeral)
    }

    /// Exchanges a refresh token for fresh tokens (`REFRESH_TOKEN_AUTH`).
    ///
    /// - Parameters:
    ///   - refreshToken: the refresh token of the session.
    ///   - username: the username for `SECRET_HASH` (the access token's `username` claim; needed only
    ///     for clients with a secret) and for finding a remembered device.
    ///   - deviceKey: the device key to send (default: the remembered device of `username`).
    public func refresh(
        refreshToken: String,
        username: String? = nil,
        deviceKey: String? = nil
    ) async throws(AuthCoreError)
        -> CognitoTokens
    {
        var parameters: [String: String] = [CognitoParameter.refreshToken: refreshToken]
        if configuration.clientSecret != nil {
            guard let username else {
                throw AuthCoreError(.invalidParameter, "a client with a secret needs the username to refresh")
            }
            parameters[CognitoParameter.secretHash] = configuration.secretHash(for: username)
        }
        if let deviceKey {
            parameters[CognitoParameter.deviceKey] = deviceKey
        } else if let username, let device = await deviceStore.device(for: username) {
            parameters[CognitoParameter.deviceKey] = device.deviceKey
        }
        let request = CognitoIdentityProviderRequests.InitiateAuth(
            authFlow: CognitoAuthFlow.refreshTokenAuth,
            clientId: configuration.clientId,
            authParameters: parameters,
            clientMetadata: nil
        )
        let response = try await api.call(
            "InitiateAuth",
            request,
            authFlow: CognitoAuthFlow.refreshTokenAuth,
            answer: CognitoIdentityProviderAnswers.Auth.self
        )
        guard let result = response.authenticationResult else {
            throw AuthCoreError(.malformedResponse, "InitiateAuth: a refresh answered without AuthenticationResult")
        }
        return result.tokens
    }

    // MARK: - Answers

    private func beginStep() throws(AuthCoreError) {
        guard !stepInFlight else {
            throw AuthCoreError(
                .invalidParameter,
                "a sign-in step is already in progress on this CognitoSignIn; await it first"
            )
        }
        stepInFlight = true
    }

    /// Ends a step. The password lives only while a sign-in still waits for an answer: after
    /// success, after a failure and whenever no step is pending, it is dropped (its storage wiped).
    private func endStep() {
        stepInFlight = false
        if pending == nil { password = nil }
    }

    // The state a pending step is exported from (CognitoPendingSignIn.swift).
    var currentPending: Pending? { pending }
    var currentTypedUsername: String? { typedUsername }
    var currentFlow: CognitoAuthFlow { flow }
    var currentClientMetadata: [String: String] { clientMetadata }
    var currentPrivateValueBitCount: Int { privateValueBitCount }

    /// Continues a sign-in another client left waiting (``pendingSignIn()``, kept in a file by the
    /// CLI): the next ``confirmSignIn(challengeResponse:userAttributes:friendlyDeviceName:clientMetadata:)``
    /// answers its step.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the step belongs to another
    ///   pool or client, or a step is in progress.
    public func resume(_ pendingSignIn: CognitoPendingSignIn) throws(AuthCoreError) {
        guard !stepInFlight else {
            throw AuthCoreError(.invalidParameter, "a sign-in step is already in progress on this CognitoSignIn")
        }
        guard pendingSignIn.userPoolId == configuration.userPoolId, pendingSignIn.clientId == configuration.clientId
        else {
            throw AuthCoreError(
                .invalidParameter,
                "the pending sign-in belongs to pool \(pendingSignIn.userPoolId), client \(pendingSignIn.clientId)"
            )
        }
        reset()
        pending = pendingSignIn.state
        typedUsername = pendingSignIn.typedUsername
        flow = pendingSignIn.flow
        clientMetadata = pendingSignIn.clientMetadata
        privateValueBitCount = pendingSignIn.privateValueBitCount
    }

    /// Whether the actor still holds a password (tests of its lifetime).
    package var holdsPassword: Bool { password != nil }

    private func reset() {
        pending = nil
        typedUsername = nil
        password = nil
        clientMetadata = [:]
        warnings = []
    }

    private func takeOrMakeEphemeral(_ prepared: inout SRPPrivateValue?) throws(AuthCoreError) -> SRPPrivateValue {
        if let value = prepared.take() {
            guard value.group == CognitoSRP.group else {
                throw AuthCoreError(.invalidParameter, "the prepared ephemeral is not for Cognito's group")
            }
            return value
        }
        return try CognitoSRP.makeEphemeral(randomBitCount: privateValueBitCount, random: random)
    }

    func respond(
        _ challenge: CognitoChallengeName,
        _ responses: [String: String],
        session: String?,
        secrets: SecretJSONValues? = nil
    ) async throws(AuthCoreError) -> CognitoIdentityProviderAnswers.Auth {
        let request = CognitoIdentityProviderRequests.RespondToAuthChallenge(
            challengeName: challenge,
            clientId: configuration.clientId,
            challengeResponses: responses,
            session: session,
            clientMetadata: clientMetadata.isEmpty ? nil : clientMetadata
        )
        return try await api.call(
            "RespondToAuthChallenge",
            request,
            secrets: secrets,
            answer: CognitoIdentityProviderAnswers.Auth.self
        )
    }

    /// Turns a response into tokens, an automatic answer, or a next step.
    private func handle(
        _ response: CognitoIdentityProviderAnswers.Auth,
        operation: String,
        ephemeral: consuming SRPPrivateValue?
    ) async throws(AuthCoreError)
        -> CognitoSignInResult
    {
        var response = response
        var operation = operation
        var ephemeral = ephemeral
        // At most a handful of automatic rounds (PASSWORD_VERIFIER, DEVICE_SRP_AUTH, DEVICE_PASSWORD_VERIFIER).
        for _ in 0..<4 {
            if let result = response.authenticationResult {
                var tokens = result.tokens
                pending = nil
                password = nil
                if let warning = await rememberDeviceIfNew(tokens) { warnings.append(warning) }
                tokens.warnings = warnings
                warnings = []
                return .signedIn(tokens)
            }
            guard let challenge = response.challengeName else {
                throw AuthCoreError(
                    .malformedResponse,
                    "\(operation): missing ChallengeName (and no AuthenticationResult)"
                )
            }
            let parameters = response.challengeParameters ?? [:]
            let session = response.session
            operation = "RespondToAuthChallenge"
            let username =
                parameters[CognitoParameter.username] ?? parameters[CognitoParameter.userIdForSRP] ?? pending?.username
                ?? typedUsername ?? ""
            pending = Pending(challengeName: challenge, session: session, username: username, parameters: parameters)
            switch challenge {
            case .passwordVerifier:
                guard let value = ephemeral.take() else {
                    throw AuthCoreError(
                        .malformedResponse,
                        "PASSWORD_VERIFIER arrived without an SRP_A having been sent"
                    )
                }
                guard let password else {
                    throw AuthCoreError(.invalidParameter, "PASSWORD_VERIFIER needs the password")
                }
                response = try await answerPasswordVerifier(
                    parameters,
                    session: session,
                    ephemeral: value,
                    password: password
                )
            case .deviceSRPAuth:
                guard let device = await deviceStore.device(for: typedUsername ?? username) else {
                    throw AuthCoreError(
                        .malformedResponse,
                        "DEVICE_SRP_AUTH asked, but no device is remembered for this user"
                    )
                }
                let value = try CognitoSRP.makeEphemeral(randomBitCount: privateValueBitCount, random: random)
                var responses = [
                    CognitoParameter.username: username, CognitoParameter.deviceKey: device.deviceKey,
                    CognitoParameter.srpA: value.publicValue.hexLowercased,
                ]
                if let hash = configuration.secretHash(for: username) { responses[CognitoParameter.secretHash] = hash }
                ephemeral = consume value
                response = try await respond(.deviceSRPAuth, responses, session: session)
            case .devicePasswordVerifier:
                guard let value = ephemeral.take(),
                    let device = await deviceStore.device(for: typedUsername ?? username)
                else {
                    throw AuthCoreError(
                        .malformedResponse,
                        "DEVICE_PASSWORD_VERIFIER arrived without a device SRP exchange"
                    )
                }
                response = try await answerDeviceVerifier(
                    parameters,
                    session: session,
                    ephemeral: value,
                    device: device,
                    username: username
                )
            case .mfaSetup:
                // SMS cannot be set up during sign-in (startMFASetup): offer only the others.
                let offered = try CognitoNextSteps.stringList(parameters, CognitoParameter.mfasCanSetup)
                let options = offered.filter { CognitoMFAType(name: $0) != .sms }
                guard options.count <= 1 else {
                    return .nextStep(.continueSignInWithMFASetupSelection(allowed: options))
                }
                let kind = options.first ?? offered.first ?? CognitoMFAType.totp.rawValue
                pending?.mfaSetupKind = kind
                guard let state = pending else {
                    throw AuthCoreError(.malformedResponse, "MFA_SETUP without a session state")
                }
                return try await startMFASetup(kind: kind, state: state)
            default:
                return .nextStep(
                    try CognitoNextSteps.nextStep(for: challenge, parameters: parameters, response: response)
                )
            }
        }
        throw AuthCoreError(.malformedResponse, "Cognito kept answering with automatic challenges")
    }

}

extension CognitoSignIn: CustomReflectable {
    /// The pool configuration only: the pending step holds the session string and the challenge's
    /// parameters, and the password is kept until the sign-in ends.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["configuration": configuration], displayStyle: .class)
    }
}
