public import AuthCore
public import AuthCoreHTTP
import Foundation

/// The reference app server's endpoints, as an ``HTTPServer/Handler``: SRP login, app sessions,
/// and for a logged-in user the three things the identity seeds' apps ask their server for.
///
/// | Endpoint | Body | Answer (200) |
/// |---|---|---|
/// | `POST /srp/begin` | `{"username":…,"A":hex[,"deviceToken":…]}` | `{"loginId":…,"salt":hex,"B":hex,"group":3072,"hash":"sha256"}` |
/// | `POST /srp/finish` | `{"loginId":…,"M1":hex}` | `{"M2":hex,"username":…,"sessionToken":…,"expiresAt":ISO 8601,"deviceToken":…}` |
/// | `GET /distribute-token.json` | — | the OSS sample's `{"StatusCode":200,"AccessKeyId",…}` for this user's policy |
/// | `POST /oss/sign` | `OSSSignatureRequest` JSON | `{"accessKeyId":…,"signature":…}` under this user's policy |
/// | `POST /cognito/developer-identity` | empty, `{}` or `{"identityId":…}` | `{"identityId":…,"token":…,"tokenDuration":…,"loginsKey":…}` |
/// | `POST /session/revoke` | empty, `{}` or `{"all":true}` | `{"revoked":"session"}` or `{"revoked":"all"}` |
///
/// The last four need `Authorization: Bearer <sessionToken>`, and act for that session's user only
/// (``PerUserPolicy``). Every refusal is JSON `{"code":…,"message":…}` (for
/// `distribute-token.json`, the sample's `{"StatusCode":…,"ErrorCode":…,"ErrorMessage":…}`) with a
/// 4xx status — 400 for a malformed request, 401 for a missing or unknown session or a wrong proof,
/// 403 outside the user's policy, 404/405 for an unknown path or method, 429 while a client is
/// refused for a user — or 502 when a service behind the server (STS, Cognito, the store) fails,
/// with a fixed message (the reason goes to the failure log only). Messages never hold a secret.
public struct AppServer: Sendable {
    /// The login service.
    public let logins: SRPLoginService
    /// The sessions issued after a login.
    public let sessions: AppSessions
    /// `GET /distribute-token.json` (absent: 404).
    public let tokenVendor: DistributeTokenVendor?
    /// `POST /oss/sign` (absent: 404).
    public let ossSigning: PerUserOSSSigning?
    /// `POST /cognito/developer-identity` (absent: 404).
    public let developerIdentity: DeveloperIdentityVendor?
    /// The limits on `/srp/*` per address and network (absent: none), applied by ``admission(_:)``.
    public let rateLimiter: RateLimiter?
    private let clock: any SigningClock
    private let failureLog: (@Sendable (String) -> Void)?

    /// A server for these services. `failureLog` receives the reason of each failure behind the
    /// server (the client gets only "a service behind the server failed": a reason can name the
    /// Redis address, a role or an account).
    public init(
        logins: SRPLoginService, sessions: AppSessions, tokenVendor: DistributeTokenVendor? = nil, ossSigning: PerUserOSSSigning? = nil,
        developerIdentity: DeveloperIdentityVendor? = nil, rateLimiter: RateLimiter? = nil, clock: any SigningClock = SystemClock(),
        failureLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.failureLog = failureLog
        self.rateLimiter = rateLimiter
        self.logins = logins
        self.sessions = sessions
        self.tokenVendor = tokenVendor
        self.ossSigning = ossSigning
        self.developerIdentity = developerIdentity
        self.clock = clock
    }

    /// The endpoints and their methods.
    static let routes: [(path: String, method: String)] = [
        ("/srp/begin", "POST"), ("/srp/finish", "POST"), ("/distribute-token.json", "GET"), ("/oss/sign", "POST"),
        ("/cognito/developer-identity", "POST"), ("/session/revoke", "POST"),
    ]

    /// A refusal: the status, a short code and a message for the client.
    struct Refusal: Error {
        let status: Int
        let code: String
        let message: String
    }

    /// The check made when a request's head has arrived, before its body is read: a `/srp/` request
    /// over its address's or network's rate is answered `429` with `Retry-After` (whole seconds)
    /// and costs nothing more. Give it to ``HTTPServer/init(configuration:admission:handler:)``.
    public func admission(_ head: HTTPServerRequest) -> HTTPResponse? {
        guard let rateLimiter, let address = head.clientAddress, head.path.utf8.starts(with: "/srp/".utf8),
            let wait = rateLimiter.admit(address)
        else { return nil }
        let seconds = Swift.max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
        var answer = Self.json(["code": "TooManyRequests", "message": "too many login requests from this address or network; retry later"], status: 429)
        answer.headers.append(HTTPHeader("Retry-After", String(seconds)))
        return answer
    }

    /// Answers one request; never throws, never traps.
    public func handle(_ request: HTTPServerRequest) async -> HTTPResponse {
        let isTokenRoute = request.path.utf8.elementsEqual("/distribute-token.json".utf8)
        do {
            // The path and method matched by their bytes.
            guard let (path, method) = Self.routes.first(where: { $0.path.utf8.elementsEqual(request.path.utf8) }) else {
                throw Refusal(status: 404, code: "NotFound", message: "no such endpoint")
            }
            guard request.method.utf8.elementsEqual(method.utf8) else {
                throw Refusal(status: 405, code: "MethodNotAllowed", message: "\(request.path) takes \(method)")
            }
            switch path {
            case "/srp/begin": return try await begin(request)
            case "/srp/finish": return try await finish(request)
            case "/distribute-token.json": return try await distributeToken(request)
            case "/oss/sign": return try await signOSS(request)
            case "/session/revoke": return try await revokeSession(request)
            default: return try await developerToken(request)
            }
        } catch let refusal as Refusal {
            return Self.refusalResponse(refusal, tokenShape: isTokenRoute)
        } catch let error as AuthCoreError {
            let refusal = Self.refusal(for: error)
            if refusal.status >= 500 { failureLog?("\(request.method) \(request.path): \(error.code): \(error.reason)") }
            return Self.refusalResponse(refusal, tokenShape: isTokenRoute)
        } catch {
            return Self.refusalResponse(Refusal(status: 500, code: "InternalError", message: "the request failed"), tokenShape: isTokenRoute)
        }
    }

    // MARK: - Endpoints

    private func begin(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        let body = try Self.jsonBody(request)
        let username = try Self.field { () throws(AuthCoreError) in try body.string("username") }
        let a = try Self.hexField(body, "A")
        let origin = LoginOrigin(
            address: request.clientAddress, deviceToken: try Self.field { () throws(AuthCoreError) in try body.optionalString("deviceToken") })
        let challenge = try await Self.lockoutAware { () async throws(AuthCoreError) in
            try await logins.begin(username: username, clientPublicValue: a, origin: origin)
        }
        let configuration = logins.configuration
        return Self.jsonAnswer(
            SRPLoginWire.BeginAnswer(
                loginId: challenge.loginId, salt: Hex.encode(challenge.salt), serverPublicValue: Hex.encode(challenge.serverPublicValue),
                group: configuration.group.byteCount * 8, hash: configuration.hash.name))
    }

    private func finish(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        let body = try Self.jsonBody(request)
        let loginId = try Self.field { () throws(AuthCoreError) in try body.string("loginId") }
        let m1 = try Self.hexField(body, "M1")
        let origin = LoginOrigin(address: request.clientAddress)
        let success = try await Self.lockoutAware { () async throws(AuthCoreError) in
            try await logins.finish(loginId: loginId, clientProof: m1, origin: origin)
        }
        let session = try await sessions.issue(for: success.username)
        return Self.jsonAnswer(
            SRPLoginWire.FinishAnswer(
                serverProof: Hex.encode(success.serverProof), username: success.username,
                sessionToken: session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, expiresAt: session.expiresAt.iso8601,
                deviceToken: success.deviceToken))
    }

    private func distributeToken(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        guard let tokenVendor else { throw Refusal(status: 404, code: "NotConfigured", message: "this server vends no STS credentials") }
        let username = try await authenticatedUser(request)
        return Self.json(DistributeToken.json(try await tokenVendor.credentials(for: username)))
    }

    private func signOSS(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        guard let ossSigning else { throw Refusal(status: 404, code: "NotConfigured", message: "this server does not sign for OSS") }
        let username = try await authenticatedUser(request)
        let signingRequest: OSSSignatureRequest
        do { signingRequest = try JSONDecoder().decode(OSSSignatureRequest.self, from: Data(request.body)) } catch {
            throw Refusal(status: 400, code: "MalformedRequest", message: "the body is not {\"version\":…,\"stringToSign\":…} JSON")
        }
        let signed = try ossSigning.sign(signingRequest, for: username, at: clock.now())
        return Self.json(["accessKeyId": .string(signed.accessKeyId), "signature": .string(signed.signature)])
    }

    private func developerToken(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        guard let developerIdentity else { throw Refusal(status: 404, code: "NotConfigured", message: "this server has no developer identity pool") }
        let username = try await authenticatedUser(request)
        var linking: String?
        if !request.body.isEmpty {
            let body = try Self.jsonBody(request)
            guard body.keys.allSatisfy({ $0 == "identityId" }) else {
                throw Refusal(status: 400, code: "MalformedRequest", message: "the body must be empty, {} or {\"identityId\":…}")
            }
            linking = try Self.field { () throws(AuthCoreError) in try body.optionalString("identityId") }
        }
        let issued = try await developerIdentity.token(for: username, linking: linking)
        return Self.json([
            "identityId": .string(issued.identityId), "token": .string(issued.token), "tokenDuration": .integer(developerIdentity.tokenDuration),
            "loginsKey": .string(issued.loginsKey),
        ])
    }

    private func revokeSession(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        let username = try await authenticatedUser(request)
        var everywhere = false
        if !request.body.isEmpty {
            let body = try Self.jsonBody(request)
            guard body.keys.allSatisfy({ $0 == "all" }) else {
                throw Refusal(status: 400, code: "MalformedRequest", message: "the body must be empty, {} or {\"all\":true}")
            }
            everywhere = try Self.field { () throws(AuthCoreError) in try body.optionalBool("all") } ?? false
        }
        if everywhere {
            try await sessions.revokeAll(for: username)
        } else if let token = request.bearerToken {
            try await sessions.revoke(token)
        }
        return Self.json(["revoked": .string(everywhere ? "all" : "session")])
    }

    /// The user of the request's session.
    private func authenticatedUser(_ request: HTTPServerRequest) async throws -> String {
        guard let token = request.bearerToken else {
            throw Refusal(status: 401, code: "Unauthorized", message: "an Authorization: Bearer session token is required")
        }
        do { return try await sessions.username(for: token) } catch {
            guard error.code == .notPermitted else { throw error }
            throw Refusal(status: 401, code: "Unauthorized", message: error.reason)
        }
    }

    /// A login step: its `notPermitted` is a lockout (429).
    static func lockoutAware<T>(_ step: () async throws(AuthCoreError) -> T) async throws -> T {
        do { return try await step() } catch {
            guard error.code == .notPermitted else { throw error }
            throw Refusal(status: 429, code: "TooManyFailures", message: error.reason)
        }
    }

    // MARK: - JSON in and out

    static func jsonBody(_ request: HTTPServerRequest) throws -> JSONObject {
        guard !request.body.isEmpty else { throw Refusal(status: 400, code: "MalformedRequest", message: "the body must be a JSON object") }
        do { return try JSONObject(parsing: request.body, context: "request body") } catch {
            throw Refusal(status: 400, code: "MalformedRequest", message: "the body must be a JSON object")
        }
    }

    /// A field read from the request: its errors are the client's (400), whatever code the reader uses.
    static func field<T>(_ read: () throws(AuthCoreError) -> T) throws -> T {
        do { return try read() } catch { throw Refusal(status: 400, code: "MalformedRequest", message: error.reason) }
    }

    static func hexField(_ body: JSONObject, _ key: String) throws -> [UInt8] {
        let text = try field { () throws(AuthCoreError) in try body.string(key) }
        guard text.utf8.count <= 4096, let bytes = try? Hex.decode(text) else {
            throw Refusal(status: 400, code: "MalformedRequest", message: "\(key) must be hexadecimal (at most 2048 bytes)")
        }
        return bytes
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse { jsonAnswer(value, status: status) }

    /// A JSON answer of a typed value (keys sorted, as declared).
    static func jsonAnswer(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let body = (try? ServiceJSON.encoder(keys: .asDeclared).encode(value)).map { Array($0) } ?? Array(#"{"code":"InternalError","message":"the answer cannot be encoded"}"#.utf8)
        return HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Cache-Control", "no-store")], body: body)
    }

    static func refusalResponse(_ refusal: Refusal, tokenShape: Bool) -> HTTPResponse {
        if tokenShape { return json(DistributeToken.error(status: refusal.status, code: refusal.code, message: refusal.message), status: refusal.status) }
        return json(["code": .string(refusal.code), "message": .string(refusal.message)], status: refusal.status)
    }

    /// The answer for an error of the services: the client's mistakes are 4xx, failures behind
    /// the server 502, anything else 500.
    static func refusal(for error: AuthCoreError) -> Refusal {
        switch error.code {
        case .invalidHex, .invalidBase64, .invalidLength, .invalidParameter, .invalidGroup, .unsafePublicValue, .malformedInput,
            .malformedRequest, .inputTooLarge:
            return Refusal(status: 400, code: "MalformedRequest", message: error.reason)
        case .expired, .signatureMismatch:
            // A state sealed under another server secret does not open: to the client, a login id that is not ours.
            return Refusal(status: 400, code: "LoginExpired", message: "login id is unknown, expired or already used")
        case .proofMismatch: return Refusal(status: 401, code: "ProofMismatch", message: "the password is wrong or the user is unknown")
        case .notPermitted: return Refusal(status: 403, code: "NotPermitted", message: error.reason)
        case .serviceError, .transportFailure, .malformedResponse, .timedOut, .credentialsUnavailable, .redirectRefused:
            return Refusal(status: 502, code: "UpstreamFailure", message: "a service behind the server failed")
        default: return Refusal(status: 500, code: "InternalError", message: "the request failed")
        }
    }
}
