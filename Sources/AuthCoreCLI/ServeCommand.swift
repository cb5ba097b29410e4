import AuthCore
import AuthCoreClients
import AuthCoreServer
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `authcore serve --config FILE`: the reference app server (AuthCoreServer's `AppServer` on
/// libmicrohttpd) until SIGTERM or SIGINT.
enum ServeCommand {
    static let help = """
        OVERVIEW: The reference app server: SRP-6a login, app sessions, and for a logged-in user
        distribute-token.json (Alibaba STS AssumeRole), OSS self-signing and Cognito developer identities.

        USAGE: authcore serve --config FILE
               authcore serve --check-config FILE

        OPTIONS:
          --config FILE       The JSON configuration (README, "The app server"): listen, store, srp,
                              sessionLifetimeSeconds, accessLog, distributeToken, ossSigning, developerIdentity.
          --check-config FILE Check the configuration (and the files it names) without starting:
                              prints {"valid":true,...} and exits 0, or exits 2 with the reason.
          -h, --help          Show this help.

        ENDPOINTS: POST /srp/begin, POST /srp/finish, GET /distribute-token.json, POST /oss/sign,
        POST /cognito/developer-identity, POST /session/revoke (the last four with Authorization:
        Bearer <sessionToken>); GET /healthz (alive) and GET /readyz (503 while the store does not answer).

        ENVIRONMENT: AUTHCORE_LISTEN_HOST and AUTHCORE_LISTEN_PORT replace listen.host and listen.port.

        SECRETS (environment only; each is removed from the environment once read):
          AUTHCORE_SERVER_SECRET      at least 32 bytes, the same on every instance (required)
          AUTHCORE_REDIS_PASSWORD     Redis AUTH, when the store is Redis and needs one
          AUTHCORE_REDIS_SENTINEL_PASSWORD  the sentinels' AUTH, when they need one
          ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET   for distributeToken
          OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET [, OSS_SECURITY_TOKEN] for ossSigning
          AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY [, AWS_SESSION_TOKEN]  for developerIdentity

        When listening, prints one line {"port":N,"url":"http://HOST:N"} on stdout; then one JSON line
        per request (the access log: time, method, path, status, durationMs, peer, requestId, user; off
        with "accessLog": false) and an audit line per failed login and lockout. Every answer carries
        X-Request-Id (the client's when it sent a usable one). Plain http is served only on a loopback
        address (127.0.0.0/8, ::1); any other ("::" is dual stack) needs listen.certificateFile and
        privateKeyFile. Failures of the services behind it (Redis, STS, Cognito) are answered 502 with a
        fixed message; their reasons go to stderr, one line each. SIGTERM or SIGINT (caught from the
        start) drains it: no new connections, requests in flight finish for up to
        listen.drainTimeoutSeconds (5), the rest are answered 503; exit 0. A second signal ends it at once (exit 1).
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        // First: a SIGTERM from now on is kept, whenever it comes.
        try TerminationSignals.install()
        let parsed = try parseArguments(
            arguments,
            specs: [
                OptionSpec(names: ["--config"], kind: .value), OptionSpec(names: ["--check-config"], kind: .value),
            ],
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        if let file = parsed.value("--check-config") {
            guard parsed.value("--config") == nil else { throw UsageError("give --config or --check-config, not both") }
            return try checkConfiguration(file)
        }
        let configuration = try loadConfiguration(try parsed.required("--config"))
        guard let serverSecret = takeSecretEnvironment("AUTHCORE_SERVER_SECRET") else {
            throw UsageError(
                "AUTHCORE_SERVER_SECRET must be set in the environment (at least 32 bytes, the same on every instance)"
            )
        }
        var secrets = AppServerSecrets(serverSecret: serverSecret)
        secrets.redisPassword = takeSecretEnvironment("AUTHCORE_REDIS_PASSWORD")
        secrets.redisSentinelPassword = takeSecretEnvironment("AUTHCORE_REDIS_SENTINEL_PASSWORD")
        if configuration.distributeToken != nil {
            secrets.stsCredentials = try credentialsFromEnvironment(
                id: "ALIBABA_CLOUD_ACCESS_KEY_ID",
                secret: "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
                token: "ALIBABA_CLOUD_SECURITY_TOKEN"
            )
        }
        if configuration.ossSigning != nil {
            secrets.ossCredentials = try credentialsFromEnvironment(
                id: "OSS_ACCESS_KEY_ID",
                secret: "OSS_ACCESS_KEY_SECRET",
                token: "OSS_SECURITY_TOKEN"
            )
        }
        if configuration.developerIdentity != nil {
            secrets.developerCredentials = try credentialsFromEnvironment(
                id: "AWS_ACCESS_KEY_ID",
                secret: "AWS_SECRET_ACCESS_KEY",
                token: "AWS_SESSION_TOKEN"
            )
        }
        // Held: nothing reaches stdout before the readiness line.
        let log = JSONLineLog(held: true)
        // Failure reasons on stderr, queued like the access lines: a stalled stderr must not block
        // the MHD thread that answers a 5xx.
        let failures = JSONLineLog(descriptor: 2)
        let server: HTTPServer
        do {
            let (listen, app) = try configuration.makeServer(
                secrets: secrets,
                failureLog: { failures.text("serve: \($0)") },
                auditLog: log
            )
            server = try HTTPServer(
                configuration: listen,
                admission: app.admission,
                requestLog: configuration.accessLog ? log.access : nil
            ) { request in
                await app.handle(request)
            }
        } catch {
            if error.code == .invalidParameter || error.code == .malformedInput || error.code == .credentialsUnavailable
            {
                throw UsageError(error.reason)
            }
            throw CommandFailure(error.reason)
        }
        log.announce(Array(try jsonText(["port": .integer(server.port), "url": .string(server.url)]).utf8))
        await TerminationSignals.next()
        TerminationSignals.exitOnNext()
        await server.stop()
        log.flush()
        failures.flush()
        return 0
    }

    /// The configuration in `file`, with the listen address from the environment when set
    /// (`AUTHCORE_LISTEN_HOST`, `AUTHCORE_LISTEN_PORT`); every problem is a usage error.
    static func loadConfiguration(_ file: String) throws -> AppServerConfiguration {
        var configuration: AppServerConfiguration
        do { configuration = try AppServerConfiguration(contentsOfFile: file) } catch {
            throw UsageError("--config \(error.reason)")
        }
        if let host = environment("AUTHCORE_LISTEN_HOST") { configuration.listen.host = host }
        if let text = environment("AUTHCORE_LISTEN_PORT") {
            guard text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text),
                port <= 65_535
            else {
                throw UsageError("AUTHCORE_LISTEN_PORT must be a port number (0...65535)")
            }
            configuration.listen.port = port
        }
        return configuration
    }

    /// `--check-config FILE`: the file read and checked as `serve` would (its verifier table and TLS
    /// files loaded too, the environment's listen overrides applied), nothing started and no secret
    /// needed. Prints one JSON line and exits 0, or exits 2 with the reason.
    static func checkConfiguration(_ file: String) throws -> Int32 {
        let configuration = try loadConfiguration(file)
        do {
            try configuration.check()
        } catch {
            throw UsageError("--check-config \(error.reason)")
        }
        printOut(
            try jsonText([
                "valid": .bool(true), "listen": .string(configuration.listenDescription),
                "store": .string(configuration.storeDescription),
            ])
        )
        return 0
    }
}
