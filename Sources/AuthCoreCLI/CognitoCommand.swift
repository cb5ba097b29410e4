import AuthCore
import AuthCoreClients
import Foundation

enum CognitoCommand {
    static let help = """
        OVERVIEW: Sign in to an Amazon Cognito user pool, and keep the session.

        USAGE: authcore cognito sign-in --region R --user-pool-id ID --client-id ID --username U
               [--flow user-srp|user-password|custom-with-srp|custom-without-srp|user-auth]
               [--preferred-challenge NAME] [--endpoint URL] [--amplify-outputs FILE]
               [--store FILE] [--session-file FILE]
               authcore cognito confirm-sign-in --session-file FILE [--store FILE] [--endpoint URL]
               authcore cognito session --store FILE [--endpoint URL] [--show-secrets]
               authcore cognito sign-out --store FILE [--global] [--endpoint URL]
               authcore cognito hosted-ui sign-in --domain URL --client-id ID --user-pool-id ID
               [--redirect-port N] [--redirect-host 127.0.0.1|localhost] [--scopes LIST]
               [--identity-provider NAME] [--timeout SECONDS]
               [--region R] [--endpoint URL] [--amplify-outputs FILE] [--store FILE]
               authcore cognito change-password --store FILE [--endpoint URL]
               authcore cognito attributes --store FILE [--set NAME=VALUE]... [--endpoint URL]
               authcore cognito verify-attribute --store FILE --attribute NAME [--send-code] [--endpoint URL]
               authcore cognito mfa-preference --store FILE [--sms P] [--totp P] [--email P] [--endpoint URL]
               authcore cognito delete-user --store FILE [--endpoint URL]
               authcore cognito devices --store FILE [--forget DEVICE_KEY] [--endpoint URL]
               authcore cognito resend-code --region R --user-pool-id ID --client-id ID --username U
               [--endpoint URL] [--amplify-outputs FILE]

        The password comes from COGNITO_PASSWORD or stdin (one trailing newline dropped); a client secret
        from COGNITO_CLIENT_SECRET; a challenge answer from COGNITO_CHALLENGE_RESPONSE or stdin. Never
        from arguments.

        sign-in and confirm-sign-in print
        {"status":"signedIn","tokens":{"idToken":…,"accessToken":…,"refreshToken":…,"expiresIn":…}}
        or {"status":"nextStep","nextStep":{"type":…,…}} (type: Amplify's AuthSignInStep case name) and
        exit 0; a refused sign-in prints the service's error and exits 1. With --store the signed-in
        session is kept in FILE (mode 0600); with --session-file a next step is kept there (0600) for
        confirm-sign-in, which reads the pool and client from it.

        session refreshes the stored session if needed and prints
        {"status":"signedIn","expiresAt":"YYYY-MM-DDTHH:MM:SSZ"} (tokens only with --show-secrets);
        exit 1 when signed out or the refresh is refused. sign-out revokes the refresh token
        (--global: GlobalSignOut first), forgets the session and prints {"status":"signedOut"}; exit 1
        when the service could not be told (the local session is forgotten all the same).

        hosted-ui sign-in signs in through the user pool's hosted UI (authorization code with PKCE S256,
        state and nonce checked): it listens on 127.0.0.1 (--redirect-port, default one the system picks;
        the client's callback URLs must list http://HOST:N/callback exactly, HOST 127.0.0.1 or, with
        --redirect-host localhost, localhost: Cognito takes plain-http callbacks only for localhost), prints
        {"authorizeURL":…,"redirectURI":…} on one line, waits for the browser's one redirect (--timeout,
        default 300 s), exchanges the code, verifies the tokens with the pool's keys and prints them as
        sign-in does; a redirect without the sign-in's state is refused and the wait goes on. --scopes:
        comma- or space-separated (default openid,email,profile; the account commands below need
        aws.cognito.signin.user.admin too). The region comes
        from the pool id unless --region is given; --amplify-outputs reads the domain, scopes, pool and
        client from the file's oauth section.

        The account commands act for the user of the stored session (refreshed first if needed).
        change-password reads the current and the new password from COGNITO_PASSWORD and
        COGNITO_NEW_PASSWORD, or from two lines of stdin; prints {"status":"passwordChanged"}.
        attributes prints {"attributes":{…}}; with --set it updates them and prints
        {"status":"updated","pendingVerification":{NAME:{"deliveryMedium":…,"destination":…}}} for those
        that wait for a code. verify-attribute --send-code sends a code ({"status":"codeSent",…});
        without it the code comes from COGNITO_CODE or stdin ({"status":"verified"}). mfa-preference
        sets each of --sms, --totp, --email to enabled, disabled, preferred or not-preferred, then prints
        {"enabled":[…],"preferred":…} (SMS_MFA, SOFTWARE_TOKEN_MFA, EMAIL_OTP). delete-user deletes the
        user and forgets the session ({"status":"deleted"}). resend-code sends the sign-up code again.
        devices lists the user's tracked devices ({"devices":[{"deviceKey":…,"name":…,…}]}), after
        forgetting DEVICE_KEY with --forget. A sign-in's output has "warnings" when a device could not be
        remembered, or a remembered one was unknown to the service and forgotten.

        OPTIONS:
          --flow F                  Sign-in flow (default user-srp).
          --preferred-challenge N   user-auth: PASSWORD, PASSWORD_SRP, EMAIL_OTP, SMS_OTP or WEB_AUTHN
                                    (or Amplify's names: password, passwordSRP, emailOTP, smsOTP, webAuthn).
          --endpoint URL            Service endpoint (default https://cognito-idp.<region>.amazonaws.com/,
                                    .amazonaws.com.cn in the China regions).
          --amplify-outputs FILE    Read the region, pool and client from an amplify_outputs.json.
          --store FILE              Keep the signed-in session in FILE.
          --session-file FILE       Keep a pending next step in FILE.
          --show-secrets            session: print the tokens too.
          --global                  sign-out: sign out of every device (GlobalSignOut).
          -h, --help                Show this help.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else {
            throw UsageError(
                "cognito needs a subcommand (sign-in, confirm-sign-in, session, sign-out, hosted-ui, \(CognitoAccountCommand.subcommands.joined(separator: ", ")))"
            )
        }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        let rest = arguments.dropFirst()
        switch sub {
        case "sign-in": return try await signIn(rest)
        case "confirm-sign-in": return try await confirmSignIn(rest)
        case "session": return try await session(rest)
        case "sign-out": return try await signOut(rest)
        case "hosted-ui": return try await CognitoHostedUICommand.run(rest)
        case _ where CognitoAccountCommand.subcommands.contains(sub):
            return try await CognitoAccountCommand.run(sub, rest)
        default:
            throw unknownSubcommand(
                sub,
                of: "cognito",
                among: ["sign-in", "confirm-sign-in", "session", "sign-out", "hosted-ui"]
                    + CognitoAccountCommand.subcommands
            )
        }
    }

    static func options(_ names: [String], flags: [String] = []) -> [OptionSpec] {
        names.map { OptionSpec(names: [$0], kind: .value) } + flags.map { OptionSpec(names: [$0], kind: .flag) }
    }

    static func signIn(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: options([
                "--region", "--user-pool-id", "--client-id", "--username", "--flow", "--preferred-challenge",
                "--endpoint", "--amplify-outputs",
                "--store", "--session-file",
            ]),
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let username = try parsed.required("--username")
        guard let flow = CognitoAuthFlow(rawValue: parsed.value("--flow") ?? "user-srp") else {
            throw UsageError(
                "--flow must be one of \(CognitoAuthFlow.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        var factor: CognitoFactor?
        if let name = parsed.value("--preferred-challenge") {
            guard let chosen = CognitoFactor(name: name) else {
                throw UsageError(
                    "--preferred-challenge must be one of \(CognitoFactor.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            factor = chosen
        }
        let configuration = try configuration(parsed)
        let files = try Files(store: parsed.value("--store"), sessionFile: parsed.value("--session-file"))
        let needsPassword =
            flow != .customWithoutSRP && !(flow == .userAuth && factor != .password && factor != .passwordSRP)
        var password: SecureBytes?
        if let fromEnvironment = takeSecretEnvironment("COGNITO_PASSWORD") {
            password = fromEnvironment
        } else if needsPassword {
            password = try readSecretStandardInput(limit: 65_536, prompt: "Password: ")
        }
        let session = try files.session(configuration)
        let chosenFactor = factor
        let capturedPassword = password
        let result: CognitoSignInResult
        do {
            result = try await session.signIn(
                username: username,
                password: capturedPassword,
                flow: flow,
                preferredFirstFactor: chosenFactor
            )
        } catch {
            throw CommandFailure(error.reason)
        }
        try await files.keepPendingStep(of: session, after: result)
        printOut(try json(result))
        return 0
    }

    static func confirmSignIn(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: options(["--session-file", "--store", "--endpoint"]),
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let files = try Files(store: parsed.value("--store"), sessionFile: try parsed.required("--session-file"))
        guard let stepFile = files.sessionFile else { throw UsageError("missing --session-file") }
        let pending = try failing { () throws(AuthCoreError) -> CognitoPendingSignIn in
            guard let bytes = try stepFile.read() else {
                throw AuthCoreError(.invalidParameter, "\(stepFile.path): no sign-in step is waiting")
            }
            return try CognitoPendingSignIn(decoding: bytes)
        }
        let configuration = try usageChecked {
            try poolConfiguration(
                region: pending.region,
                userPoolId: pending.userPoolId,
                clientId: pending.clientId,
                endpoint: parsed.value("--endpoint")
            )
        }
        let answerBytes =
            try takeSecretEnvironment("COGNITO_CHALLENGE_RESPONSE") ?? readSecretStandardInput(limit: 65_536)
        let answer = answerBytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let session = try files.session(configuration)
        let result: CognitoSignInResult
        do {
            try await session.resume(pending)
            result = try await session.confirmSignIn(challengeResponse: answer)
        } catch {
            // Only a refusal that ends the sign-in (its session is spent or expired) removes the step;
            // after a network failure, a local check or a wrong code the service lets retry, it stays.
            if error.serviceErrorType == "NotAuthorizedException" || error.serviceErrorType == "ExpiredCodeException" {
                try? stepFile.remove()
            }
            throw CommandFailure(error.reason)
        }
        try await files.keepPendingStep(of: session, after: result)
        printOut(try json(result))
        return 0
    }

    static func session(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: options(["--store", "--endpoint"], flags: ["--show-secrets"]),
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let (session, _) = try await storedSession(try parsed.required("--store"), endpoint: parsed.value("--endpoint"))
        let showSecrets = parsed.has("--show-secrets")
        let answer: SessionAnswer
        do {
            answer = SessionAnswer(tokens: try await session.tokens(), status: try await session.status())
        } catch {
            throw CommandFailure(error.reason)
        }
        let tokens = answer.tokens, status = answer.status
        guard case .signedIn(_, let expiresAt) = status else { throw CommandFailure("signed out") }
        // bytes-lint: an output document's member names (fixed ASCII).
        var object: [String: JSONValue] = ["status": "signedIn", "expiresAt": .string(expiresAt.iso8601)]
        if showSecrets {
            object["tokens"] = [
                "idToken": .string(tokens.idToken), "accessToken": .string(tokens.accessToken),
                "refreshToken": JSONValue(tokens.refreshToken),
            ]
        }
        printOut(try jsonText(.object(object)))
        return 0
    }

    static func signOut(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: options(["--store", "--endpoint"], flags: ["--global"]),
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let (session, stored) = try await storedSession(
            try parsed.required("--store"),
            endpoint: parsed.value("--endpoint")
        )
        guard stored else { throw CommandFailure("signed out") }
        let global = parsed.has("--global")
        let outcome = await session.signOut(global: global)
        if case .partial(let globalError, let revokeError, let storeError) = outcome {
            let failures = [globalError, revokeError, storeError].compactMap { $0?.reason }
            throw CommandFailure("signed out locally, but: \(failures.joined(separator: "; "))")
        }
        printOut(#"{"status":"signedOut"}"#)
        return 0
    }

    /// The pool configuration of `--region`, `--user-pool-id` and `--client-id`, or of the
    /// `--amplify-outputs` file for those not given.
    static func configuration(_ parsed: ParsedArguments) throws -> CognitoUserPoolConfiguration {
        do {
            var region = parsed.value("--region")
            var poolId = parsed.value("--user-pool-id")
            var clientId = parsed.value("--client-id")
            if let path = parsed.value("--amplify-outputs") {
                let outputs = try AmplifyAuthOutputs(contentsOfFile: path)
                region = region ?? outputs.region
                poolId = poolId ?? outputs.userPoolId
                clientId = clientId ?? outputs.userPoolClientId
            }
            guard let region else { throw UsageError("missing --region (or --amplify-outputs)") }
            guard let poolId else { throw UsageError("missing --user-pool-id (or --amplify-outputs)") }
            guard let clientId else { throw UsageError("missing --client-id (or --amplify-outputs)") }
            return try poolConfiguration(
                region: region,
                userPoolId: poolId,
                clientId: clientId,
                endpoint: parsed.value("--endpoint")
            )
        } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
    }

    /// The pool configuration every subcommand builds: the client secret from `COGNITO_CLIENT_SECRET`
    /// (taken from the environment and wiped there), the endpoint from `--endpoint`.
    static func poolConfiguration(
        region: String,
        userPoolId: String,
        clientId: String,
        endpoint: String?
    ) throws(AuthCoreError)
        -> CognitoUserPoolConfiguration
    {
        try CognitoUserPoolConfiguration(
            region: region,
            userPoolId: userPoolId,
            clientId: clientId,
            clientSecret: takeSecretEnvironment("COGNITO_CLIENT_SECRET"),
            endpoint: endpoint
        )
    }

    struct SessionAnswer: Sendable {
        let tokens: CognitoTokens
        let status: CognitoSession.Status
    }

    /// The session kept in `path`, configured from it; whether one was stored.
    static func storedSession(_ path: String, endpoint: String?) async throws -> (CognitoSession, Bool) {
        let store = try usageChecked { try FileCognitoTokenStore(path: path) }
        let stored: CognitoStoredSession?
        do { stored = try await store.session() } catch { throw CommandFailure(error.reason) }
        guard let stored else { throw CommandFailure("signed out (\(path) holds no session)") }
        let configuration = try usageChecked {
            try poolConfiguration(
                region: stored.region,
                userPoolId: stored.userPoolId,
                clientId: stored.clientId,
                endpoint: endpoint
            )
        }
        return (
            CognitoSession(configuration: configuration, transport: try CLITransport.make(for: .aws), store: store),
            true
        )
    }

    /// The `--store` and `--session-file` files of a sign-in command.
    struct Files {
        let store: FileCognitoTokenStore?
        let sessionFile: SecretFile?

        init(store: String?, sessionFile: String?) throws {
            self.store = try store.map { path in try usageChecked { try FileCognitoTokenStore(path: path) } }
            self.sessionFile = try sessionFile.map { path in try usageChecked { try SecretFile(path: path) } }
        }

        func session(_ configuration: CognitoUserPoolConfiguration) throws -> CognitoSession {
            CognitoSession(
                configuration: configuration,
                transport: try CLITransport.make(for: .aws),
                store: store ?? InMemoryCognitoTokenStore()
            )
        }

        /// Writes the pending step after a next step, removes the file after a sign-in.
        func keepPendingStep(of session: CognitoSession, after result: CognitoSignInResult) async throws {
            guard let sessionFile else { return }
            let pending: CognitoPendingSignIn?
            if case .nextStep = result { pending = await session.signInClient.pendingSignIn() } else { pending = nil }
            try failing {
                if let pending { try sessionFile.write(try pending.encoded()) } else { try sessionFile.remove() }
            }
        }
    }

    static func json(_ result: CognitoSignInResult) throws -> String {
        let object: JSONValue
        func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
        switch result {
        case .signedIn(let tokens):
            let values: JSONValue = [
                "idToken": .string(tokens.idToken), "accessToken": .string(tokens.accessToken),
                "expiresIn": .integer(tokens.expiresIn),
                "refreshToken": JSONValue(tokens.refreshToken),
            ]
            // bytes-lint: an output document's member names (fixed ASCII).
            var signedIn: [String: JSONValue] = ["status": "signedIn", "tokens": values]
            if !tokens.warnings.isEmpty {
                signedIn["warnings"] = .array(
                    tokens.warnings.map { ["type": .string($0.typeName), "reason": .string($0.reason)] }
                )
            }
            object = .object(signedIn)
        case .nextStep(let step):
            // bytes-lint: an output document's member names (fixed ASCII).
            var values: [String: JSONValue] = ["type": .string(step.typeName)]
            switch step {
            case .confirmSignInWithCustomChallenge(let parameters): values["additionalInfo"] = JSONValue(parameters)
            case .confirmSignInWithSMSMFACode(let delivery), .confirmSignInWithOTP(let delivery):
                values["codeDeliveryDetails"] = delivery.json
            case .confirmSignInWithNewPassword(let attributes, let required):
                values["userAttributes"] = JSONValue(attributes)
                values["requiredAttributes"] = strings(required)
            case .continueSignInWithFirstFactorSelection(let factors):
                values["availableFactors"] = strings(factors.map(\.amplifyName))
            case .continueSignInWithMFASelection(let allowed), .continueSignInWithMFASetupSelection(let allowed):
                values["allowedMFATypes"] = strings(allowed)
            case .continueSignInWithTOTPSetup(let secret, let username):
                values["totpSetupDetails"] = ["sharedSecret": .string(secret), "username": .string(username)]
            case .confirmSignInWithWebAuthn(let options): values["credentialRequestOptions"] = .string(options)
            case .confirmSignInWithTOTPCode, .continueSignInWithEmailMFASetup, .confirmSignInWithPassword,
                .confirmSignUp, .resetPassword:
                break
            }
            object = ["status": "nextStep", "nextStep": .object(values)]
        }
        return try jsonText(object)
    }
}

/// Runs `body`, reporting a library error as a failure (exit 1).
func failing<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as AuthCoreError { throw CommandFailure(error.reason) }
}

/// Runs `body`, reporting a library error as a usage error (exit 2): for what argv chose.
func usageChecked<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as AuthCoreError { throw UsageError(error.reason) }
}
