public import AuthCore
public import AuthCoreClients
import AuthCoreHTTP

/// The loopback redirect of a native app's OAuth sign-in (RFC 8252 §7.3): an HTTP listener on
/// `127.0.0.1` that takes exactly one redirect to its path, checks its `state` against the sign-in's
/// (`CognitoAuthorizationRequest.authorizationCode(fromRedirectParameters:)` of AuthCoreClients), answers the browser
/// with a short page, and hands the authorization code to the app.
///
/// ```swift
/// let listener = try LoopbackRedirectListener(port: 0)   // the system picks the port
/// // configure the hosted UI with listener.redirectURI, then:
/// let request = try hostedUI.authorizationRequest()
/// let code = try await listener.authorizationCode(for: request, timeout: .seconds(300)) { open(request.url) }
/// ```
///
/// Only a redirect that carries the sign-in's `state` ends the wait (with its code, or with the
/// OAuth error it carries): one with a wrong or missing `state` is answered `400` and the listener
/// waits on, so a web page or a local process that guesses the port cannot end the sign-in (nor
/// inject a code). Other paths are answered `404`; every answer says `Cache-Control: no-store` and
/// `Referrer-Policy: no-referrer` (the URL held a code). It is served by ``HTTPServer`` on
/// `127.0.0.1` only, so no other machine can reach it.
public final class LoopbackRedirectListener: Sendable {
    /// `http://<host>:<port><path>`: register it as a callback URL of the app client.
    public let redirectURI: String
    /// The port listened on.
    public let port: Int
    /// The redirect's path.
    public let path: String
    private let server: HTTPServer
    private let state: Locked<Waiting>

    private struct Waiting {
        var request: CognitoAuthorizationRequest?
        var continuation: CheckedContinuation<Result<String, AuthCoreError>, Never>?
        var outcome: Result<String, AuthCoreError>?
    }

    /// Listens on `127.0.0.1:port` (0: the system chooses).
    ///
    /// - Parameters:
    ///   - port: the port (Cognito matches callback URLs exactly, port included: give the registered one).
    ///   - path: the redirect's path, starting with `/`.
    ///   - host: the host the redirect URI names: `127.0.0.1` (RFC 8252 §8.3's advice) or `localhost`
    ///     (Cognito accepts plain-http callback URLs only for `localhost`); either way the listener
    ///     is on `127.0.0.1`, where a browser that tries `::1` first falls back.
    /// - Throws: `AuthCoreError.Code.invalidParameter` for another host, a path that does not start
    ///   with `/` or holds a `?`, `#`, space or control character; the server's errors (the port is in use).
    public init(port: Int = 0, path: String = "/callback", host: String = "127.0.0.1") throws(AuthCoreError) {
        guard host == "127.0.0.1" || host == "localhost" else {
            throw AuthCoreError(.invalidParameter, "the redirect host is 127.0.0.1 or localhost")
        }
        guard path.utf8.first == UInt8(ascii: "/"),
            !path.utf8.contains(where: {
                $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            })
        else {
            throw AuthCoreError(
                .invalidParameter,
                "the redirect path must start with '/' and hold no '?', '#', space or control character"
            )
        }
        let state = Locked(Waiting())
        var configuration = HTTPServer.Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.threads = 1
        configuration.maximumConnections = 16
        configuration.maximumConnectionsPerAddress = 16
        configuration.maximumBodyBytes = 0
        configuration.handlerTimeout = .seconds(10)
        configuration.idleTimeout = .seconds(10)
        configuration.drainTimeout = .seconds(2)
        let server = try HTTPServer(configuration: configuration) { request in
            Self.answer(request, path: path, state: state)
        }
        self.server = server
        self.state = state
        self.port = server.port
        self.path = path
        self.redirectURI = "http://\(host):\(server.port)\(path)"
    }

    /// Waits for the redirect of `request` and returns its authorization code; the listener is
    /// stopped when it returns.
    ///
    /// - Parameters:
    ///   - request: the sign-in whose redirect is awaited (its `redirect_uri` must be ``redirectURI``).
    ///   - timeout: how long the user has to sign in.
    ///   - onListening: called once the listener waits for `request`: open the browser here.
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a request made for another redirect URI,
    ///   a second wait, or a redirect whose `state` is not the request's; the OAuth error the
    ///   redirect carries (`access_denied`, …); `AuthCoreError.Code.timedOut` when no redirect came
    ///   in time; `AuthCoreError.Code.cancelled` when the task was cancelled.
    public func authorizationCode(
        for request: CognitoAuthorizationRequest,
        timeout: Duration,
        onListening: @Sendable () -> Void = {}
    ) async throws(AuthCoreError) -> String {
        guard request.redirectURI == redirectURI else {
            await server.stop(grace: .zero)
            throw AuthCoreError(
                .invalidParameter,
                "the sign-in was made for \(request.redirectURI), not this listener's \(redirectURI)"
            )
        }
        let started = state.withLock { waiting -> Bool in
            guard waiting.request == nil, waiting.outcome == nil else { return false }
            waiting.request = request
            return true
        }
        guard started else {
            throw AuthCoreError(.invalidParameter, "this listener already waits for, or took, its one redirect")
        }
        onListening()
        let state = self.state
        let timer = Task {
            try? await Task.sleep(for: timeout)
            Self.finish(state, with: .failure(AuthCoreError(.timedOut, "no redirect arrived within \(timeout)")))
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { waiting -> Result<String, AuthCoreError>? in
                    if let outcome = waiting.outcome { return outcome }
                    waiting.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            Self.finish(state, with: .failure(AuthCoreError(.cancelled, "the sign-in was cancelled")))
        }
        timer.cancel()
        await server.stop(grace: .seconds(1))
        return try outcome.get()
    }

    /// Stops listening without waiting (a sign-in given up before its redirect).
    public func stop() async { await server.stop(grace: .zero) }

    /// Records the outcome once and resumes the waiter, if any.
    private static func finish(_ state: Locked<Waiting>, with outcome: Result<String, AuthCoreError>) {
        let continuation = state.withLock { waiting -> CheckedContinuation<Result<String, AuthCoreError>, Never>? in
            guard waiting.outcome == nil else { return nil }
            waiting.outcome = outcome
            waiting.request = nil  // the PKCE verifier is not kept past the wait
            defer { waiting.continuation = nil }
            return waiting.continuation
        }
        continuation?.resume(returning: outcome)
    }

    private static func answer(_ request: HTTPServerRequest, path: String, state: Locked<Waiting>) -> HTTPResponse {
        guard request.path == path else {
            return page(404, "Not found", "This address only takes the sign-in's redirect.")
        }
        guard request.method == "GET" else { return page(405, "Method not allowed", "The redirect is a GET.") }
        let taken = state.withLock { waiting -> (CognitoAuthorizationRequest?, Bool) in
            (waiting.request, waiting.outcome != nil)
        }
        if taken.1 { return page(410, "Sign-in over", "This sign-in has already finished; you can close this window.") }
        guard let signIn = taken.0 else { return page(503, "Not ready", "No sign-in is waiting yet.") }
        let outcome: Result<String, AuthCoreError>
        do { outcome = .success(try signIn.authorizationCode(fromRedirectParameters: request.queryParameters)) } catch {
            // Not this sign-in's redirect (no state, another state, a repeated one): refused, and
            // the wait goes on. Its own state with an error (access_denied) ends it.
            guard error.code == .serviceError else {
                return page(400, "Not this sign-in", "This redirect does not belong to the sign-in under way.")
            }
            outcome = .failure(error)
        }
        finish(state, with: outcome)
        switch outcome {
        case .success: return page(200, "Signed in", "You are signed in; you can close this window.")
        case .failure: return page(400, "Sign-in failed", "The sign-in did not complete; see the application.")
        }
    }

    private static func page(_ status: Int, _ title: String, _ text: String) -> HTTPResponse {
        let html =
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(title)</title></head><body><p>\(text)</p></body></html>\n"
        return HTTPResponse(
            status: status,
            headers: [
                HTTPHeader("Content-Type", "text/html; charset=utf-8"), HTTPHeader("Cache-Control", "no-store"),
                HTTPHeader("Referrer-Policy", "no-referrer"), HTTPHeader("Connection", "close"),
            ],
            body: Array(html.utf8)
        )
    }
}
