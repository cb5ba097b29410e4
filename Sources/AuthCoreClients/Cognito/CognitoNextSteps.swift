import AuthCore

/// What the app is asked next, from a challenge Cognito sends (Amplify's `AuthSignInStep` for each
/// `ChallengeName`): pure functions of the answer, with the challenge parameters' readers.
enum CognitoNextSteps {
    static func nextStep(
        for challenge: CognitoChallengeName,
        parameters: [String: String],
        response: CognitoIdentityProviderAnswers.Auth
    ) throws(AuthCoreError)
        -> CognitoNextStep
    {
        let delivery = CognitoCodeDelivery(
            medium: parameters[CognitoParameter.codeDeliveryMedium],
            destination: parameters[CognitoParameter.codeDeliveryDestination]
        )
        switch challenge {
        case .customChallenge:
            return .confirmSignInWithCustomChallenge(parameters: parameters)
        case .smsMFA:
            return .confirmSignInWithSMSMFACode(delivery)
        case .softwareTokenMFA:
            return .confirmSignInWithTOTPCode
        case .emailOTP, .smsOTP:
            return .confirmSignInWithOTP(delivery)
        case .newPasswordRequired:
            var attributes: [String: String] = [:]
            if let text = parameters["userAttributes"],
                let map = try decodeEmbeddedJSON(text, parameter: "userAttributes").objectMembers
            {
                for (name, value) in map { attributes[name] = Self.text(of: value) }
            }
            var required: [String] = []
            if let text = parameters["requiredAttributes"],
                case .array(let list) = try decodeEmbeddedJSON(text, parameter: "requiredAttributes")
            {
                required = list.compactMap {
                    $0.stringValue.map {
                        $0.hasPrefix(CognitoParameter.userAttributePrefix)
                            ? String($0.dropFirst(CognitoParameter.userAttributePrefix.count)) : $0
                    }
                }
            }
            return .confirmSignInWithNewPassword(userAttributes: attributes, requiredAttributes: required)
        case .selectChallenge:
            // A factor this client does not know is an error naming it, not dropped: the app would
            // offer the user fewer ways in than the pool allows, and not know why.
            var available: [CognitoFactor] = []
            for name in response.availableChallenges ?? [] {
                guard let factor = CognitoFactor(rawValue: name) else {
                    throw AuthCoreError(
                        .unsupported,
                        "Cognito offers the first factor \(printableText(name, limit: 200)), which this client does not know"
                    )
                }
                available.append(factor)
            }
            return .continueSignInWithFirstFactorSelection(availableFactors: available)
        case .selectMFAType:
            return .continueSignInWithMFASelection(allowed: try stringList(parameters, CognitoParameter.mfasCanChoose))
        case .password:
            return .confirmSignInWithPassword
        case .webAuthn:
            return .confirmSignInWithWebAuthn(
                credentialRequestOptions: try required(parameters, CognitoParameter.credentialRequestOptions)
            )
        default:
            throw AuthCoreError(
                .unsupported,
                "Cognito asked for challenge \(challenge), which this client does not handle"
            )
        }
    }

    static func stringList(_ parameters: [String: String], _ name: String) throws(AuthCoreError) -> [String] {
        guard let text = parameters[name] else { return [] }
        guard case .array(let list) = try decodeEmbeddedJSON(text, parameter: name) else {
            throw AuthCoreError(.malformedResponse, "\(name) is not a JSON list")
        }
        return list.compactMap(\.stringValue)
    }

    /// An attribute value as text: a string as it is, any other JSON value as it is written.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .array, .object: (try? ServiceJSON.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    /// A challenge parameter that must be there and not be empty.
    static func required(_ parameters: [String: String], _ name: String) throws(AuthCoreError) -> String {
        guard let value = parameters[name], !value.isEmpty else {
            throw AuthCoreError(.malformedResponse, "challenge parameters lack \(name)")
        }
        return value
    }
}
