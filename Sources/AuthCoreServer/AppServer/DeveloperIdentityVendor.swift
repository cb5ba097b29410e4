public import AuthCore
public import AuthCoreClients

/// What `POST /cognito/developer-identity` hands a logged-in user: a Cognito identity and an OpenID
/// token from `GetOpenIdTokenForDeveloperIdentity`, with the user as the developer user identifier
/// under the pool's developer provider name. The app then calls `GetCredentialsForIdentity`
/// with `Logins` = `{"cognito-identity.amazonaws.com": token}`.
public struct DeveloperIdentityVendor: Sendable {
    /// The pool (`us-east-1:…`).
    public let identityPoolId: String
    /// The developer provider name configured on the pool.
    public let providerName: String
    /// The token's lifetime, 1…86400 seconds.
    public let tokenDuration: Int
    private let client: CognitoIdentityClient
    private let credentials: Credentials

    /// A vendor calling `client` signed with the developer's `credentials`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for an empty pool or provider name or a
    ///   duration outside 1…86400.
    public init(
        client: CognitoIdentityClient, identityPoolId: String, providerName: String,
        tokenDuration: Int = CognitoIdentityClient.defaultTokenDuration, credentials: Credentials
    ) throws(AuthCoreError) {
        guard !identityPoolId.isEmpty, !providerName.isEmpty else { throw AuthCoreError(.invalidParameter, "the identity pool id and provider name must be non-empty") }
        guard CognitoIdentityClient.tokenDurationRange.contains(tokenDuration) else {
            throw AuthCoreError(.invalidParameter, "tokenDuration \(tokenDuration) is outside 1...86400 seconds")
        }
        self.client = client
        self.identityPoolId = identityPoolId
        self.providerName = providerName
        self.tokenDuration = tokenDuration
        self.credentials = credentials
    }

    /// The identity id and token for `username`.
    ///
    /// - Throws: what `CognitoIdentityClient.developerToken` throws.
    public func token(for username: String) async throws(AuthCoreError) -> (identityId: String, token: String) {
        try await client.developerToken(
            identityPoolId: identityPoolId, providerName: providerName, userIdentifier: username, tokenDuration: tokenDuration, credentials: credentials)
    }
}
