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
        region: String,
        endpoint: String? = nil,
        sender: SignedRequestSender = SignedRequestSender(),
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        self.region = region
        self.endpoint = try NetworkPolicy.endpoint(
            endpoint,
            service: "cognito-identity",
            region: region,
            allowInsecureHTTP: allowInsecureHTTP
        )
        self.allowInsecureHTTP = allowInsecureHTTP
        self.sender = sender
    }

    /// One call: the request encoded, the answer decoded (``ServiceJSON``). `GetId` without logins
    /// creates a new unauthenticated identity each time it is processed, so it is retried only when
    /// throttled (`repeatability`); every other call of the API is idempotent.
    func call<Answer: Decodable>(
        _ operation: String,
        _ body: some Encodable,
        answer: Answer.Type,
        signedWith credentials: Credentials? = nil,
        repeatability: RetryPolicy.Repeatability = .idempotent
    ) async throws(AuthCoreError) -> Answer {
        let response = try await send(
            operation,
            body,
            signedWith: credentials,
            repeatability: repeatability,
            answerCarriesSecrets: false
        )
        return try ServiceJSON.decode(Answer.self, from: response.body.plainBytes, context: operation)
    }

    private func send(
        _ operation: String,
        _ body: some Encodable,
        signedWith credentials: Credentials?,
        repeatability: RetryPolicy.Repeatability,
        answerCarriesSecrets: Bool
    ) async throws(AuthCoreError) -> HTTPResponse {
        var request = HTTPRequest.awsJSON(
            endpoint,
            target: "AWSCognitoIdentityService.\(operation)",
            body: .bytes(try ServiceJSON.encode(body)),
            allowsInsecureHTTP: allowInsecureHTTP
        )
        request.answerCarriesSecrets = answerCarriesSecrets
        let signer = try credentials.map { c throws(AuthCoreError) in
            try SigV4Signer(credentials: c, region: region, service: "cognito-identity")
        }
        return try await sender.sendExpectingSuccess(request, signer: signer, repeatability: repeatability)
    }

    /// Where `GetCredentialsForIdentity` answers give the secret key.
    static let secretKeyPath = ["Credentials", "SecretKey"]

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
        identityPoolId: String,
        providerName: String,
        userIdentifier: String,
        identityId: String? = nil,
        additionalLogins: [String: String] = [:],
        tokenDuration: Int = defaultTokenDuration,
        credentials: Credentials
    ) async throws(AuthCoreError) -> (identityId: String, token: String) {
        guard Self.tokenDurationRange.contains(tokenDuration) else {
            throw AuthCoreError(.invalidParameter, "TokenDuration \(tokenDuration) is outside 1...86400 seconds")
        }
        guard !providerName.isEmpty, !userIdentifier.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the provider name and the user identifier must be non-empty")
        }
        var logins = additionalLogins
        logins[providerName] = userIdentifier
        let answer = try await call(
            "GetOpenIdTokenForDeveloperIdentity",
            CognitoIdentityAPI.DeveloperTokenRequest(
                identityPoolId: identityPoolId,
                identityId: identityId,
                logins: logins,
                tokenDuration: tokenDuration
            ),
            answer: CognitoIdentityAPI.DeveloperTokenAnswer.self,
            signedWith: credentials
        )
        return (answer.identityId, answer.token)
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
        identityPoolId: String,
        identityId: String? = nil,
        developerUserIdentifier: String? = nil,
        maxResults: Int = 60,
        nextToken: String? = nil,
        credentials: Credentials
    ) async throws(AuthCoreError) -> DeveloperIdentityLookup {
        guard identityId != nil || developerUserIdentifier != nil else {
            throw AuthCoreError(
                .invalidParameter,
                "LookupDeveloperIdentity needs an identity id or a developer user identifier"
            )
        }
        guard (1...60).contains(maxResults) else {
            throw AuthCoreError(.invalidParameter, "MaxResults \(maxResults) is outside 1...60")
        }
        let answer = try await call(
            "LookupDeveloperIdentity",
            CognitoIdentityAPI.LookupDeveloperIdentityRequest(
                identityPoolId: identityPoolId,
                identityId: identityId,
                developerUserIdentifier: developerUserIdentifier,
                maxResults: maxResults,
                nextToken: nextToken
            ),
            answer: CognitoIdentityAPI.LookupDeveloperIdentityAnswer.self,
            signedWith: credentials
        )
        return DeveloperIdentityLookup(
            identityId: answer.identityId,
            developerUserIdentifiers: answer.developerUserIdentifierList ?? [],
            nextToken: answer.nextToken
        )
    }

    /// `UnlinkDeveloperIdentity`, signed with the developer's credentials: the developer user
    /// identifier is no longer linked to the identity (an identity left with no login becomes
    /// unauthenticated).
    public func unlinkDeveloperIdentity(
        identityId: String,
        identityPoolId: String,
        providerName: String,
        userIdentifier: String,
        credentials: Credentials
    ) async throws(AuthCoreError) {
        guard !providerName.isEmpty, !userIdentifier.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the provider name and the user identifier must be non-empty")
        }
        _ = try await call(
            "UnlinkDeveloperIdentity",
            CognitoIdentityAPI.UnlinkDeveloperIdentityRequest(
                identityId: identityId,
                identityPoolId: identityPoolId,
                developerProviderName: providerName,
                developerUserIdentifier: userIdentifier
            ),
            answer: CognitoIdentityAPI.EmptyAnswer.self,
            signedWith: credentials
        )
    }

    /// `DescribeIdentity`, signed with the developer's credentials: the login providers linked to an
    /// identity (none for an unauthenticated, guest identity).
    public func describeIdentity(
        identityId: String,
        credentials: Credentials
    ) async throws(AuthCoreError) -> (identityId: String, logins: [String]) {
        let answer = try await call(
            "DescribeIdentity",
            CognitoIdentityAPI.DescribeIdentityRequest(identityId: identityId),
            answer: CognitoIdentityAPI.DescribeIdentityAnswer.self,
            signedWith: credentials
        )
        return (answer.identityId, answer.logins ?? [])
    }

    // MARK: - App

    /// `GetId`: the identity id for `logins` (empty for an unauthenticated identity).
    public func getId(identityPoolId: String, logins: [String: String] = [:]) async throws(AuthCoreError) -> String {
        // Without logins, each processed GetId creates a new identity: retried only when throttled.
        return try await call(
            "GetId",
            CognitoIdentityAPI.GetIdRequest(identityPoolId: identityPoolId, logins: logins.isEmpty ? nil : logins),
            answer: CognitoIdentityAPI.GetIdAnswer.self,
            repeatability: logins.isEmpty ? .unlessProcessed : .idempotent
        ).identityId
    }

    /// `GetOpenIdToken` (basic flow): an OpenID token for the identity.
    public func getOpenIdToken(identityId: String, logins: [String: String] = [:]) async throws(AuthCoreError) -> String
    {
        try await call(
            "GetOpenIdToken",
            CognitoIdentityAPI.GetOpenIdTokenRequest(identityId: identityId, logins: logins.isEmpty ? nil : logins),
            answer: CognitoIdentityAPI.TokenAnswer.self
        ).token
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
        identityId: String,
        logins: [String: String] = [:],
        customRoleArn: String? = nil
    ) async throws(AuthCoreError) -> Credentials {
        try await identityAndCredentials(identityId: identityId, logins: logins, customRoleArn: customRoleArn)
            .credentials
    }

    /// `GetCredentialsForIdentity`, with the identity id the service answered for (absent in some answers).
    func identityAndCredentials(
        identityId: String,
        logins: [String: String],
        customRoleArn: String?
    ) async throws(AuthCoreError) -> (identityId: String?, credentials: Credentials) {
        let operation = "GetCredentialsForIdentity"
        let response = try await send(
            operation,
            CognitoIdentityAPI.GetCredentialsForIdentityRequest(
                identityId: identityId,
                logins: logins.isEmpty ? nil : logins,
                customRoleArn: customRoleArn
            ),
            signedWith: nil,
            repeatability: .idempotent,
            answerCarriesSecrets: true
        )
        let (answer, secrets) = try ServiceJSON.decode(
            CognitoIdentityAPI.CredentialsAnswer.self,
            from: response.body.inWipingStorage,
            secretMembers: [Self.secretKeyPath],
            context: operation
        )
        guard let secretKey = secrets[0] else {
            throw AuthCoreError(.malformedResponse, "\(operation): missing Credentials.SecretKey")
        }
        let credentials = answer.credentials
        return (
            answer.identityId.flatMap { $0.isEmpty ? nil : $0 },
            try Credentials(
                accessKeyId: credentials.accessKeyId,
                secretAccessKey: secretKey,
                sessionToken: credentials.sessionToken,
                expiration: credentials.expiration.value
            )
        )
    }
}
