public import AuthCore
public import AuthCoreHTTP
import Dispatch

/// The reference app server's endpoints, as an ``HTTPServer/Handler``: SRP login, app sessions,
/// and for a logged-in user the three things the identity seeds' apps ask their server for.
///
/// | Endpoint | Body | Answer (200) |
/// |---|---|---|
/// | `POST /srp/begin` | `{"username":…,"A":hex[,"deviceToken":…]}` |
/// `{"loginId":…,"salt":hex,"B":hex,"group":3072,"hash":"sha256"}` |
/// | `POST /srp/finish` | `{"loginId":…,"M1":hex}` | `{"M2":hex,"username":…,"sessionToken":…,"expiresAt":ISO
/// 8601,"deviceToken":…}` |
/// | `GET /distribute-token.json` | — | the OSS sample's `{"StatusCode":200,"AccessKeyId",…}` for this user's policy |
/// | `POST /oss/sign` | `OSSSignatureRequest` JSON | `{"accessKeyId":…,"signature":…}` under this user's policy |
/// | `POST /cognito/developer-identity` | empty, `{}` or `{"identityId":…}` |
/// `{"identityId":…,"token":…,"tokenDuration":…,"loginsKey":…}` |
/// | `POST /session/revoke` | empty, `{}` or `{"all":true}` | `{"revoked":"session"}` or `{"revoked":"all"}` |
/// | `GET /healthz` | — | `{"status":"alive"}` (the process answers) |
/// | `GET /readyz` | — | `{"status":"ready"}`, or `503` `{"code":"NotReady",…}` when the store does not answer a ping |
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
    private let auditLog: JSONLineLog?
    private let readiness = ReadinessCache()

    /// A server for these services. `failureLog` receives the reason of each failure behind the
    /// server (the client gets only "a service behind the server failed": a reason can name the
    /// Redis address, a role or an account). `auditLog` gets a line per failed login and per
    /// lockout.
    public init(
        logins: SRPLoginService,
        sessions: AppSessions,
        tokenVendor: DistributeTokenVendor? = nil,
        ossSigning: PerUserOSSSigning? = nil,
        developerIdentity: DeveloperIdentityVendor? = nil,
        rateLimiter: RateLimiter? = nil,
        clock: any SigningClock = SystemClock(),
        failureLog: (@Sendable (String) -> Void)? = nil,
        auditLog: JSONLineLog? = nil
    ) {
        self.failureLog = failureLog
        self.auditLog = auditLog
        self.rateLimiter = rateLimiter
        self.logins = logins
        self.sessions = sessions
        self.tokenVendor = tokenVendor
        self.ossSigning = ossSigning
        self.developerIdentity = developerIdentity
        self.clock = clock
    }

    /// The endpoints: method and path to handler.
    static let routes: Router<AppServer> = {
        var router = Router<AppServer>()
        router.add("GET", "/healthz") { _, _ in JSONAnswer.response(AppServerWire.HealthAnswer(status: "alive")) }
        router.add("GET", "/readyz") { server, _ in
            guard await server.readiness.check(server.logins.checkStore, failureLog: server.failureLog) else {
                throw HTTPRefusal(status: 503, code: "NotReady", message: "the store does not answer")
            }
            return JSONAnswer.response(AppServerWire.HealthAnswer(status: "ready"))
        }
        router.post("/srp/begin", SRPLoginWire.BeginRequest.self) { server, body, request in
            try await server.begin(body, request)
        }
        router.post("/srp/finish", SRPLoginWire.FinishRequest.self) { server, body, request in
            try await server.finish(body, request)
        }
        // The session first, then whether the endpoint is configured: a caller without a session
        // learns nothing of the server's configuration.
        router.add("GET", "/distribute-token.json", refusalAnswer: distributeTokenRefusal) { server, request in
            let username = try await server.authenticatedUser(request)
            guard let vendor = server.tokenVendor else { throw notConfigured("this server vends no STS credentials") }
            return JSONAnswer.response(DistributeToken.json(try await vendor.credentials(for: username)))
        }
        router.post(
            "/oss/sign",
            OSSSignatureRequest.self,
            authorize: { server, request in
                let username = try await server.authenticatedUser(request)
                guard let signing = server.ossSigning else { throw notConfigured("this server does not sign for OSS") }
                return (signing, username)
            }
        ) { server, authorized, body, _ in
            let signed = try authorized.0.sign(body, for: authorized.1, at: server.clock.now())
            return AppServerWire.OSSSignatureAnswer(accessKeyId: signed.accessKeyId, signature: signed.signature)
        }
        router.post(
            "/cognito/developer-identity",
            AppServerWire.DeveloperIdentityRequest.self,
            authorize: { server, request in
                let username = try await server.authenticatedUser(request)
                guard let vendor = server.developerIdentity else {
                    throw notConfigured("this server has no developer identity pool")
                }
                return (vendor, username)
            }
        ) { _, authorized, body, _ in
            let (vendor, username) = authorized
            let issued = try await vendor.token(for: username, linking: body.identityId)
            return AppServerWire.DeveloperIdentityAnswer(
                identityId: issued.identityId,
                token: issued.token,
                tokenDuration: vendor.tokenDuration,
                loginsKey: issued.loginsKey
            )
        }
        router.post(
            "/session/revoke",
            AppServerWire.RevokeRequest.self,
            authorize: { server, request in try await server.authenticatedUser(request) }
        ) {
            server,
            username,
            body,
            request in
            try await server.revokeSession(username: username, everywhere: body.all ?? false, request)
        }
        return router
    }()

    static func notConfigured(_ message: String) -> HTTPRefusal {
        HTTPRefusal(status: 404, code: "NotConfigured", message: message)
    }

    /// The check made when a request's head has arrived, before its body is read: a `/srp/` request
    /// over its address's or network's rate is answered `429` with `Retry-After` (whole seconds)
    /// and costs nothing more. Give it to ``HTTPServer/init(configuration:admission:requestLog:handler:)``.
    public func admission(_ head: HTTPServerRequest) -> HTTPResponse? {
        guard let rateLimiter, let address = head.clientAddress, head.path.utf8.starts(with: "/srp/".utf8),
            let wait = rateLimiter.admit(address)
        else { return nil }
        let seconds = Swift.max(
            1,
            Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up))
        )
        return HTTPRefusal(
            status: 429,
            code: "TooManyRequests",
            message: "too many login requests from this address or network; retry later",
            headers: [HTTPHeader("Retry-After", String(seconds))]
        ).response
    }

    /// Answers one request; never throws, never traps.
    public func handle(_ request: HTTPServerRequest) async -> HTTPResponse {
        let route: Router<AppServer>.Route
        do { route = try Self.routes.route(for: request) } catch {
            return Self.routes.answer(error, path: request.path)
        }
        do {
            return try await route.handler(self, request)
        } catch let refusal as HTTPRefusal {
            if refusal.status >= 500 { failureLog?("\(request.method) \(request.path): \(refusal.code)") }
            return route.refusalAnswer(refusal)
        } catch let error as AuthCoreError {
            let refusal = Self.refusal(for: error)
            if refusal.status >= 500 {
                failureLog?("\(request.method) \(request.path): \(error.code): \(error.reason)")
            }
            return route.refusalAnswer(refusal)
        } catch {
            failureLog?("\(request.method) \(request.path): \(type(of: error))")
            return route.refusalAnswer(HTTPRefusal(status: 500, code: "InternalError", message: "the request failed"))
        }
    }

    // MARK: - Endpoints

    private func begin(
        _ body: SRPLoginWire.BeginRequest,
        _ request: HTTPServerRequest
    ) async throws -> SRPLoginWire.BeginAnswer {
        let a = try Self.hex(body.clientPublicValue, "A")
        let origin = LoginOrigin(address: request.clientAddress, deviceToken: body.deviceToken)
        let challenge = try await audited(request, user: body.username) { () async throws(AuthCoreError) in
            try await logins.begin(username: body.username, clientPublicValue: a, origin: origin)
        }
        let configuration = logins.configuration
        return SRPLoginWire.BeginAnswer(
            loginId: challenge.loginId,
            salt: Hex.encode(challenge.salt),
            serverPublicValue: Hex.encode(challenge.serverPublicValue),
            group: configuration.group.byteCount * 8,
            hash: configuration.hash.name
        )
    }

    private func finish(
        _ body: SRPLoginWire.FinishRequest,
        _ request: HTTPServerRequest
    ) async throws -> SRPLoginWire.FinishAnswer {
        let m1 = try Self.hex(body.clientProof, "M1")
        let origin = LoginOrigin(address: request.clientAddress, notes: request.notes)
        let success = try await audited(request, user: nil) { () async throws(AuthCoreError) in
            try await logins.finish(loginId: body.loginId, clientProof: m1, origin: origin, issuing: sessions)
        }
        guard let session = success.session else { throw AuthCoreError(.unsupported, "the login issued no session") }
        return SRPLoginWire.FinishAnswer(
            serverProof: Hex.encode(success.serverProof),
            username: success.username,
            sessionToken: session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
            expiresAt: session.expiresAt.iso8601,
            deviceToken: success.deviceToken
        )
    }

    private func revokeSession(
        username: String,
        everywhere: Bool,
        _ request: HTTPServerRequest
    ) async throws -> AppServerWire.RevokeAnswer {
        if everywhere {
            try await sessions.revokeAll(for: username)
        } else if let token = request.bearerToken {
            try await sessions.revoke(token)
        }
        return AppServerWire.RevokeAnswer(revoked: everywhere ? "all" : "session")
    }

    /// The user of the request's session.
    func authenticatedUser(_ request: HTTPServerRequest) async throws -> String {
        guard let token = request.bearerToken else {
            throw HTTPRefusal(
                status: 401,
                code: "Unauthorized",
                message: "an Authorization: Bearer session token is required"
            )
        }
        do {
            let username = try await sessions.username(for: token)
            request.notes.user = username
            return username
        } catch {
            guard error.code == .notPermitted else { throw error }
            throw HTTPRefusal(status: 401, code: "Unauthorized", message: error.reason)
        }
    }

    /// A login step: its `notPermitted` is a lockout (429). A lockout and a wrong proof get an
    /// audit line naming `user` (or the user the step recorded in the request's notes).
    func audited<T>(
        _ request: HTTPServerRequest,
        user: String?,
        _ step: () async throws(AuthCoreError) -> T
    ) async throws -> T {
        do { return try await step() } catch {
            let event: JSONLineLog.AuditEvent? =
                error.code == .notPermitted ? .lockout : error.code == .proofMismatch ? .loginFailed : nil
            if let event {
                auditLog?.audit(
                    event,
                    user: user ?? request.notes.user,
                    peer: request.clientAddress,
                    requestId: request.requestId
                )
            }
            guard error.code == .notPermitted else { throw error }
            throw HTTPRefusal(status: 429, code: "TooManyFailures", message: error.reason)
        }
    }

    /// A hexadecimal member of a request, at most 2048 bytes.
    static func hex(_ text: String, _ name: String) throws(HTTPRefusal) -> [UInt8] {
        guard text.utf8.count <= 4096, let bytes = try? Hex.decode(text) else {
            throw .malformed("\(name) must be hexadecimal (at most 2048 bytes)")
        }
        return bytes
    }

    /// `distribute-token.json`'s refusals, in the OSS sample's shape:
    /// `{"StatusCode":…,"ErrorCode":…,"ErrorMessage":…}`.
    static func distributeTokenRefusal(_ refusal: HTTPRefusal) -> HTTPResponse {
        var answer = JSONAnswer.response(
            DistributeToken.error(status: refusal.status, code: refusal.code, message: refusal.message),
            status: refusal.status
        )
        answer.headers += refusal.headers
        return answer
    }

    /// The answer for an error of the services: the client's mistakes are 4xx, failures behind
    /// the server 502, anything else 500.
    static func refusal(for error: AuthCoreError) -> HTTPRefusal {
        switch error.code {
        case .invalidHex, .invalidBase64, .invalidLength, .invalidParameter, .invalidGroup, .unsafePublicValue,
            .malformedInput,
            .malformedRequest, .inputTooLarge:
            return HTTPRefusal(status: 400, code: "MalformedRequest", message: error.reason)
        case .expired, .signatureMismatch:
            // A state sealed under another server secret does not open: to the client, a login id that is not ours.
            return HTTPRefusal(
                status: 400,
                code: "LoginExpired",
                message: "login id is unknown, expired or already used"
            )
        case .proofMismatch:
            return HTTPRefusal(
                status: 401,
                code: "ProofMismatch",
                message: "the password is wrong or the user is unknown"
            )
        case .notPermitted: return HTTPRefusal(status: 403, code: "NotPermitted", message: error.reason)
        case .serviceError, .transportFailure, .malformedResponse, .timedOut, .credentialsUnavailable, .redirectRefused:
            return HTTPRefusal(status: 502, code: "UpstreamFailure", message: "a service behind the server failed")
        default: return HTTPRefusal(status: 500, code: "InternalError", message: "the request failed")
        }
    }
}

/// `GET /readyz`'s answer, kept for a second after each probe ends, and one probe at a time (the
/// others wait for it and share its answer): a flood of probes sends a store that is slow or gone
/// one `PING` at a time, and the failure log gets a line per probe, not per request.
final class ReadinessCache: Sendable {
    private struct State {
        var last: (at: UInt64, ready: Bool)?
        var probe: Task<Bool, Never>?
    }

    private let state = Locked(State())

    func check(
        _ probe: @escaping @Sendable () async throws(AuthCoreError) -> Void,
        failureLog: (@Sendable (String) -> Void)?
    ) async -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let running: Task<Bool, Never>? = state.withLock { state in
            if let last = state.last, now &- last.at < 1_000_000_000 { return nil }
            if let probe = state.probe { return probe }
            let task = Task { [state = self.state] in
                var ready = true
                do throws(AuthCoreError) { try await probe() } catch {
                    ready = false
                    failureLog?("GET /readyz: \(error.code): \(error.reason)")
                }
                state.withLock { state in
                    state.last = (DispatchTime.now().uptimeNanoseconds, ready)
                    state.probe = nil
                }
                return ready
            }
            state.probe = task
            return task
        }
        guard let running else { return state.withLock { $0.last?.ready ?? false } }
        return await running.value
    }
}
