public import AuthCore

/// Credentials for a Cognito identity-pool identity: unauthenticated, developer-authenticated or
/// social, by the enhanced flow (`GetCredentialsForIdentity`) or the basic flow (`GetOpenIdToken`
/// then `AssumeRoleWithWebIdentity`).
///
/// Wrap it in a ``RefreshingCredentialsProvider`` to cache and refresh. Switching logins (for example
/// from unauthenticated to a developer token) forgets the cached identity id.
public actor CognitoIdentityCredentialsProvider: CredentialsProvider {
    /// How the identity signs in.
    public enum Login: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// No login (an unauthenticated identity).
        case unauthenticated
        /// A developer-authenticated identity: the id and token the backend got from
        /// `GetOpenIdTokenForDeveloperIdentity`; `loginsKey` is needed only for a token that is not a JWT.
        case developer(identityId: String, token: String, loginsKey: String? = nil)
        /// Social or OIDC logins (`accounts.google.com`: token, …).
        case providers([String: String])

        /// The kind of login and the provider names: never a token.
        public var description: String {
            switch self {
            case .unauthenticated: "unauthenticated"
            case .developer(let identityId, _, let loginsKey): "developer(identityId: \(identityId), token: <redacted>\(loginsKey.map { ", loginsKey: \($0)" } ?? ""))"
            case .providers(let logins): "providers(\(logins.keys.sorted().map { "\($0): <redacted>" }.joined(separator: ", ")))"
            }
        }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["login": description], displayStyle: .enum) }

        /// The identity id the login brings (a developer login's), if any.
        var identityId: String? {
            if case .developer(let id, _, _) = self { id } else { nil }
        }
    }

    /// Which flow to use.
    public enum Flow: Sendable {
        /// `GetCredentialsForIdentity`.
        case enhanced
        /// `GetOpenIdToken` then `AssumeRoleWithWebIdentity` with this role.
        case basic(roleArn: String, sts: STSClient)
    }

    nonisolated let client: CognitoIdentityClient
    /// The identity pool (`us-east-1:…`).
    public nonisolated let identityPoolId: String
    nonisolated let flow: Flow
    private var login: Login
    private var identityId: String?
    /// Bumped by every switch or clear, so an answer that arrives after one is not cached for the wrong login.
    private var generation = 0

    /// A provider.
    public init(client: CognitoIdentityClient, identityPoolId: String, login: Login = .unauthenticated, flow: Flow = .enhanced) {
        self.client = client
        self.identityPoolId = identityPoolId
        self.login = login
        self.flow = flow
        identityId = login.identityId
    }

    /// Switches to another login; the cached identity id is forgotten unless the new login brings one.
    public func switchLogin(_ newLogin: Login) {
        login = newLogin
        generation += 1
        identityId = newLogin.identityId
    }

    /// Forgets the identity id (the next call gets a new one with `GetId`).
    public func clearIdentity() {
        generation += 1
        identityId = nil
    }

    /// The identity id in use, if known.
    public func currentIdentityId() -> String? { identityId }

    /// The `Logins` map for the current login, keyed by each token's issuer (checked locally).
    public func logins() throws(AuthCoreError) -> [String: String] {
        switch login {
        case .unauthenticated:
            return [:]
        case .developer(_, let token, let key):
            return [try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: client.region): token]
        case .providers(let map):
            var checked: [String: String] = [:]
            for (key, token) in map { checked[try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: client.region)] = token }
            return checked
        }
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        let logins = try logins()
        let id: String
        if let identityId {
            id = identityId
        } else {
            let started = generation
            id = try await client.getId(identityPoolId: identityPoolId, logins: logins)
            if generation == started { identityId = id }
        }
        switch flow {
        case .enhanced:
            return try await client.credentialsForIdentity(identityId: id, logins: logins)
        case .basic(let roleArn, let sts):
            let token = try await client.getOpenIdToken(identityId: id, logins: logins)
            return try await sts.assumeRoleWithWebIdentity(roleArn: roleArn, sessionName: "authcore", webIdentityToken: token)
        }
    }
}
