public import AuthCore
import Foundation

/// The `auth` section of an Amplify Gen 2 `amplify_outputs.json` (the client configuration seed apps
/// configure Amplify with; format version 1.x, "About amplify_outputs.json" in the Amplify docs):
/// `aws_region`, `user_pool_id`, `user_pool_client_id`, `identity_pool_id` and the sign-in options.
public struct AmplifyAuthOutputs: Sendable, Equatable {
    /// `aws_region`.
    public let region: String
    /// `user_pool_id`.
    public let userPoolId: String
    /// `user_pool_client_id`.
    public let userPoolClientId: String
    /// `identity_pool_id`, when the backend has an identity pool.
    public let identityPoolId: String?
    /// `unauthenticated_identities_enabled` (guest access through the identity pool).
    public let unauthenticatedIdentitiesEnabled: Bool
    /// `mfa_configuration`: `NONE`, `OPTIONAL` or `REQUIRED`, when given.
    public let mfaConfiguration: String?
    /// `mfa_methods` (`SMS`, `TOTP`, `EMAIL`).
    public let mfaMethods: [String]
    /// `username_attributes` (`email`, `phone_number`).
    public let usernameAttributes: [String]
    /// `oauth`: the hosted UI, when the backend has one.
    public let oauth: AmplifyOAuthOutputs?

    /// The largest file read: 1 MiB.
    public static let maximumBytes = 1 << 20

    /// Parses the JSON of `amplify_outputs.json`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for a file that is not version 1.x or
    ///   lacks the `auth` section or one of its required fields; `AuthCoreError.Code.inputTooLarge`.
    public init(parsing bytes: [UInt8]) throws(AuthCoreError) {
        guard bytes.count <= Self.maximumBytes else {
            throw AuthCoreError(.inputTooLarge, "amplify_outputs.json is larger than 1 MiB")
        }
        self = try readingStoredInput { () throws(AuthCoreError) in
            let outputs = try JSONObject(parsing: bytes, context: "amplify_outputs.json")
            guard let version = try outputs.optionalString("version"), version == "1" || version.hasPrefix("1.") else {
                throw AuthCoreError(.malformedInput, "amplify_outputs.json: version is not 1.x")
            }
            guard let auth = try outputs.optionalObject("auth") else {
                throw AuthCoreError(.malformedInput, "amplify_outputs.json has no auth section")
            }
            return AmplifyAuthOutputs(
                region: try auth.string("aws_region"),
                userPoolId: try auth.string("user_pool_id"),
                userPoolClientId: try auth.string("user_pool_client_id"),
                identityPoolId: try auth.optionalString("identity_pool_id"),
                unauthenticatedIdentitiesEnabled: try auth.optionalBool("unauthenticated_identities_enabled") ?? false,
                mfaConfiguration: try auth.optionalString("mfa_configuration"),
                mfaMethods: try auth.stringArray("mfa_methods"),
                usernameAttributes: try auth.stringArray("username_attributes"),
                oauth: try auth.optionalObject("oauth").map(AmplifyOAuthOutputs.init)
            )
        }
    }

    /// Reads and parses the file at `path` (a regular file of at most ``maximumBytes``; the read is
    /// bounded, so a device or a growing file cannot make it endless).
    public init(contentsOfFile path: String) throws(AuthCoreError) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular, let handle = FileHandle(forReadingAtPath: path)
        else {
            throw AuthCoreError(.malformedInput, "\(path): cannot read (not a regular file)")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maximumBytes + 1) else {
            throw AuthCoreError(.malformedInput, "\(path): cannot read")
        }
        try self.init(parsing: [UInt8](data))
    }

    private init(
        region: String,
        userPoolId: String,
        userPoolClientId: String,
        identityPoolId: String?,
        unauthenticatedIdentitiesEnabled: Bool,
        mfaConfiguration: String?,
        mfaMethods: [String],
        usernameAttributes: [String],
        oauth: AmplifyOAuthOutputs?
    ) {
        self.oauth = oauth
        self.region = region
        self.userPoolId = userPoolId
        self.userPoolClientId = userPoolClientId
        self.identityPoolId = identityPoolId
        self.unauthenticatedIdentitiesEnabled = unauthenticatedIdentitiesEnabled
        self.mfaConfiguration = mfaConfiguration
        self.mfaMethods = mfaMethods
        self.usernameAttributes = usernameAttributes
    }

    /// The user-pool configuration these outputs describe.
    public func userPoolConfiguration(
        clientSecret: SecureBytes? = nil,
        endpoint: String? = nil,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) -> CognitoUserPoolConfiguration {
        try CognitoUserPoolConfiguration(
            region: region,
            userPoolId: userPoolId,
            clientId: userPoolClientId,
            clientSecret: clientSecret,
            endpoint: endpoint,
            allowInsecureHTTP: allowInsecureHTTP
        )
    }
}

/// The `auth.oauth` section of `amplify_outputs.json`: the hosted UI (Amplify's `OAuth` outputs:
/// `identity_providers`, `domain`, `scopes`, `redirect_sign_in_uri`, `redirect_sign_out_uri`,
/// `response_type`).
public struct AmplifyOAuthOutputs: Sendable, Equatable {
    /// `identity_providers` (`GOOGLE`, `FACEBOOK`, `LOGIN_WITH_AMAZON`, `SIGN_IN_WITH_APPLE`, or a
    /// SAML/OIDC provider's name).
    public let identityProviders: [String]
    /// `domain`: the hosted UI's host, without a scheme.
    public let domain: String
    /// `scopes`.
    public let scopes: [String]
    /// `redirect_sign_in_uri`: the callback URLs.
    public let redirectSignInURIs: [String]
    /// `redirect_sign_out_uri`: the sign-out URLs.
    public let redirectSignOutURIs: [String]
    /// `response_type`: `code` (the only one ``CognitoHostedUI`` signs in with) or `token`.
    public let responseType: String

    init(_ oauth: JSONObject) throws(AuthCoreError) {
        identityProviders = try oauth.stringArray("identity_providers")
        domain = try oauth.string("domain")
        scopes = try oauth.stringArray("scopes")
        redirectSignInURIs = try oauth.stringArray("redirect_sign_in_uri")
        redirectSignOutURIs = try oauth.stringArray("redirect_sign_out_uri")
        responseType = try oauth.string("response_type")
    }

    /// The hosted-UI configuration these outputs describe for `clientId`.
    ///
    /// - Parameters:
    ///   - clientId: the app client (`user_pool_client_id`).
    ///   - clientSecret: the client's secret, if it has one.
    ///   - redirectURI: one of ``redirectSignInURIs`` (default the first).
    ///   - identityProvider: one of ``identityProviders`` to go to directly, if any.
    ///   - allowInsecureHTTP: whether plain http may be used to a domain that is not loopback.
    /// - Throws: `AuthCoreError.Code.unsupported` for `response_type` `token` (the implicit grant
    ///   has no PKCE and no refresh token); `AuthCoreError.Code.invalidParameter` for a redirect URI
    ///   that is not listed, or none listed, and ``CognitoHostedUIConfiguration``'s errors.
    public func hostedUIConfiguration(
        clientId: String,
        clientSecret: SecureBytes? = nil,
        redirectURI: String? = nil,
        identityProvider: String? = nil,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) -> CognitoHostedUIConfiguration {
        guard responseType == "code" else {
            throw AuthCoreError(
                .unsupported,
                "oauth.response_type '\(responseType)': only the code grant (with PKCE) is supported"
            )
        }
        guard let redirect = redirectURI ?? redirectSignInURIs.first else {
            throw AuthCoreError(.invalidParameter, "amplify_outputs.json lists no oauth.redirect_sign_in_uri")
        }
        guard redirectSignInURIs.contains(redirect) else {
            throw AuthCoreError(.invalidParameter, "\(redirect) is not one of oauth.redirect_sign_in_uri")
        }
        return try CognitoHostedUIConfiguration(
            domain: domain,
            clientId: clientId,
            clientSecret: clientSecret,
            redirectURI: redirect,
            signOutRedirectURI: redirectSignOutURIs.first,
            scopes: scopes.isEmpty ? CognitoHostedUIConfiguration.defaultScopes : scopes,
            identityProvider: identityProvider,
            allowInsecureHTTP: allowInsecureHTTP
        )
    }
}
