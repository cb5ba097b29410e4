import AuthCore
import AuthCoreClients
import Foundation

enum CognitoCommand {
    static let help = """
        OVERVIEW: Sign in to an Amazon Cognito user pool.

        USAGE: authcore cognito sign-in --region R --user-pool-id ID --client-id ID --username U
               [--flow user-srp|user-password|custom-with-srp|custom-without-srp|user-auth]
               [--preferred-challenge NAME] [--endpoint URL]

        The password comes from COGNITO_PASSWORD or stdin (one trailing newline dropped); a client secret
        from COGNITO_CLIENT_SECRET. Never from arguments.

        Prints {"status":"signedIn","tokens":{"idToken":…,"accessToken":…,"refreshToken":…,"expiresIn":…}}
        or {"status":"nextStep","nextStep":{"type":…,…}} (type: Amplify's AuthSignInStep case name) and
        exits 0; a refused sign-in prints the service's error and exits 1.

        OPTIONS:
          --flow F                  Sign-in flow (default user-srp).
          --preferred-challenge N   user-auth: PASSWORD, PASSWORD_SRP, EMAIL_OTP, SMS_OTP or WEB_AUTHN.
          --endpoint URL            Service endpoint (default https://cognito-idp.<region>.amazonaws.com/).
          -h, --help                Show this help.
        """

    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("cognito needs a subcommand (sign-in)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        guard sub == "sign-in" else { throw UsageError("unknown cognito subcommand '\(sub)'") }
        let parsed = try parseArguments(
            arguments.dropFirst(),
            specs: ["--region", "--user-pool-id", "--client-id", "--username", "--flow", "--preferred-challenge", "--endpoint"].map {
                OptionSpec(names: [$0], kind: .value)
            }, help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let region = try parsed.required("--region")
        let username = try parsed.required("--username")
        guard let flow = CognitoAuthFlow(rawValue: parsed.value("--flow") ?? "user-srp") else {
            throw UsageError("--flow must be one of \(CognitoAuthFlow.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var factor: CognitoFactor?
        if let name = parsed.value("--preferred-challenge") {
            guard let chosen = CognitoFactor(name: name) else {
                throw UsageError("--preferred-challenge must be one of \(CognitoFactor.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            factor = chosen
        }
        let configuration: CognitoUserPoolConfiguration
        do {
            configuration = try CognitoUserPoolConfiguration(
                region: region, userPoolId: try parsed.required("--user-pool-id"), clientId: try parsed.required("--client-id"),
                clientSecret: takeSecretEnvironment("COGNITO_CLIENT_SECRET"), endpoint: parsed.value("--endpoint"))
        } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
        let needsPassword = flow != .customWithoutSRP && !(flow == .userAuth && factor != .password && factor != .passwordSRP)
        var password: SecureBytes?
        if let fromEnvironment = takeSecretEnvironment("COGNITO_PASSWORD") {
            password = fromEnvironment
        } else if needsPassword {
            password = try readSecretStandardInput(limit: 65_536)
        }
        let result: CognitoSignInResult
        let chosenFactor = factor
        do {
            let capturedPassword = password
            result = try runAsync {
                try await CognitoSignIn(configuration: configuration).signIn(
                    username: username, password: capturedPassword, flow: flow, preferredFirstFactor: chosenFactor)
            }
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
        printOut(try json(result))
        return 0
    }

    static func json(_ result: CognitoSignInResult) throws -> String {
        var object: [String: Any]
        switch result {
        case .signedIn(let tokens):
            var values: [String: Any] = ["idToken": tokens.idToken, "accessToken": tokens.accessToken, "expiresIn": tokens.expiresIn]
            values["refreshToken"] = tokens.refreshToken ?? NSNull()
            object = ["status": "signedIn", "tokens": values]
        case .nextStep(let step):
            var values: [String: Any] = ["type": step.typeName]
            switch step {
            case .confirmSignInWithCustomChallenge(let parameters): values["additionalInfo"] = parameters
            case .confirmSignInWithSMSMFACode(let delivery), .confirmSignInWithOTP(let delivery):
                values["codeDeliveryDetails"] = [
                    "deliveryMedium": delivery.medium.map { $0 as Any } ?? NSNull(), "destination": delivery.destination.map { $0 as Any } ?? NSNull(),
                ]
            case .confirmSignInWithNewPassword(let attributes, let required):
                values["userAttributes"] = attributes
                values["requiredAttributes"] = required
            case .continueSignInWithFirstFactorSelection(let factors): values["availableFactors"] = factors.map(\.amplifyName)
            case .continueSignInWithMFASelection(let allowed), .continueSignInWithMFASetupSelection(let allowed):
                values["allowedMFATypes"] = allowed
            case .continueSignInWithTOTPSetup(let secret, let username):
                values["totpSetupDetails"] = ["sharedSecret": secret, "username": username]
            case .confirmSignInWithWebAuthn(let options): values["credentialRequestOptions"] = options
            case .confirmSignInWithTOTPCode, .continueSignInWithEmailMFASetup, .confirmSignInWithPassword, .confirmSignUp, .resetPassword: break
            }
            object = ["status": "nextStep", "nextStep": values]
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
