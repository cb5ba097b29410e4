public import AuthCore

/// A user pool domain's OAuth 2.0 token endpoint, `/oauth2/token` ("The token issuer endpoint",
/// Amazon Cognito Developer Guide): redeems authorization codes (RFC 6749 §4.1.3, with the PKCE
/// `code_verifier` of RFC 7636 §4.5) and refresh tokens (§6). The secret parts of a request (the
/// verifier, the refresh token) are written into the body in wiping storage; the client secret goes
/// in `Authorization: Basic`, as Cognito requires. Neither call is repeated on failure: a code counts
/// once.
public struct CognitoTokenEndpoint: Sendable {
    /// The domain (`https://<prefix>.auth.<region>.amazoncognito.com`).
    public let domain: RequestURL
    /// The app client.
    public let clientId: String
    let clientSecret: SecureBytes?
    let transport: any HTTPTransport
    let allowInsecureHTTP: Bool

    /// The token endpoint of `domain` for one app client.
    ///
    /// - Parameters:
    ///   - domain: the hosted UI domain.
    ///   - clientId: the app client id.
    ///   - clientSecret: the client secret, for a client that has one.
    ///   - transport: how the endpoint is reached.
    ///   - allowInsecureHTTP: whether plain http may be used to a domain that is not loopback.
    public init(
        domain: RequestURL,
        clientId: String,
        clientSecret: SecureBytes?,
        transport: any HTTPTransport = HTTP1Transport(),
        allowInsecureHTTP: Bool = false
    ) {
        self.domain = domain
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// `grant_type=authorization_code`: the tokens for `code`.
    ///
    /// - Throws: `AuthCoreError.Code.serviceError` with the OAuth error (`invalid_grant` for a used,
    ///   expired or unknown code or a wrong verifier; `invalid_client`); `AuthCoreError.Code.malformedResponse`
    ///   for an answer without an ID token or with malformed fields; transport errors.
    public func redeem(
        code: String,
        redirectURI: String,
        codeVerifier: PKCECodeVerifier
    ) async throws(AuthCoreError) -> CognitoTokens {
        try await post(
            [
                ("grant_type", "authorization_code"), ("client_id", clientId), ("code", code),
                ("redirect_uri", redirectURI),
            ],
            secretPair: ("code_verifier", codeVerifier.verifier),
            operation: "authorization_code",
            previousRefreshToken: nil
        )
    }

    /// `grant_type=refresh_token`: fresh ID and access tokens; the refresh token is kept when the
    /// answer has none.
    ///
    /// - Throws: as ``redeem(code:redirectURI:codeVerifier:)`` (`invalid_grant` for a revoked or expired refresh
    ///   token).
    public func refresh(refreshToken: String) async throws(AuthCoreError) -> CognitoTokens {
        try await post(
            [("grant_type", "refresh_token"), ("client_id", clientId)],
            secretPair: ("refresh_token", SecureBytes(refreshToken.utf8)),
            operation: "refresh_token",
            previousRefreshToken: refreshToken
        )
    }

    /// POSTs a form to `/oauth2/token`: `parameters`, then `secretPair` written in wiping storage;
    /// the client secret in `Authorization: Basic` (RFC 6749 §2.3.1: each part form-encoded first).
    private func post(
        _ parameters: [(key: String, value: String)],
        secretPair: (name: String, value: SecureBytes),
        operation: String,
        previousRefreshToken: String?
    ) async throws(AuthCoreError) -> CognitoTokens {
        let prefix = Array(CognitoHostedUI.formEncoded(parameters).utf8) + Array("&\(secretPair.name)=".utf8)
        let body = try Self.formBody(prefix: prefix, secret: secretPair.value)
        var headers = [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
        ]
        if let secret = clientSecret {
            headers.append(
                HTTPHeader("Authorization", "Basic " + Self.basicCredentials(clientId: clientId, secret: secret))
            )
        }
        var request = HTTPRequest(
            method: "POST",
            url: try RequestURL(domain.origin + "/oauth2/token"),
            headers: headers,
            body: .secret(body),
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes,
            allowsInsecureHTTP: allowInsecureHTTP
        )
        request.answerCarriesSecrets = true
        let response = try await AuthCoreLog.serviceCall(
            service: "cognito-oauth2",
            operation: operation,
            request: request,
            attempt: 1
        ) {
            () async throws(AuthCoreError) in
            let response = try await transport.send(request)
            guard response.isSuccess else { throw Self.oauthError(response) }
            return response
        }
        return try Self.tokens(from: response.body.inWipingStorage, previousRefreshToken: previousRefreshToken)
    }

    /// The token endpoint's JSON answer (RFC 6749 §5.1; an ID token is required).
    package static func tokens(
        from body: SecureBytes,
        previousRefreshToken: String?
    ) throws(AuthCoreError) -> CognitoTokens {
        do throws(AuthCoreError) {
            let object = try parseSecretJSON(body, context: "token endpoint answer")
            guard let idToken = try object.optionalString("id_token") else {
                throw AuthCoreError(
                    .malformedResponse,
                    "the token endpoint sent no ID token (ask for the openid scope)"
                )
            }
            let expiresIn = try object.integer("expires_in", in: CognitoTokens.expiresInRange)
            let tokenType = try object.optionalString("token_type")
            if let tokenType, !equalIgnoringASCIICase(tokenType.utf8, "Bearer".utf8) {
                throw AuthCoreError(.malformedResponse, "the token endpoint's token_type is not Bearer")
            }
            return CognitoTokens(
                idToken: idToken,
                accessToken: try object.string("access_token"),
                refreshToken: try object.optionalString("refresh_token") ?? previousRefreshToken,
                expiresIn: Int(expiresIn),  // in range: fits Int
                tokenType: tokenType
            )
        } catch {
            if error.code == .malformedResponse { throw error }
            throw AuthCoreError(.malformedResponse, "token endpoint answer: \(error.reason)")
        }
    }

    /// An OAuth error answer (RFC 6749 §5.2: `error`, `error_description`) as a service error.
    static func oauthError(_ response: HTTPResponse) -> AuthCoreError {
        let object = try? parseSecretJSON(response.body.inWipingStorage, context: "token endpoint error")
        let error = (try? object?.optionalString("error")) ?? nil
        let description = (try? object?.optionalString("error_description")) ?? nil
        return AuthCoreError(
            serviceErrorType: printableText(error ?? "HTTP\(response.status)", limit: 200),
            message: printableText(description ?? "", limit: 200),
            httpStatus: response.status
        )
    }

    /// `prefix` followed by `secret` (a PKCE verifier or a refresh token: unreserved characters are
    /// written as they are, any other byte `%XX`), in wiping storage.
    package static func formBody(prefix: [UInt8], secret: SecureBytes) throws(AuthCoreError) -> SecureBytes {
        let encodedCount = secret.withUnsafeBytes { bytes in
            bytes.reduce(0) { $0 + (PKCECodeVerifier.isUnreserved($1) ? 1 : 3) }
        }
        return SecureBytes(count: prefix.count + encodedCount) { out in
            out.copyBytes(from: prefix)
            var cursor = OutputCursor(buffer: out.bindMemory(to: UInt8.self))
            cursor.position = prefix.count
            secret.withUnsafeBytes { bytes in
                PercentEncoding.encode(bytes.bindMemory(to: UInt8.self), .unreserved, into: &cursor)
            }
        }
    }

    /// `base64(form(clientId) ":" form(secret))` (RFC 6749 §2.3.1).
    static func basicCredentials(clientId: String, secret: SecureBytes) -> String {
        let secretText = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return Base64.encode(
            Array((PercentEncoding.encoded(clientId) + ":" + PercentEncoding.encoded(secretText)).utf8)
        )
    }
}
