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

        OPTIONS:
          --config FILE     The JSON configuration (README, "The app server"): listen, store, srp,
                            sessionLifetimeSeconds, distributeToken, ossSigning, developerIdentity.
          -h, --help        Show this help.

        ENDPOINTS: POST /srp/begin, POST /srp/finish, GET /distribute-token.json, POST /oss/sign,
        POST /cognito/developer-identity (the last three with Authorization: Bearer <sessionToken>).

        SECRETS (environment only; each is removed from the environment once read):
          AUTHCORE_SERVER_SECRET      at least 32 bytes, the same on every instance (required)
          AUTHCORE_REDIS_PASSWORD     Redis AUTH, when the store is Redis and needs one
          ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET   for distributeToken
          OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET [, OSS_SECURITY_TOKEN] for ossSigning
          AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY [, AWS_SESSION_TOKEN]  for developerIdentity

        When listening, prints one line {"port":N,"url":"http://HOST:N"} on stdout. Plain http is
        served only on a loopback address; any other needs listen.certificateFile and privateKeyFile.
        Failures of the services behind it (Redis, STS, Cognito) are answered 502 with a fixed message;
        their reasons go to stderr, one line each. SIGTERM or SIGINT stops it (in-flight requests are
        cancelled, and answered 503 after 5 s), exit 0.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(arguments, specs: [OptionSpec(names: ["--config"], kind: .value)], help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let configuration: AppServerConfiguration
        do { configuration = try AppServerConfiguration(contentsOfFile: try parsed.required("--config")) } catch let error as AuthCoreError {
            throw UsageError("--config \(error.reason)")
        }
        guard let serverSecret = takeSecretEnvironment("AUTHCORE_SERVER_SECRET") else {
            throw UsageError("AUTHCORE_SERVER_SECRET must be set in the environment (at least 32 bytes, the same on every instance)")
        }
        var secrets = AppServerSecrets(serverSecret: serverSecret)
        secrets.redisPassword = takeSecretEnvironment("AUTHCORE_REDIS_PASSWORD")
        if configuration.distributeToken != nil {
            secrets.stsCredentials = try credentialsFromEnvironment(
                id: "ALIBABA_CLOUD_ACCESS_KEY_ID", secret: "ALIBABA_CLOUD_ACCESS_KEY_SECRET", token: "ALIBABA_CLOUD_SECURITY_TOKEN")
        }
        if configuration.ossSigning != nil {
            secrets.ossCredentials = try credentialsFromEnvironment(id: "OSS_ACCESS_KEY_ID", secret: "OSS_ACCESS_KEY_SECRET", token: "OSS_SECURITY_TOKEN")
        }
        if configuration.developerIdentity != nil {
            secrets.developerCredentials = try credentialsFromEnvironment(id: "AWS_ACCESS_KEY_ID", secret: "AWS_SECRET_ACCESS_KEY", token: "AWS_SESSION_TOKEN")
        }
        let server: HTTPServer
        do {
            let (listen, app) = try configuration.makeServer(secrets: secrets, failureLog: { printError("serve: \($0)") })
            server = try HTTPServer(configuration: listen, admission: app.admission) { request in await app.handle(request) }
        } catch {
            if error.code == .invalidParameter || error.code == .malformedInput || error.code == .credentialsUnavailable {
                throw UsageError(error.reason)
            }
            throw CommandFailure(error.reason)
        }
        printOut(try jsonText(["port": .integer(server.port), "url": .string(server.url)]))
        await waitForTermination()
        await server.stop()
        return 0
    }

    /// Returns at the first SIGTERM or SIGINT.
    static func waitForTermination() async {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "authcore.serve.signals")
        let sources = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Locked(false)
            for source in sources {
                source.setEventHandler {
                    let first = resumed.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume() }
                }
                source.resume()
            }
        }
        for source in sources { source.cancel() }
    }
}
