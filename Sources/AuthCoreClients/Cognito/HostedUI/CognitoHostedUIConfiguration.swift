public import AuthCore

/// A user pool's hosted UI (managed login) for one app client: the domain that serves
/// `/oauth2/authorize`, `/oauth2/token` and `/logout` ("User pool endpoints and managed login
/// reference", Amazon Cognito Developer Guide), where it sends the browser back, and what it asks for.
public struct CognitoHostedUIConfiguration: Sendable {
    /// The domain: `https://<prefix>.auth.<region>.amazoncognito.com` or a custom domain.
    public var domain: RequestURL
    /// The app client id.
    public var clientId: String
    /// The app client secret, for a client that has one (sent with HTTP Basic to the token endpoint,
    /// as Cognito requires).
    public var clientSecret: SecureBytes?
    /// `redirect_uri`: one of the client's callback URLs, exactly as registered.
    public var redirectURI: String
    /// `logout_uri`: one of the client's sign-out URLs, for ``CognitoHostedUI/logoutURL()``.
    public var signOutRedirectURI: String?
    /// `scope`: `openid` is needed for an ID token (and so for a session).
    public var scopes: [String]
    /// `identity_provider`: sign in through this provider directly (`Google`, `COGNITO`, a SAML or
    /// OIDC provider's name) instead of the hosted UI's choice.
    public var identityProvider: String?
    /// `idp_identifier`: a provider chosen by one of its identifiers (a domain of a SAML provider).
    public var idpIdentifier: String?
    /// Whether plain `http` may be used to a domain that is not loopback.
    public var allowInsecureHTTP: Bool

    /// The scopes asked for when none are given: `openid`, `email`, `profile`.
    public static let defaultScopes = ["openid", "email", "profile"]

    /// A configuration.
    ///
    /// - Parameters:
    ///   - domain: the hosted UI domain, with or without `https://` (Amplify's `oauth.domain` has none).
    ///   - clientId: the app client id.
    ///   - clientSecret: the client secret, if the client has one.
    ///   - redirectURI: the callback URL (a custom scheme such as `myapp://callback`, or a loopback
    ///     URL, RFC 8252 §7).
    ///   - signOutRedirectURI: the sign-out URL.
    ///   - scopes: the scopes (each a non-empty run of printable ASCII without spaces or quotes, RFC 6749 §3.3).
    ///   - identityProvider: `identity_provider`.
    ///   - idpIdentifier: `idp_identifier`.
    ///   - allowInsecureHTTP: whether plain http may be used to a domain that is not loopback.
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed domain, an empty client id or
    ///   redirect URI, a malformed scope, or plain http to a domain that is not loopback.
    public init(
        domain: String,
        clientId: String,
        clientSecret: SecureBytes? = nil,
        redirectURI: String,
        signOutRedirectURI: String? = nil,
        scopes: [String] = Self.defaultScopes,
        identityProvider: String? = nil,
        idpIdentifier: String? = nil,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        let text = domain.utf8.contains(UInt8(ascii: "/")) ? domain : "https://" + domain
        let url: RequestURL
        do { url = try RequestURL(text) } catch {
            throw AuthCoreError(.invalidParameter, "hosted UI domain: \(error.reason)")
        }
        guard url.query.isEmpty, url.path == "/" || url.path.isEmpty else {
            throw AuthCoreError(
                .invalidParameter,
                "the hosted UI domain is a scheme and host only, without a path or query"
            )
        }
        try NetworkPolicy.requireSecureTransport(url, allowInsecureHTTP: allowInsecureHTTP)
        guard !clientId.isEmpty else { throw AuthCoreError(.invalidParameter, "client id is empty") }
        guard !redirectURI.isEmpty,
            !redirectURI.utf8.contains(where: {
                $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "?")
            })
        else {
            // RFC 6749 §3.1.2: no fragment; a query would be merged with the code's, so none either.
            throw AuthCoreError(
                .invalidParameter,
                "the redirect URI is empty or holds a space, a control character, '?' or '#'"
            )
        }
        for scope in scopes {
            // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
            guard !scope.isEmpty, scope.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }) else {
                throw AuthCoreError(
                    .invalidParameter,
                    "scope '\(scope)' is not a scope token (printable ASCII without spaces, quotes or backslashes)"
                )
            }
        }
        self.domain = url
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.signOutRedirectURI = signOutRedirectURI
        self.scopes = scopes
        self.identityProvider = identityProvider
        self.idpIdentifier = idpIdentifier
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// Whether `domain` is a user-pool domain Cognito manages in `region`:
    /// `https://<prefix>.auth.<region>.amazoncognito.com` or `.auth-fips.` (".amazoncognito.com"
    /// names; the China regions' end in `.amazoncognito.com.cn`), with no explicit port.
    public static func isManagedDomain(_ domain: RequestURL, region: String) -> Bool {
        guard domain.scheme == "https", domain.port == nil else { return false }
        let host = domain.host.utf8.map(asciiLowercase)
        for suffix in [
            ".auth.\(region).amazoncognito.com", ".auth-fips.\(region).amazoncognito.com",
            ".auth.\(region).amazoncognito.com.cn",
        ] {
            let tail = Array(suffix.utf8)
            guard host.count > tail.count, host.suffix(tail.count).elementsEqual(tail) else { continue }
            let prefix = host.prefix(host.count - tail.count)
            // One DNS label: letters, digits, hyphens.
            if prefix.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) {
                return true
            }
        }
        return false
    }

    /// `<domain><path>`.
    func endpoint(_ path: String) throws(AuthCoreError) -> RequestURL {
        try RequestURL(domain.origin + path)
    }
}
