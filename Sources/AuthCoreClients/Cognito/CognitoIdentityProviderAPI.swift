public import AuthCore

/// The Cognito Identity Provider JSON API (`application/x-amz-json-1.1`, `X-Amz-Target:
/// AWSCognitoIdentityProviderService.<Operation>`), for the unsigned public-client operations.
public struct CognitoIdentityProviderAPI: Sendable {
    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    /// The transport.
    public let transport: any HTTPTransport

    /// An API client.
    public init(configuration: CognitoUserPoolConfiguration, transport: any HTTPTransport = URLSessionTransport()) {
        self.configuration = configuration
        self.transport = transport
    }

    /// Calls `operation` with a JSON body; returns the JSON object of a 2xx answer.
    ///
    /// - Throws: ``AuthCore/AuthCoreError/Code/serviceError`` keeping Cognito's type and message
    ///   (`NotAuthorizedException: Incorrect username or password.`),
    ///   ``AuthCore/AuthCoreError/Code/malformedResponse`` for a body that is not JSON,
    ///   ``AuthCore/AuthCoreError/Code/transportFailure``.
    public func call(_ operation: String, _ body: [String: Any]) async throws(AuthCoreError) -> JSONObject {
        let request = try HTTPRequest.awsJSON(configuration.endpoint, target: "AWSCognitoIdentityProviderService.\(operation)", body: body,
            allowsInsecureHTTP: configuration.allowInsecureHTTP)
        let response = try await transport.send(request)
        guard response.isSuccess else { throw response.serviceError() }
        if response.body.isEmpty { return JSONObject([:], context: operation) }
        return try JSONObject(parsing: response.body, context: operation)
    }
}
