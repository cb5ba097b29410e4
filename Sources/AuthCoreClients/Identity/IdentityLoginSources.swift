public import AuthCore

/// What a developer-authenticated app's backend hands it: the identity id and the OpenID token from
/// `GetOpenIdTokenForDeveloperIdentity` (Cognito Developer Guide, "Developer-authenticated
/// identities"). `description` and `Mirror` never show the token.
///
/// A token is also a ``DeveloperTokenSource`` that always answers itself (for a token the app got
/// some other way and that it replaces by switching logins).
public struct DeveloperIdentityToken: Sendable, DeveloperTokenSource, CustomStringConvertible,
    CustomDebugStringConvertible,
    CustomReflectable
{
    /// The identity the token belongs to.
    public let identityId: String
    /// The OpenID token.
    public let token: String
    /// The `Logins` key, needed only for a token that is not a JWT (its issuer cannot be read from it).
    public let loginsKey: String?
    /// When the token expires, if the backend says so; otherwise the token's `exp` claim, or, for a
    /// token that is not a JWT, 15 minutes (the service's default `TokenDuration`) after it was asked for.
    public let expiration: Timestamp?

    /// A token.
    public init(identityId: String, token: String, loginsKey: String? = nil, expiration: Timestamp? = nil) {
        self.identityId = identityId
        self.token = token
        self.loginsKey = loginsKey
        self.expiration = expiration
    }

    public func developerToken(for identityId: String?) async throws(AuthCoreError) -> DeveloperIdentityToken { self }

    public var description: String {
        "DeveloperIdentityToken(identityId: \(identityId), token: <redacted>\(loginsKey.map { ", loginsKey: \($0)" } ?? ""))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["identityId": identityId], displayStyle: .struct) }
}

/// The app's way to a developer-authenticated identity: "call your backend, return the identity id
/// and token" (the Android `refresh()`/`getIdentityId()` and iOS `token()` of the Developer Guide).
///
/// ``CognitoIdentityCredentialsProvider`` calls it on first use, when the cached token is within its
/// refresh window, and once more when the service refuses the token (`NotAuthorizedException`); one
/// call at a time, however many callers wait.
public protocol DeveloperTokenSource: Sendable {
    /// A fresh token. `identityId` is the identity the provider knows so far (a saved unauthenticated
    /// one, or the last developer identity), for a backend that links it
    /// (`GetOpenIdTokenForDeveloperIdentity` with `IdentityId`); nil when none is known.
    func developerToken(for identityId: String?) async throws(AuthCoreError) -> DeveloperIdentityToken
}

/// A ``DeveloperTokenSource`` from a closure (for small apps).
public struct ClosureDeveloperTokenSource: DeveloperTokenSource {
    let fetch: @Sendable (String?) async throws -> DeveloperIdentityToken

    /// A source that calls `fetch` with the identity id known so far.
    public init(_ fetch: @escaping @Sendable (_ identityId: String?) async throws -> DeveloperIdentityToken) {
        self.fetch = fetch
    }

    public func developerToken(for identityId: String?) async throws(AuthCoreError) -> DeveloperIdentityToken {
        do { return try await fetch(identityId) } catch let error as AuthCoreError {
            throw error
        } catch {
            throw AuthCoreError(.credentialsUnavailable, "the developer token closure failed with \(type(of: error))")
                .causedBy(error)
        }
    }
}

/// A source of user-pool ID tokens for the identity-pool bridge (Amplify's `fetchAuthSession`):
/// ``CognitoSession`` is one, refreshing its tokens when they are about to expire.
public protocol CognitoIDTokenSource: Sendable {
    /// A valid ID token; `forceRefresh` after the identity pool refused the current one.
    func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String
}

extension CognitoSession: CognitoIDTokenSource {
    public func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String {
        try await tokens(forceRefresh: forceRefresh).idToken
    }
}

/// Which login an identity uses, decided per credentials refresh (the iOS `logins()` pattern). The
/// seed's rule: a developer login gets its identity id from the backend; every other login (and
/// none) from `GetId`.
public enum IdentityLogin: Sendable, IdentityLoginSource, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// No login: an unauthenticated identity.
    case unauthenticated
    /// A developer-authenticated identity, from the app's backend.
    case developer(any DeveloperTokenSource)
    /// Social or OIDC tokens by provider name (`graph.facebook.com`, `accounts.google.com`, …; a JWT's
    /// key is checked against its `iss`).
    case providers([String: String])
    /// A user-pool session's ID token, keyed `cognito-idp.<region>.amazonaws.com/<poolId>` from its `iss`.
    case userPool(any CognitoIDTokenSource)

    public func currentLogin() async throws(AuthCoreError) -> IdentityLogin { self }

    /// The kind of login and the provider names: never a token.
    public var description: String {
        switch self {
        case .unauthenticated: "unauthenticated"
        case .developer: "developer"
        case .providers(let logins):
            "providers(\(logins.keys.sorted().map { "\($0): <redacted>" }.joined(separator: ", ")))"
        case .userPool: "userPool"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["login": description], displayStyle: .enum) }
}

/// Says, at each credentials refresh, which login is current (a fixed ``IdentityLogin`` is one that
/// always answers itself).
public protocol IdentityLoginSource: Sendable {
    /// The login to use now.
    func currentLogin() async throws(AuthCoreError) -> IdentityLogin
}

/// An ``IdentityLoginSource`` from a closure.
public struct ClosureIdentityLoginSource: IdentityLoginSource {
    let decide: @Sendable () async throws -> IdentityLogin

    /// A source that calls `decide` at each refresh.
    public init(_ decide: @escaping @Sendable () async throws -> IdentityLogin) { self.decide = decide }

    public func currentLogin() async throws(AuthCoreError) -> IdentityLogin {
        do { return try await decide() } catch let error as AuthCoreError {
            throw error
        } catch {
            throw AuthCoreError(.credentialsUnavailable, "the logins closure failed with \(type(of: error))").causedBy(
                error
            )
        }
    }
}
