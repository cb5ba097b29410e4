public import AuthCore

/// The Cognito identity-pool JSON API (`AWSCognitoIdentityService.<Operation>`): identities, OpenID
/// tokens and credentials, and the developer-authenticated identities a backend issues.
public struct CognitoIdentityClient: Sendable {
    /// The region.
    public let region: String
    /// The endpoint (default from ``AWSEndpoint``: `https://cognito-identity.<region>.amazonaws.com/`, `.amazonaws.com.cn` in China).
    public let endpoint: RequestURL
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let sender: SignedRequestSender

    /// The longest token a developer identity may get (24 h), and the default (15 minutes).
    public static let tokenDurationRange = 1...86_400
    public static let defaultTokenDuration = 900

    /// A client.
    ///
    /// - Throws: ``AuthCore/AuthCoreError/Code/invalidParameter`` for a malformed endpoint, or a
    ///   plain-http one that is not loopback without `allowInsecureHTTP`.
    public init(
        region: String, endpoint: String? = nil, sender: SignedRequestSender = SignedRequestSender(), allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        self.region = region
        self.endpoint = try NetworkPolicy.endpoint(endpoint, service: "cognito-identity", region: region, allowInsecureHTTP: allowInsecureHTTP)
        self.allowInsecureHTTP = allowInsecureHTTP
        self.sender = sender
    }

    /// `GetId` without logins creates a new unauthenticated identity each time it is processed: it is
    /// retried only when throttled; every other call of the API is idempotent.
    func call(_ operation: String, _ body: [String: Any], signedWith credentials: Credentials? = nil) async throws(AuthCoreError) -> JSONObject {
        let request = try HTTPRequest.awsJSON(endpoint, target: "AWSCognitoIdentityService.\(operation)", body: body, allowsInsecureHTTP: allowInsecureHTTP)
        let signer = try credentials.map { c throws(AuthCoreError) in try SigV4Signer(credentials: c, region: region, service: "cognito-identity") }
        let repeatability: RetryPolicy.Repeatability = operation == "GetId" && body["Logins"] == nil ? .unlessProcessed : .idempotent
        let response = try await sender.sendExpectingSuccess(request, signer: signer, repeatability: repeatability)
        return try JSONObject(parsing: response.body, context: operation)
    }

    // MARK: - Backend (developer-authenticated identities)

    /// `GetOpenIdTokenForDeveloperIdentity`, signed with the developer's credentials.
    ///
    /// - Parameters:
    ///   - identityPoolId: the pool (`us-east-1:…`).
    ///   - providerName: the developer provider name configured on the pool.
    ///   - userIdentifier: the backend's id for the user.
    ///   - identityId: an existing identity to link the user to.
    ///   - additionalLogins: social logins to link (`graph.facebook.com`: token, …).
    ///   - tokenDuration: 1...86400 seconds (default 15 minutes).
    /// - Returns: the identity id and the OpenID token to hand to the app.
    public func developerToken(
        identityPoolId: String, providerName: String, userIdentifier: String, identityId: String? = nil,
        additionalLogins: [String: String] = [:], tokenDuration: Int = defaultTokenDuration, credentials: Credentials
    ) async throws(AuthCoreError) -> (identityId: String, token: String) {
        guard Self.tokenDurationRange.contains(tokenDuration) else {
            throw AuthCoreError(.invalidParameter, "TokenDuration \(tokenDuration) is outside 1...86400 seconds")
        }
        guard !providerName.isEmpty, !userIdentifier.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the provider name and the user identifier must be non-empty")
        }
        var logins = additionalLogins
        logins[providerName] = userIdentifier
        var body: [String: Any] = ["IdentityPoolId": identityPoolId, "Logins": logins, "TokenDuration": tokenDuration]
        if let identityId { body["IdentityId"] = identityId }
        let response = try await call("GetOpenIdTokenForDeveloperIdentity", body, signedWith: credentials)
        return (try response.string("IdentityId"), try response.string("Token"))
    }

    // MARK: - App

    /// `GetId`: the identity id for `logins` (empty for an unauthenticated identity).
    public func getId(identityPoolId: String, logins: [String: String] = [:]) async throws(AuthCoreError) -> String {
        var body: [String: Any] = ["IdentityPoolId": identityPoolId]
        if !logins.isEmpty { body["Logins"] = logins }
        return try await call("GetId", body).string("IdentityId")
    }

    /// `GetOpenIdToken` (basic flow): an OpenID token for the identity.
    public func getOpenIdToken(identityId: String, logins: [String: String] = [:]) async throws(AuthCoreError) -> String {
        var body: [String: Any] = ["IdentityId": identityId]
        if !logins.isEmpty { body["Logins"] = logins }
        return try await call("GetOpenIdToken", body).string("Token")
    }

    /// `GetCredentialsForIdentity` (enhanced flow). `Expiration` may come as epoch seconds (a JSON
    /// number, possibly fractional) or ISO 8601.
    public func credentialsForIdentity(identityId: String, logins: [String: String] = [:]) async throws(AuthCoreError) -> Credentials {
        var body: [String: Any] = ["IdentityId": identityId]
        if !logins.isEmpty { body["Logins"] = logins }
        let response = try await call("GetCredentialsForIdentity", body)
        let credentials = try response.object("Credentials")
        return try Credentials(
            accessKeyId: credentials.string("AccessKeyId"), secretAccessKey: credentials.string("SecretKey"),
            sessionToken: credentials.string("SessionToken"), expiration: parseExpiration(credentials, "Expiration"))
    }
}
