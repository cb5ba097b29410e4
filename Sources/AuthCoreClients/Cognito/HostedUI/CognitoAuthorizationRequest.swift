public import AuthCore

/// One hosted-UI sign-in under way (RFC 6749 §4.1.1 with PKCE, RFC 7636, and OpenID Connect's
/// `nonce`): the URL to open in the browser, and what checking its answer needs. It is used once:
/// ``CognitoHostedUI/signIn(completing:redirect:)`` takes the redirect the browser comes back with.
/// `description` shows neither the PKCE verifier nor the state.
public struct CognitoAuthorizationRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The `/oauth2/authorize` URL to open.
    public let url: String
    /// `state` (RFC 6749 §10.12: binds the redirect to this request): 32 random bytes, base64url.
    public let state: String
    /// `nonce` (OpenID Connect Core §3.1.2.1): the ID token must carry it back.
    public let nonce: String
    /// The PKCE pair whose challenge the URL carries.
    public let codeVerifier: PKCECodeVerifier
    /// The `redirect_uri` sent, which the code exchange must repeat.
    public let redirectURI: String

    init(url: String, state: String, nonce: String, codeVerifier: PKCECodeVerifier, redirectURI: String) {
        self.url = url
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
    }

    public var description: String { "CognitoAuthorizationRequest(redirectURI: \(redirectURI))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["redirectURI": redirectURI], displayStyle: .struct) }

    /// The authorization code of a redirect's query parameters (RFC 6749 §4.1.2), once `state`
    /// matches this request's (compared in constant time).
    ///
    /// - Parameter parameters: the redirect's query parameters, percent-decoded, in order.
    /// - Throws: `AuthCoreError.Code.serviceError` with the OAuth error (`access_denied`, …) when the
    ///   redirect carries one (§4.1.2.1; its `state` is checked first all the same);
    ///   `AuthCoreError.Code.invalidParameter` for a missing, repeated or wrong `state`, and for a
    ///   missing or repeated `code`.
    public func authorizationCode(
        fromRedirectParameters parameters: [(key: String, value: String)]
    ) throws(AuthCoreError) -> String {
        func single(_ name: String) throws(AuthCoreError) -> String? {
            let values = parameters.filter { $0.key == name }
            guard values.count <= 1 else { throw AuthCoreError(.invalidParameter, "the redirect repeats '\(name)'") }
            return values.first?.value
        }
        guard let returned = try single("state") else {
            throw AuthCoreError(.invalidParameter, "the redirect carries no state: not an answer to this sign-in")
        }
        guard constantTimeEqual(Array(returned.utf8), Array(state.utf8)) else {
            throw AuthCoreError(
                .invalidParameter,
                "the redirect's state is not this sign-in's (a forged or stale redirect)"
            )
        }
        if let error = try single("error") {
            let description = try single("error_description") ?? ""
            throw AuthCoreError(
                serviceErrorType: printableText(error, limit: 200),
                message: printableText(description, limit: 200),
                httpStatus: 302
            )
        }
        guard let code = try single("code"), !code.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the redirect carries no authorization code")
        }
        return code
    }

    /// The authorization code of the URL the browser was sent to: its part before `?` must be the
    /// ``redirectURI``; its query is read as ``authorizationCode(fromRedirectParameters:)`` reads it.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a URL that is not this request's redirect,
    ///   and ``authorizationCode(fromRedirectParameters:)``'s errors.
    public func authorizationCode(fromRedirect redirect: String) throws(AuthCoreError) -> String {
        var bytes = Array(redirect.utf8)
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")), bytes[..<question].elementsEqual(redirectURI.utf8)
        else {
            throw AuthCoreError(.invalidParameter, "the URL is not a redirect to \(redirectURI) with a query")
        }
        let query = String(decoding: bytes[(question + 1)...], as: UTF8.self)
        return try authorizationCode(fromRedirectParameters: CanonicalQuery.decodedPairs(query, omittingEmpty: true))
    }
}
