public import AuthCore

/// Signs a user in through a user pool's hosted UI: the authorization code grant with PKCE
/// (RFC 6749 §4.1, RFC 7636 S256) and OpenID Connect's `nonce`, as Amplify's `signInWithWebUI` does.
///
/// ```swift
/// let hostedUI = CognitoHostedUI(configuration: hostedUIConfiguration, tokenVerifier: verifier)
/// let request = try hostedUI.authorizationRequest()      // open request.url in the browser
/// let tokens = try await hostedUI.signIn(completing: request, redirect: urlTheBrowserCameBackWith)
/// ```
///
/// The redirect's `state` must be the request's (constant-time); the code is exchanged at
/// `/oauth2/token` with the request's `redirect_uri` and PKCE verifier (and the client secret in
/// HTTP Basic for a client that has one); the ID token and the access token must verify with
/// `tokenVerifier` (the pool's keys, issuer, client, expiry), and the ID token's `nonce` must be the
/// request's. Refreshing goes to the token endpoint too (`grant_type=refresh_token`).
public struct CognitoHostedUI: Sendable {
    /// The hosted UI and client.
    public let configuration: CognitoHostedUIConfiguration
    /// Checks the tokens the token endpoint returns.
    public let tokenVerifier: CognitoTokenVerifier
    let tokenEndpoint: CognitoTokenEndpoint
    let random: any SecureRandomGenerator

    /// A hosted-UI client.
    ///
    /// - Parameters:
    ///   - configuration: the domain, client and redirect.
    ///   - tokenVerifier: a verifier of the pool's tokens that accepts this client.
    ///   - transport: how the token endpoint is reached.
    ///   - random: where the PKCE verifier, `state` and `nonce` come from.
    public init(
        configuration: CognitoHostedUIConfiguration,
        tokenVerifier: CognitoTokenVerifier,
        transport: any HTTPTransport = HTTP1Transport(),
        random: any SecureRandomGenerator = SystemRandom()
    ) {
        self.configuration = configuration
        self.tokenVerifier = tokenVerifier
        self.tokenEndpoint = CognitoTokenEndpoint(
            domain: configuration.domain,
            clientId: configuration.clientId,
            clientSecret: configuration.clientSecret,
            transport: transport,
            allowInsecureHTTP: configuration.allowInsecureHTTP
        )
        self.random = random
    }

    /// A fresh sign-in: new PKCE verifier, `state` and `nonce`, and the `/oauth2/authorize` URL with
    /// `response_type=code`, `client_id`, `redirect_uri`, `scope`, `state`, `nonce`,
    /// `code_challenge`, `code_challenge_method=S256`, and the identity provider when configured.
    ///
    /// - Parameter loginHint: `login_hint`: the username to fill in on the sign-in page.
    /// - Throws: `AuthCoreError.Code.randomFailure`.
    public func authorizationRequest(loginHint: String? = nil) throws(AuthCoreError) -> CognitoAuthorizationRequest {
        let verifier = try PKCECodeVerifier(random: random)
        let state = try randomToken()
        let nonce = try randomToken()
        var parameters: [(key: String, value: String)] = [
            ("response_type", "code"), ("client_id", configuration.clientId),
            ("redirect_uri", configuration.redirectURI),
            ("scope", configuration.scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", verifier.challenge), ("code_challenge_method", PKCECodeVerifier.method),
        ]
        if let provider = configuration.identityProvider { parameters.append(("identity_provider", provider)) }
        if let identifier = configuration.idpIdentifier { parameters.append(("idp_identifier", identifier)) }
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        let url =
            try configuration.endpoint("/oauth2/authorize").origin + "/oauth2/authorize?" + Self.formEncoded(parameters)
        return CognitoAuthorizationRequest(
            url: url,
            state: state,
            nonce: nonce,
            codeVerifier: verifier,
            redirectURI: configuration.redirectURI
        )
    }

    /// Finishes `request` with the URL the browser was redirected to: the code is taken from it
    /// (``CognitoAuthorizationRequest/authorizationCode(fromRedirect:)``) and exchanged.
    ///
    /// - Throws: the redirect's errors, and ``exchange(code:for:)``'s.
    public func signIn(
        completing request: CognitoAuthorizationRequest,
        redirect: String
    ) async throws(AuthCoreError) -> CognitoTokens {
        try await exchange(code: request.authorizationCode(fromRedirect: redirect), for: request)
    }

    /// Exchanges an authorization code of `request` at `/oauth2/token` (RFC 6749 §4.1.3 with
    /// `code_verifier`, RFC 7636 §4.5), then checks the tokens.
    ///
    /// - Throws: `AuthCoreError.Code.serviceError` with the OAuth error the endpoint answers
    ///   (`invalid_grant` for a used, expired or unknown code or a wrong verifier; `invalid_client`);
    ///   `AuthCoreError.Code.malformedResponse` for an answer without an ID token (ask for `openid`)
    ///   or with malformed fields; the verifier's errors for a token that does not verify; and
    ///   `AuthCoreError.Code.invalidParameter` when the ID token's `nonce` is not the request's.
    public func exchange(
        code: String,
        for request: CognitoAuthorizationRequest
    ) async throws(AuthCoreError) -> CognitoTokens {
        let tokens = try await tokenEndpoint.redeem(
            code: code,
            redirectURI: request.redirectURI,
            codeVerifier: request.codeVerifier
        )
        let claims = try await verified(tokens)
        guard let nonce = claims.string("nonce"), constantTimeEqual(Array(nonce.utf8), Array(request.nonce.utf8)) else {
            throw AuthCoreError(
                .invalidParameter,
                "the ID token's nonce is not this sign-in's (a replayed or substituted token)"
            )
        }
        return tokens
    }

    /// Fresh tokens for `refreshToken` from `/oauth2/token` (`grant_type=refresh_token`, RFC 6749
    /// §6); the refresh token is kept when the answer has none.
    ///
    /// - Throws: `AuthCoreError.Code.serviceError` (`invalid_grant` for a revoked or expired refresh
    ///   token), and the checks of ``exchange(code:for:)`` but the nonce.
    public func refresh(refreshToken: String) async throws(AuthCoreError) -> CognitoTokens {
        let tokens = try await tokenEndpoint.refresh(refreshToken: refreshToken)
        _ = try await verified(tokens)
        return tokens
    }

    /// Verifies both tokens (the pool's key, issuer, this client, expiry) and that they are the same
    /// user's (`sub`); returns the ID token's claims.
    private func verified(_ tokens: CognitoTokens) async throws(AuthCoreError) -> JWTClaims {
        let id = try await tokenVerifier.verify(tokens.idToken, as: .id)
        let access = try await tokenVerifier.verify(tokens.accessToken, as: .access)
        guard let subject = id.string("sub"), subject == access.string("sub") else {
            throw AuthCoreError(.invalidParameter, "the ID and access tokens are not the same user's (sub)")
        }
        return id
    }

    /// The `/logout` URL to open in the browser (it ends the hosted UI's own session cookie and sends
    /// the browser to ``CognitoHostedUIConfiguration/signOutRedirectURI``).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when no sign-out URL is configured.
    public func logoutURL() throws(AuthCoreError) -> String {
        guard let signOut = configuration.signOutRedirectURI else {
            throw AuthCoreError(.invalidParameter, "no sign-out redirect URI is configured (logout_uri)")
        }
        return try configuration.endpoint("/logout").origin + "/logout?"
            + Self.formEncoded([("client_id", configuration.clientId), ("logout_uri", signOut)])
    }

    /// `key=value&…`, each side RFC 3986-encoded (unreserved kept), in the order given.
    package static func formEncoded(_ parameters: [(key: String, value: String)]) -> String {
        parameters.map { PercentEncoding.encoded($0.key) + "=" + PercentEncoding.encoded($0.value) }.joined(
            separator: "&"
        )
    }

    /// 32 random bytes in base64url: a `state` or `nonce`.
    private func randomToken() throws(AuthCoreError) -> String {
        try random.secureBytes(count: 32).withUnsafeBytes { Base64.encode($0, alphabet: .urlSafe) }
    }
}
