import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation

/// A model of the identity-pool service for the switching and refresh tests: identities with their
/// linked logins, the linking rules Cognito documents (and ministack enforces, see the integration
/// tests): a login is linked to the identity it is presented with; an identity that holds logins
/// refuses a call without one of its own (`Logins don't match`); an unknown identity is
/// `ResourceNotFoundException`. Logins are identified by provider and the token's `sub`.
final class IdentityPoolModel: HTTPTransport {
    struct Call: Sendable, Equatable {
        var target: String
        var identityId: String?
        var loginKeys: [String]
    }
    private struct State {
        var identities: [String: [String: String]] = [:]  // identity → provider → subject
        var issued = 0
        var calls: [Call] = []
        var refusedTokens: Set<String> = []
    }
    private let state = Locked(State())
    let clock: any SigningClock
    /// The lifetime of the credentials it vends.
    let credentialsLifetime: Int64

    init(clock: any SigningClock, credentialsLifetime: Int64 = 3600) {
        self.clock = clock
        self.credentialsLifetime = credentialsLifetime
    }

    var calls: [Call] { state.withLock { $0.calls } }
    func calls(_ operation: String) -> [Call] { calls.filter { $0.target == "AWSCognitoIdentityService.\(operation)" } }
    func refuse(_ token: String) { state.withLock { _ = $0.refusedTokens.insert(token) } }
    func forget(_ identityId: String) { state.withLock { $0.identities[identityId] = nil } }
    func logins(of identityId: String) -> [String: String]? { state.withLock { $0.identities[identityId] } }

    /// What `GetOpenIdTokenForDeveloperIdentity` does for the backend: the identity of `user`, or
    /// `linking` with the user's login added, or a new identity.
    func developerIdentity(user: String, linking: String?) -> String {
        state.withLock { s in
            if let owner = s.identities.first(where: { $0.value["login.authcore.test"] == user })?.key { return owner }
            if let linking, s.identities[linking] != nil {
                s.identities[linking]?["login.authcore.test"] = user
                return linking
            }
            s.issued += 1
            let id = "us-east-1:d\(s.issued)"
            s.identities[id] = ["login.authcore.test": user]
            return id
        }
    }

    private static func subject(_ token: String) -> String { (try? JWTClaims(token: token))?.string("sub") ?? token }

    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        let body =
            (try? JSONSerialization.jsonObject(with: (request.body.withInMemoryBytes { Data($0) } ?? Data())))
            as? [String: Any] ?? [:]
        let target = request.headers.first { $0.name.lowercased() == "x-amz-target" }?.value ?? ""
        let logins = body["Logins"] as? [String: String] ?? [:]
        let now = clock.now()
        return state.withLock { s in
            s.calls.append(
                Call(target: target, identityId: body["IdentityId"] as? String, loginKeys: logins.keys.sorted())
            )
            func refuse(_ type: String, _ message: String) -> HTTPResponse {
                .jsonAnswer(400, ["__type": type, "message": message])
            }
            // Developer tokens are keyed by the Cognito issuer and carry the identity as `sub`.
            let presented = logins.map { key, token in
                key == "cognito-identity.amazonaws.com"
                    ? ("login.authcore.test", s.identities[Self.subject(token)]?["login.authcore.test"] ?? "?")
                    : (key, Self.subject(token))
            }
            if logins.values.contains(where: { s.refusedTokens.contains($0) }) {
                return refuse("NotAuthorizedException", "Invalid login token. Token expired")
            }
            switch target {
            case "AWSCognitoIdentityService.GetId":
                if let owner = s.identities.first(where: { identity in
                    presented.contains { identity.value[$0.0] == $0.1 }
                })?.key {
                    return .jsonAnswer(200, ["IdentityId": owner])
                }
                s.issued += 1
                let id = "us-east-1:\(logins.isEmpty ? "g" : "a")\(s.issued)"
                s.identities[id] = Dictionary(presented, uniquingKeysWith: { a, _ in a })
                return .jsonAnswer(200, ["IdentityId": id])
            case "AWSCognitoIdentityService.GetCredentialsForIdentity":
                guard let id = body["IdentityId"] as? String, let held = s.identities[id] else {
                    return refuse("ResourceNotFoundException", "Identity '\(body["IdentityId"] ?? "")' not found.")
                }
                if !held.isEmpty {
                    guard !presented.isEmpty else {
                        return refuse("NotAuthorizedException", "Access to Identity '\(id)' is forbidden.")
                    }
                    let ownLogin = presented.contains { held[$0.0] == $0.1 }
                    let conflicting = presented.contains { held[$0.0] != nil && held[$0.0] != $0.1 }
                    guard ownLogin, !conflicting else {
                        return refuse(
                            "NotAuthorizedException",
                            "Logins don't match. Please include at least one valid login for this identity or identity pool."
                        )
                    }
                }
                for (provider, subject) in presented { s.identities[id]?[provider] = subject }
                s.issued += 1
                return .jsonAnswer(
                    200,
                    [
                        "IdentityId": id,
                        "Credentials": [
                            "AccessKeyId": "ASIA\(s.issued)", "SecretKey": "secret-\(s.issued)",
                            "SessionToken": "token-\(s.issued)",
                            "Expiration": Double(now.adding(seconds: credentialsLifetime).secondsSince1970),
                        ],
                    ]
                )
            default:
                return refuse("UnknownOperationException", target)
            }
        }
    }
}

/// The app's backend in the tests: vends developer tokens from the model, counts its calls, can be
/// made to fail.
final class ModelBackend: DeveloperTokenSource {
    private struct State {
        var asked: [String?] = []
        var failuresLeft = 0
    }
    private let state = Locked(State())
    let model: IdentityPoolModel
    let user: String
    let tokenLifetime: Int64

    init(model: IdentityPoolModel, user: String = "alice", tokenLifetime: Int64 = 900) {
        self.model = model
        self.user = user
        self.tokenLifetime = tokenLifetime
    }

    /// The identity id each call was given.
    var asked: [String?] { state.withLock { $0.asked } }
    func fail(times: Int) { state.withLock { $0.failuresLeft = times } }

    func developerToken(for identityId: String?) async throws(AuthCoreError) -> DeveloperIdentityToken {
        let (call, failing) = state.withLock { s in
            s.asked.append(identityId)
            defer { s.failuresLeft = Swift.max(0, s.failuresLeft - 1) }
            return (s.asked.count, s.failuresLeft > 0)
        }
        if failing { throw AuthCoreError(.transportFailure, "the backend is down") }
        let id = model.developerIdentity(user: user, linking: identityId)
        let token = jwtFixture(
            claims:
                #"{"iss":"https://cognito-identity.amazonaws.com","sub":"\#(id)","aud":"us-east-1:pool","n":\#(call)}"#
        )
        return DeveloperIdentityToken(
            identityId: id,
            token: token,
            expiration: model.clock.now().adding(seconds: tokenLifetime)
        )
    }
}

/// A user-pool session in the tests: ID tokens for one user, a new one at each forced refresh.
final class ModelIDTokenSource: CognitoIDTokenSource {
    private let state = Locked((calls: 0, forced: 0))
    let subject: String
    init(subject: String = "pool-alice") { self.subject = subject }

    var forcedRefreshes: Int { state.withLock { $0.forced } }

    static func idToken(
        subject: String,
        n: Int,
        use: String = "id",
        issuer: String = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool1"
    ) -> String {
        jwtFixture(claims: #"{"iss":"\#(issuer)","sub":"\#(subject)","aud":"client1","token_use":"\#(use)","n":\#(n)}"#)
    }

    func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String {
        let n = state.withLock { s in
            s.calls += 1
            if forceRefresh { s.forced += 1 }
            return s.forced
        }
        return Self.idToken(subject: subject, n: n)
    }
}

/// Holds whoever passes until the test opens it (to land a clear or switch in the middle of a call).
actor Gate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    /// How many have arrived.
    private(set) var arrivals = 0

    func pass() async {
        arrivals += 1
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    /// Waits (a bounded poll) until `count` have arrived.
    func waitForArrivals(_ count: Int) async throws {
        for _ in 0..<500 where arrivals < count { try await Task.sleep(for: .milliseconds(10)) }
        guard arrivals >= count else { throw AuthCoreError(.timedOut, "only \(arrivals) of \(count) arrived") }
    }
}

/// The model behind a gate for one operation.
final class OperationGate: HTTPTransport {
    let inner: any HTTPTransport
    let operation: String
    let gate = Gate()
    init(_ inner: any HTTPTransport, holding operation: String) {
        self.inner = inner
        self.operation = operation
    }
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        if request.headers.contains(where: {
            $0.name.lowercased() == "x-amz-target" && $0.value == "AWSCognitoIdentityService.\(operation)"
        }) {
            await gate.pass()
        }
        return try await inner.send(request)
    }
}
