public import AuthCore
import Foundation

/// A sign-in that waits for the user's answer, in a form that can be kept outside the process (the
/// CLI's `--session-file`) and resumed by another ``CognitoSignIn`` of the same pool and client.
///
/// It holds Cognito's `Session` string for the step (which lets whoever has it answer the step) and
/// the challenge's parameters, but never the password. `description` shows only the step's name.
public struct CognitoPendingSignIn: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The region of the pool.
    public let region: String
    /// The user pool.
    public let userPoolId: String
    /// The app client.
    public let clientId: String
    /// The name the user typed.
    public let typedUsername: String
    /// The flow the sign-in started with.
    public let flow: CognitoAuthFlow
    let state: CognitoSignIn.Pending
    let clientMetadata: [String: String]
    let privateValueBitCount: Int

    init(
        configuration: CognitoUserPoolConfiguration,
        typedUsername: String,
        flow: CognitoAuthFlow,
        state: CognitoSignIn.Pending,
        clientMetadata: [String: String],
        privateValueBitCount: Int
    ) {
        region = configuration.region
        userPoolId = configuration.userPoolId
        clientId = configuration.clientId
        self.typedUsername = typedUsername
        self.flow = flow
        self.state = state
        self.clientMetadata = clientMetadata
        self.privateValueBitCount = privateValueBitCount
    }

    /// The challenge Cognito asked (`SOFTWARE_TOKEN_MFA`, `CUSTOM_CHALLENGE`, …).
    public var challengeName: CognitoChallengeName { state.challengeName }

    public var description: String { "CognitoPendingSignIn(\(userPoolId), \(state.challengeName))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["userPoolId": userPoolId, "challenge": state.challengeName], displayStyle: .struct)
    }

    /// The step as JSON (format version 1), in wiping storage.
    public func encoded() throws(AuthCoreError) -> SecureBytes {
        var object: [String: JSONValue] = [
            "version": 1, "region": .string(region), "userPoolId": .string(userPoolId), "clientId": .string(clientId),
            "typedUsername": .string(typedUsername), "flow": .string(flow.rawValue),
            "challengeName": .string(state.challengeName.rawValue),
            "username": .string(state.username), "parameters": JSONValue(state.parameters),
            "clientMetadata": JSONValue(clientMetadata),
            "privateValueBitCount": .integer(privateValueBitCount),
        ]
        if let session = state.session { object["session"] = .string(session) }
        if let factor = state.selectedFactor { object["selectedFactor"] = .string(factor.rawValue) }
        if let kind = state.mfaSetupKind { object["mfaSetupKind"] = .string(kind) }
        return try secretJSON(object)
    }

    /// A step from ``encoded()``'s JSON.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming what is missing or wrong.
    public init(decoding bytes: SecureBytes) throws(AuthCoreError) {
        self = try readingStoredInput { () throws(AuthCoreError) in
            let object = try parseSecretJSON(bytes, context: "pending sign-in")
            guard try object.integer("version", in: 1...1) == 1 else {
                throw AuthCoreError(.malformedInput, "unknown pending sign-in version")
            }
            guard let flow = CognitoAuthFlow(rawValue: try object.string("flow")) else {
                throw AuthCoreError(.malformedInput, "pending sign-in: unknown flow")
            }
            var factor: CognitoFactor?
            if let name = try object.optionalString("selectedFactor") {
                guard let known = CognitoFactor(rawValue: name) else {
                    throw AuthCoreError(.malformedInput, "pending sign-in: unknown factor")
                }
                factor = known
            }
            let state = CognitoSignIn.Pending(
                challengeName: CognitoChallengeName(rawValue: try object.string("challengeName")),
                session: try object.optionalString("session"),
                username: try object.string("username"),
                parameters: try object.stringMap("parameters"),
                selectedFactor: factor,
                mfaSetupKind: try object.optionalString("mfaSetupKind")
            )
            let bits = try object.integer("privateValueBitCount", in: 128...4096)
            return CognitoPendingSignIn(
                region: try object.string("region"),
                userPoolId: try object.string("userPoolId"),
                clientId: try object.string("clientId"),
                typedUsername: try object.string("typedUsername"),
                flow: flow,
                state: state,
                clientMetadata: try object.stringMap("clientMetadata"),
                privateValueBitCount: Int(bits)
            )  // in 128...4096: fits Int
        }
    }

    private init(
        region: String,
        userPoolId: String,
        clientId: String,
        typedUsername: String,
        flow: CognitoAuthFlow,
        state: CognitoSignIn.Pending,
        clientMetadata: [String: String],
        privateValueBitCount: Int
    ) {
        self.region = region
        self.userPoolId = userPoolId
        self.clientId = clientId
        self.typedUsername = typedUsername
        self.flow = flow
        self.state = state
        self.clientMetadata = clientMetadata
        self.privateValueBitCount = privateValueBitCount
    }
}

extension CognitoSignIn {
    /// The step waiting for an answer, to keep outside the process; nil when none waits.
    public func pendingSignIn() -> CognitoPendingSignIn? {
        guard let state = currentPending, let typed = currentTypedUsername else { return nil }
        return CognitoPendingSignIn(
            configuration: configuration,
            typedUsername: typed,
            flow: currentFlow,
            state: state,
            clientMetadata: currentClientMetadata,
            privateValueBitCount: currentPrivateValueBitCount
        )
    }
}
