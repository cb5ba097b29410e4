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
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed endpoint, or a
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
    ///   - credentials: the developer's credentials the call is signed with.
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

    /// A developer identity as `LookupDeveloperIdentity` answers: the identity and the backend's user
    /// identifiers linked to it (a page of them; `nextToken` for the next page).
    public struct DeveloperIdentityLookup: Sendable, Equatable {
        /// The identity.
        public let identityId: String
        /// The developer user identifiers linked to it.
        public let developerUserIdentifiers: [String]
        /// The token for the next page, if there is one.
        public let nextToken: String?
    }

    /// `LookupDeveloperIdentity`, signed with the developer's credentials: the identity of a
    /// developer user identifier, or the identifiers of an identity (give at least one of the two).
    ///
    /// - Parameters:
    ///   - identityPoolId: the pool.
    ///   - identityId: the identity whose developer user identifiers to list.
    ///   - developerUserIdentifier: the backend's id of a user, whose identity to find.
    ///   - maxResults: 1...60 identifiers per page.
    ///   - nextToken: the `nextToken` of the previous page.
    ///   - credentials: the developer's credentials the call is signed with.
    public func lookupDeveloperIdentity(
        identityPoolId: String, identityId: String? = nil, developerUserIdentifier: String? = nil, maxResults: Int = 60,
        nextToken: String? = nil, credentials: Credentials
    ) async throws(AuthCoreError) -> DeveloperIdentityLookup {
        guard identityId != nil || developerUserIdentifier != nil else {
            throw AuthCoreError(.invalidParameter, "LookupDeveloperIdentity needs an identity id or a developer user identifier")
        }
        guard (1...60).contains(maxResults) else { throw AuthCoreError(.invalidParameter, "MaxResults \(maxResults) is outside 1...60") }
        var body: [String: Any] = ["IdentityPoolId": identityPoolId, "MaxResults": maxResults]
        if let identityId { body["IdentityId"] = identityId }
        if let developerUserIdentifier { body["DeveloperUserIdentifier"] = developerUserIdentifier }
        if let nextToken { body["NextToken"] = nextToken }
        let response = try await call("LookupDeveloperIdentity", body, signedWith: credentials)
        return DeveloperIdentityLookup(
            identityId: try response.string("IdentityId"),
            developerUserIdentifiers: try response.stringArray("DeveloperUserIdentifierList"),
            nextToken: try response.optionalString("NextToken"))
    }

    /// `UnlinkDeveloperIdentity`, signed with the developer's credentials: the developer user
    /// identifier is no longer linked to the identity (an identity left with no login becomes
    /// unauthenticated).
    public func unlinkDeveloperIdentity(
        identityId: String, identityPoolId: String, providerName: String, userIdentifier: String, credentials: Credentials
    ) async throws(AuthCoreError) {
        guard !providerName.isEmpty, !userIdentifier.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the provider name and the user identifier must be non-empty")
        }
        _ = try await call(
            "UnlinkDeveloperIdentity",
            ["IdentityId": identityId, "IdentityPoolId": identityPoolId, "DeveloperProviderName": providerName, "DeveloperUserIdentifier": userIdentifier],
            signedWith: credentials)
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
    ///
    /// - Parameters:
    ///   - identityId: the identity.
    ///   - logins: the `Logins` map (provider name: token); empty for an unauthenticated identity.
    ///   - customRoleArn: one of the roles the pool's rules allow for a token with several
    ///     (`CustomRoleArn`); nil for the pool's default role.
    public func credentialsForIdentity(
        identityId: String, logins: [String: String] = [:], customRoleArn: String? = nil
    ) async throws(AuthCoreError) -> Credentials {
        try await identityAndCredentials(identityId: identityId, logins: logins, customRoleArn: customRoleArn).credentials
    }

    /// `GetCredentialsForIdentity`, with the identity id the service answered for (absent in some answers).
    func identityAndCredentials(
        identityId: String, logins: [String: String], customRoleArn: String?
    ) async throws(AuthCoreError) -> (identityId: String?, credentials: Credentials) {
        var body: [String: Any] = ["IdentityId": identityId]
        if !logins.isEmpty { body["Logins"] = logins }
        if let customRoleArn { body["CustomRoleArn"] = customRoleArn }
        let response = try await call("GetCredentialsForIdentity", body)
        let credentials = try response.object("Credentials")
        let answered = try response.optionalString("IdentityId")
        return (
            answered.flatMap { $0.isEmpty ? nil : $0 },
            try Credentials(
                accessKeyId: credentials.string("AccessKeyId"), secretAccessKey: credentials.string("SecretKey"),
                sessionToken: credentials.string("SessionToken"), expiration: parseExpiration(credentials, "Expiration"))
        )
    }
}
