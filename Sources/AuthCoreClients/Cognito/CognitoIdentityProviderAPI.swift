public import AuthCore

/// The Cognito Identity Provider JSON API (`application/x-amz-json-1.1`, `X-Amz-Target:
/// AWSCognitoIdentityProviderService.<Operation>`), for the unsigned public-client operations.
public struct CognitoIdentityProviderAPI: Sendable {
    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    /// The transport.
    public let transport: any HTTPTransport
    /// Retries of the operations that are safe to repeat (``isSafeToRepeat(_:_:)``).
    public let retryPolicy: RetryPolicy
    let random: any SecureRandomGenerator

    /// An API client.
    public init(
        configuration: CognitoUserPoolConfiguration, transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = .standard, random: any SecureRandomGenerator = SystemRandom()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.random = random
    }

    /// Whether a call may be sent again after a throttling or 5xx answer: reads, refreshes, sign-outs,
    /// and the first step of the password flows (`InitiateAuth` with `USER_SRP_AUTH`,
    /// `USER_PASSWORD_AUTH` or a refresh). Not: challenge answers (a code counts once), sign-up and
    /// reset calls (they send messages), custom and choice-based flows (their triggers may send codes).
    public static func isSafeToRepeat(_ operation: String, _ body: [String: Any]) -> Bool {
        switch operation {
        case "GetUser", "GetTokensFromRefreshToken", "RevokeToken", "GlobalSignOut", "ConfirmDevice":
            return true
        case "InitiateAuth":
            let flow = body["AuthFlow"] as? String
            return ["USER_SRP_AUTH", "USER_PASSWORD_AUTH", "REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"].contains(flow ?? "")
        default:
            return false
        }
    }

    /// Calls `operation` with a JSON body; returns the JSON object of a 2xx answer.
    ///
    /// - Throws: ``AuthCore/AuthCoreError/Code/serviceError`` keeping Cognito's type and message
    ///   (`NotAuthorizedException: Incorrect username or password.`),
    ///   ``AuthCore/AuthCoreError/Code/malformedResponse`` for a body that is not JSON,
    ///   ``AuthCore/AuthCoreError/Code/transportFailure``.
    public func call(_ operation: String, _ body: [String: Any]) async throws(AuthCoreError) -> JSONObject {
        let policy = Self.isSafeToRepeat(operation, body) ? retryPolicy : .none
        return try await policy.run(random: random) { () async throws(AuthCoreError) in try await callOnce(operation, body) }
    }

    private func callOnce(_ operation: String, _ body: [String: Any]) async throws(AuthCoreError) -> JSONObject {
        let request = try HTTPRequest.awsJSON(configuration.endpoint, target: "AWSCognitoIdentityProviderService.\(operation)", body: body,
            allowsInsecureHTTP: configuration.allowInsecureHTTP)
        let response = try await transport.send(request)
        guard response.isSuccess else { throw response.serviceError() }
        if response.body.isEmpty { return JSONObject([:], context: operation) }
        return try JSONObject(parsing: response.body, context: operation)
    }
}
