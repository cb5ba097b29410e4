public import AuthCore
public import AuthCoreClients

/// What the reference server needs that must not be in its configuration file (`authcore serve`
/// reads them from the environment).
public struct AppServerSecrets: Sendable {
    /// The secret every instance shares: it keys the sealed login states and the unknown users'
    /// decoys (at least 32 bytes).
    public var serverSecret: SecureBytes
    /// Redis's `AUTH` password.
    public var redisPassword: SecureBytes?
    /// The Redis sentinels' `AUTH` password.
    public var redisSentinelPassword: SecureBytes?
    /// The long-term Alibaba Cloud key that calls STS `AssumeRole` (for `distribute-token.json`).
    public var stsCredentials: Credentials?
    /// The OSS key `/oss/sign` signs with.
    public var ossCredentials: Credentials?
    /// The AWS credentials that sign `GetOpenIdTokenForDeveloperIdentity`.
    public var developerCredentials: Credentials?

    /// Secrets with only the server secret.
    public init(serverSecret: SecureBytes) { self.serverSecret = serverSecret }
}

extension AppServerConfiguration {
    /// The HTTP server's configuration and the app server, built from the files and `secrets`;
    /// `failureLog` gets the reasons of failures behind the server, `auditLog` a line per failed
    /// login and lockout.
    ///
    /// - Throws: `AuthCoreError` `.malformedInput` for a file that cannot be read,
    ///   `.credentialsUnavailable` naming the secret an enabled endpoint lacks, and the components'
    ///   `.invalidParameter` errors.
    public func makeServer(
        secrets: AppServerSecrets,
        transport: any HTTPTransport = HTTP1Transport(),
        failureLog: (@Sendable (String) -> Void)? = nil,
        auditLog: JSONLineLog? = nil
    ) throws(AuthCoreError) -> (HTTPServer.Configuration, AppServer) {
        var listen = self.listen
        if let certificateFile, let privateKeyFile {
            listen.tls = try HTTPServer.TLSIdentity(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        }
        let store: any HandshakeStore
        if var redis {
            redis.password = secrets.redisPassword
            redis.sentinelPassword = secrets.redisSentinelPassword
            guard redis.username == nil || redis.password != nil else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "store.redis.username needs its password in AUTHCORE_REDIS_PASSWORD"
                )
            }
            guard redis.sentinel?.username == nil || redis.sentinelPassword != nil else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "store.redis.sentinel.username needs its password in AUTHCORE_REDIS_SENTINEL_PASSWORD"
                )
            }
            store = RedisHandshakeStore(configuration: redis)
        } else {
            store = InMemoryHandshakeStore()
        }
        let keys = try ServerKeys(serverSecret: secrets.serverSecret)
        let logins = SRPLoginService(
            configuration: srp,
            policy: policy,
            verifiers: try StaticVerifierStore(contentsOfFile: verifiersFile, configuration: srp),
            handshakes: store,
            keys: keys
        )
        let sessions = try AppSessions(store: store, keys: keys, lifetime: sessionLifetime)

        var vendor: DistributeTokenVendor?
        if let distributeToken {
            guard let credentials = secrets.stsCredentials else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "distributeToken needs the Alibaba Cloud key that calls AssumeRole"
                )
            }
            let client = try AliyunSTSClient(
                region: distributeToken.region,
                endpoint: distributeToken.endpoint,
                transport: transport,
                signatureStyle: distributeToken.style
            )
            vendor = try DistributeTokenVendor(client: client, role: distributeToken.role, credentials: credentials)
        }
        var authority: PerUserOSSSigning?
        if let ossSigning {
            guard let credentials = secrets.ossCredentials else {
                throw AuthCoreError(.credentialsUnavailable, "ossSigning needs the OSS key to sign with")
            }
            authority = try PerUserOSSSigning(
                credentials: credentials,
                template: ossSigning.template,
                sharedAcrossUsers: ossSigning.sharedAcrossUsers
            )
        }
        var developer: DeveloperIdentityVendor?
        if let developerIdentity {
            guard let credentials = secrets.developerCredentials else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "developerIdentity needs the AWS credentials that sign GetOpenIdTokenForDeveloperIdentity"
                )
            }
            let client = try CognitoIdentityClient(
                region: developerIdentity.region,
                endpoint: developerIdentity.endpoint,
                sender: SignedRequestSender(transport: transport)
            )
            developer = try DeveloperIdentityVendor(
                client: client,
                identityPoolId: developerIdentity.identityPoolId,
                providerName: developerIdentity.providerName,
                tokenDuration: developerIdentity.tokenDuration,
                credentials: credentials,
                store: store,
                keys: keys
            )
        }
        return (
            listen,
            AppServer(
                logins: logins,
                sessions: sessions,
                tokenVendor: vendor,
                ossSigning: authority,
                developerIdentity: developer,
                rateLimiter: RateLimiter(limits: rateLimits),
                failureLog: failureLog,
                auditLog: auditLog
            )
        )
    }
}

extension AppServerConfiguration {
    /// Checks what ``makeServer(secrets:transport:failureLog:auditLog:)`` would read, without the
    /// secrets and without listening: the listen address (and plain http only on loopback), the
    /// TLS files and the verifier table (`authcore serve --check-config`).
    ///
    /// - Throws: `AuthCoreError` `.invalidParameter` for the address, `.malformedInput` for a file.
    public func check() throws(AuthCoreError) {
        guard let port = UInt16(exactly: listen.port), let address = ListeningAddress(host: listen.host, port: port)
        else {
            throw AuthCoreError(.invalidParameter, "listen.host '\(listen.host)' is not an IPv4 or IPv6 address")
        }
        if let certificateFile, let privateKeyFile {
            _ = try HTTPServer.TLSIdentity(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        } else if !address.isLoopback {
            throw AuthCoreError(
                .invalidParameter,
                "plain http is only served on a loopback address; give a certificate and key for \(listen.host)"
            )
        }
        _ = try StaticVerifierStore(contentsOfFile: verifiersFile, configuration: srp)
    }

    /// `host:port` (an IPv6 address in brackets).
    public var listenDescription: String { ListeningAddress.authority(host: listen.host, port: listen.port) }

    /// `"memory"`, `"redis"` or `"redis-sentinel"`.
    public var storeDescription: String {
        guard let redis else { return "memory" }
        return redis.sentinel == nil ? "redis" : "redis-sentinel"
    }
}
