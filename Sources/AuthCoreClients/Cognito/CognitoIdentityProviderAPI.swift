public import AuthCore

/// The Cognito Identity Provider JSON API (`application/x-amz-json-1.1`, `X-Amz-Target:
/// AWSCognitoIdentityProviderService.<Operation>`), for the unsigned public-client operations.
public struct CognitoIdentityProviderAPI: Sendable {
    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    /// The transport.
    public let transport: any HTTPTransport
    /// Retries of the operations that are safe to repeat (``repeatability(_:_:)``).
    public let retryPolicy: RetryPolicy
    let random: any SecureRandomGenerator

    /// An API client.
    public init(
        configuration: CognitoUserPoolConfiguration,
        transport: any HTTPTransport = HTTP1Transport(),
        retryPolicy: RetryPolicy = .standard,
        random: any SecureRandomGenerator = SystemRandom()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.random = random
    }

    /// How safe a call is to send again (``RetryPolicy/Repeatability``): reads, revocations, sign-outs,
    /// the device calls and SRP initiation are idempotent; refreshes (a rotating client issues a new
    /// refresh token and retires the old) and `USER_PASSWORD_AUTH` (Cognito may send an MFA code in
    /// answer) are retried only when throttled; challenge answers (a code counts once), sign-up and
    /// reset calls (they send messages), custom and choice-based flows (their triggers may send codes)
    /// never.
    public static func repeatability(_ operation: String, _ body: [String: JSONValue]) -> RetryPolicy.Repeatability {
        repeatability(operation, authFlow: body["AuthFlow"]?.stringValue)
    }

    /// ``repeatability(_:_:)`` for an operation and, for `InitiateAuth`, its flow.
    static func repeatability(_ operation: String, authFlow: String?) -> RetryPolicy.Repeatability {
        switch operation {
        case "GetUser", "RevokeToken", "GlobalSignOut", "ConfirmDevice", "ListDevices", "UpdateDeviceStatus",
            "ForgetDevice":
            return .idempotent
        case "GetTokensFromRefreshToken":
            return .unlessProcessed
        case "InitiateAuth":
            switch authFlow {
            case "USER_SRP_AUTH": return .idempotent
            case "USER_PASSWORD_AUTH", "REFRESH_TOKEN_AUTH", "REFRESH_TOKEN": return .unlessProcessed
            default: return .never
            }
        default:
            return .never
        }
    }

    /// Calls `operation` with a JSON body; returns the JSON object of a 2xx answer.
    ///
    /// - Throws: `AuthCoreError.Code.serviceError` keeping Cognito's type and message
    ///   (`NotAuthorizedException: Incorrect username or password.`),
    ///   `AuthCoreError.Code.malformedResponse` for a body that is not JSON,
    ///   `AuthCoreError.Code.transportFailure`.
    public func call(_ operation: String, _ body: [String: JSONValue]) async throws(AuthCoreError) -> JSONObject {
        try await retryPolicy.run(Self.repeatability(operation, body), random: random) {
            () async throws(AuthCoreError) in
            try await callOnce(operation, body)
        }
    }

    /// Calls `operation` with a typed request and decodes its answer as `Answer` (``ServiceJSON``);
    /// `authFlow` names an `InitiateAuth` flow for ``repeatability(_:_:)``. The placeholders of
    /// `secrets` in `request` get their secrets in the body sent (``SecretJSONValues``).
    func call<Answer: Decodable>(
        _ operation: String,
        _ request: some Encodable,
        authFlow: String? = nil,
        secrets: SecretJSONValues? = nil,
        answer: Answer.Type
    ) async throws(AuthCoreError) -> Answer {
        let body = try ServiceJSON.encode(request)
        let secretBody = try secrets.flatMap { s throws(AuthCoreError) in s.isEmpty ? nil : try s.splice(into: body) }
        let bytes = try await retryPolicy.run(Self.repeatability(operation, authFlow: authFlow), random: random) {
            () async throws(AuthCoreError) in try await answerBytes(operation, body, secretBody: secretBody)
        }
        return try ServiceJSON.decode(Answer.self, from: bytes, context: operation)
    }

    /// A fresh set of request secrets (placeholders with this client's randomness).
    func requestSecrets() throws(AuthCoreError) -> SecretJSONValues { try SecretJSONValues(random: random) }

    private func answerBytes(
        _ operation: String,
        _ body: [UInt8],
        secretBody: SecureBytes? = nil
    ) async throws(AuthCoreError) -> [UInt8] {
        let request = HTTPRequest.awsJSON(
            configuration.endpoint,
            target: "AWSCognitoIdentityProviderService.\(operation)",
            body: secretBody.map { .secret($0) } ?? .bytes(body),
            allowsInsecureHTTP: configuration.allowInsecureHTTP
        )
        let response = try await AuthCoreLog.serviceCall(
            service: "cognito-idp",
            operation: operation,
            request: request,
            attempt: 0
        ) {
            () async throws(AuthCoreError) in
            let response = try await transport.send(request)
            guard response.isSuccess else { throw response.serviceError() }
            return response
        }
        return response.body.plainBytes
    }

    private func callOnce(_ operation: String, _ body: [String: JSONValue]) async throws(AuthCoreError) -> JSONObject {
        let bytes = try await answerBytes(operation, try ServiceJSON.encode(JSONValue.object(body)))
        if bytes.isEmpty { return JSONObject([:], context: operation) }
        return try JSONObject(parsing: bytes, context: operation)
    }
}
