public import AuthCore
public import AuthCoreClients

/// The reference server's configuration file (`authcore serve --config FILE`): JSON, every secret
/// left out (they come from the environment as ``AppServerSecrets``). Unknown keys are refused, so
/// a misspelt option is an error, not a default.
///
/// ```json
/// {
///   "listen": {"host": "127.0.0.1", "port": 8080, "threads": 2, "maximumBodyBytes": 65536,
///              "certificateFile": "server.pem", "privateKeyFile": "server.key",
///              "requestTimeoutSeconds": 10, "idleTimeoutSeconds": 30,
///              "maximumConnections": 512, "maximumConnectionsPerAddress": 32, "drainTimeoutSeconds": 5},
///   "store": {"redis": {"host": "127.0.0.1", "port": 6379, "timeoutMilliseconds": 1000,
///                       "username": "authcore", "database": 0, "poolSize": 4}},
///   (or, through Redis Sentinel: "store": {"redis": {"sentinel": {"masterName": "authcore",
///        "addresses": [{"host": "10.0.0.5", "port": 26379}, …]}, …}})
///   "srp": {"group": 3072, "hash": "sha256", "verifiersFile": "users.json",
///           "handshakeLifetimeSeconds": 60, "maximumFailures": 5, "maximumFailuresPerUser": 20,
///           "failureWindowSeconds": 900, "deviceTokenLifetimeSeconds": 2592000},
///   "rateLimits": {"perAddress": {"requestsPerSecond": 5, "burst": 20},
///                  "perNetwork": {"requestsPerSecond": 50, "burst": 200, "ipv4PrefixLength": 24, "ipv6PrefixLength": 48}},
///   "sessionLifetimeSeconds": 3600, "accessLog": true,
///   "distributeToken": {"roleArn": "acs:ram::1234:role/app", "durationSeconds": 3600, "endpoint": "https://sts.aliyuncs.com/",
///                       "policy": "{… \"acs:oss:*:*:photos/users/${username}/*\" …}"},
///   "ossSigning": {"buckets": ["photos"], "keyPrefixes": ["users/${username}/"], "methods": ["GET", "PUT"]},
///   "developerIdentity": {"region": "us-east-1", "identityPoolId": "us-east-1:…", "providerName": "login.example.app",
///                         "tokenDuration": 900}
/// }
/// ```
///
/// Only `srp` is required. Without `store` the logins and sessions stay in this process; without
/// `certificateFile`/`privateKeyFile` the server listens only on loopback. Relative paths are read
/// from the configuration file's directory. `distributeToken` also takes `externalId`, `region`,
/// `signatureStyle` (`rpc` or `acs3`) and `sharedAcrossUsers`; `developerIdentity` takes
/// `endpoint`. `ossSigning` has the fields of `authcore oss sign-string`'s policy file and
/// `sharedAcrossUsers`. `${username}` in `ossSigning.buckets`/`keyPrefixes` and in
/// `distributeToken.policy` is the session's user (``PerUserPolicy``); a section that would give
/// every user the same access is refused unless it says `"sharedAcrossUsers": true`.
/// `rateLimits.perAddress` or `perNetwork` set to `null` turns that limit off.
public struct AppServerConfiguration: Sendable {
    /// Where to listen.
    public var listen: HTTPServer.Configuration
    /// The TLS files, when given.
    public var certificateFile: String?
    /// The private key's file (mode 0600).
    public var privateKeyFile: String?
    /// Redis, or nil for the in-memory store.
    public var redis: RedisHandshakeStore.Configuration?
    /// The SRP parameters.
    public var srp: SRPConfiguration
    /// The login limits.
    public var policy: SRPLoginPolicy
    /// The rate limits on `/srp/*`.
    public var rateLimits = AddressRateLimits()
    /// The verifier table (`{"users": {name: {"salt_hex", "verifier_hex"}}}`).
    public var verifiersFile: String
    /// How long a session token lasts.
    public var sessionLifetime: Duration
    /// Whether each request gets an access line on standard output (`"accessLog"`, default true).
    public var accessLog = true
    /// `distribute-token.json`'s role and STS endpoint.
    public var distributeToken:
        (role: DistributeTokenVendor.Role, region: String?, endpoint: String?, style: AliyunSTSClient.SignatureStyle)?
    /// `/oss/sign`'s policy template, and whether it may be the same for every user.
    public var ossSigning: (template: OSSSigningPolicy, sharedAcrossUsers: Bool)?
    /// `/cognito/developer-identity`'s pool.
    public var developerIdentity:
        (region: String, identityPoolId: String, providerName: String, tokenDuration: Int, endpoint: String?)?

    /// The configuration in `path` (at most 1 MiB).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming the file and the field.
    public init(contentsOfFile path: String) throws(AuthCoreError) {
        let directory = path.cutOnce(atLast: UInt8(ascii: "/")).map { $0.before.isEmpty ? "/" : $0.before } ?? "."
        try self.init(
            json: try ConfigurationFile.read(path, limit: 1 << 20, what: "configuration file"),
            source: path,
            directory: directory
        )
    }

    /// The configuration in `json`; relative paths are taken from `directory`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming `source` and the field.
    public init(json: [UInt8], source: String = "configuration", directory: String = ".") throws(AuthCoreError) {
        let root: JSONObject
        do { root = try JSONObject(parsing: json, context: source) } catch {
            throw AuthCoreError(.malformedInput, "\(source): not a JSON object")
        }
        let reader = FieldReader(source: source, directory: directory)
        try reader.allow(
            root,
            [
                "listen", "store", "srp", "rateLimits", "sessionLifetimeSeconds", "accessLog", "distributeToken",
                "ossSigning", "developerIdentity",
            ],
            at: ""
        )

        listen = HTTPServer.Configuration()
        if let object = try reader.object(root, "listen") {
            try reader.allow(
                object,
                [
                    "host", "port", "threads", "maximumBodyBytes", "certificateFile", "privateKeyFile",
                    "requestTimeoutSeconds", "idleTimeoutSeconds",
                    "maximumConnections", "maximumConnectionsPerAddress", "drainTimeoutSeconds",
                ],
                at: "listen."
            )
            listen.host = try reader.string(object, "host", at: "listen.") ?? listen.host
            listen.port = try reader.integer(object, "port", 0...65_535, at: "listen.") ?? listen.port
            listen.threads = try reader.integer(object, "threads", 1...256, at: "listen.") ?? listen.threads
            listen.maximumBodyBytes =
                try reader.integer(object, "maximumBodyBytes", 1024...(16 << 20), at: "listen.")
                ?? listen.maximumBodyBytes
            if let seconds = try reader.integer(object, "requestTimeoutSeconds", 1...600, at: "listen.") {
                listen.requestTimeout = .seconds(seconds)
            }
            if let seconds = try reader.integer(object, "idleTimeoutSeconds", 1...3600, at: "listen.") {
                listen.idleTimeout = .seconds(seconds)
            }
            if let seconds = try reader.integer(object, "drainTimeoutSeconds", 0...3600, at: "listen.") {
                listen.drainTimeout = .seconds(seconds)
            }
            listen.maximumConnections =
                try reader.integer(object, "maximumConnections", 1...65_536, at: "listen.") ?? listen.maximumConnections
            listen.maximumConnectionsPerAddress =
                try reader.integer(object, "maximumConnectionsPerAddress", 1...65_536, at: "listen.")
                ?? listen.maximumConnectionsPerAddress
            certificateFile = try reader.path(object, "certificateFile", at: "listen.")
            privateKeyFile = try reader.path(object, "privateKeyFile", at: "listen.")
            guard (certificateFile == nil) == (privateKeyFile == nil) else {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): listen.certificateFile and listen.privateKeyFile go together"
                )
            }
        }

        if let store = try reader.object(root, "store") {
            try reader.allow(store, ["redis"], at: "store.")
            if let object = try reader.object(store, "redis") {
                let at = "store.redis."
                try reader.allow(
                    object,
                    [
                        "host", "port", "sentinel", "timeoutMilliseconds", "username", "database", "poolSize",
                        "replicasToAcknowledge",
                    ],
                    at: at
                )
                var redis = RedisHandshakeStore.Configuration()
                redis.host = try reader.string(object, "host", at: at) ?? redis.host
                redis.port = try reader.integer(object, "port", 1...65_535, at: at) ?? redis.port
                if let milliseconds = try reader.integer(object, "timeoutMilliseconds", 1...60_000, at: at) {
                    redis.timeout = .milliseconds(milliseconds)
                }
                redis.username = try reader.string(object, "username", at: at)
                guard redis.username?.isEmpty != true else {
                    throw AuthCoreError(.malformedInput, "\(source): store.redis.username is empty")
                }
                redis.replicasToAcknowledge = try reader.integer(object, "replicasToAcknowledge", 0...16, at: at) ?? 0
                redis.database = try reader.integer(object, "database", 0...1_000_000, at: at) ?? redis.database
                redis.poolSize = try reader.integer(object, "poolSize", 1...64, at: at) ?? redis.poolSize
                if let sentinel = try reader.object(object, "sentinel") {
                    guard !object.has("host"), !object.has("port") else {
                        throw AuthCoreError(
                            .malformedInput,
                            "\(source): store.redis.sentinel finds the master: leave out store.redis.host and port"
                        )
                    }
                    redis.sentinel = try reader.sentinel(sentinel)
                }
                self.redis = redis
            }
        }

        guard let srpObject = try reader.object(root, "srp") else {
            throw AuthCoreError(.malformedInput, "\(source): srp is required")
        }
        try reader.allow(
            srpObject,
            [
                "group", "hash", "verifiersFile", "handshakeLifetimeSeconds", "maximumFailures",
                "maximumFailuresPerUser", "failureWindowSeconds",
                "deviceTokenLifetimeSeconds",
            ],
            at: "srp."
        )
        let bits = try reader.integer(srpObject, "group", 1024...8192, at: "srp.") ?? 3072
        do {
            srp = try SRPConfiguration(
                group: try SRPGroup(named: String(bits)),
                hash: try HashAlgorithm(named: try reader.string(srpObject, "hash", at: "srp.") ?? "sha256")
            )
        } catch {
            throw AuthCoreError(.malformedInput, "\(source): srp.group or srp.hash: \(error.reason)")
        }
        guard let verifiers = try reader.path(srpObject, "verifiersFile", at: "srp.") else {
            throw AuthCoreError(.malformedInput, "\(source): srp.verifiersFile is required")
        }
        verifiersFile = verifiers
        policy = SRPLoginPolicy()
        if let seconds = try reader.integer(srpObject, "handshakeLifetimeSeconds", 1...3600, at: "srp.") {
            policy.handshakeLifetime = .seconds(seconds)
        }
        policy.maximumFailures =
            try reader.integer(srpObject, "maximumFailures", 1...1000, at: "srp.") ?? policy.maximumFailures
        policy.maximumFailuresPerUser =
            try reader.integer(srpObject, "maximumFailuresPerUser", 1...100_000, at: "srp.")
            ?? policy.maximumFailuresPerUser
        if let seconds = try reader.integer(srpObject, "failureWindowSeconds", 1...86_400, at: "srp.") {
            policy.failureWindow = .seconds(seconds)
        }
        if let seconds = try reader.integer(srpObject, "deviceTokenLifetimeSeconds", 60...(400 * 86_400), at: "srp.") {
            policy.deviceTokenLifetime = .seconds(seconds)
        }

        if let object = try reader.object(root, "rateLimits") { rateLimits = try reader.rateLimits(object) }

        sessionLifetime = .seconds(try reader.integer(root, "sessionLifetimeSeconds", 1...(7 * 86_400), at: "") ?? 3600)
        accessLog = try reader.bool(root, "accessLog", at: "") ?? true

        if let object = try reader.object(root, "distributeToken") {
            try reader.allow(
                object,
                [
                    "roleArn", "durationSeconds", "policy", "externalId", "region", "endpoint", "signatureStyle",
                    "sharedAcrossUsers",
                ],
                at: "distributeToken."
            )
            guard let arn = try reader.string(object, "roleArn", at: "distributeToken.") else {
                throw AuthCoreError(.malformedInput, "\(source): distributeToken.roleArn is required")
            }
            var role = DistributeTokenVendor.Role(roleArn: arn)
            role.durationSeconds =
                try reader.integer(
                    object,
                    "durationSeconds",
                    AliyunSTSClient.minimumDuration...AliyunSTSClient.maximumDuration,
                    at: "distributeToken."
                )
                ?? role.durationSeconds
            role.policy = try reader.string(object, "policy", at: "distributeToken.")
            role.externalId = try reader.string(object, "externalId", at: "distributeToken.")
            role.sharedAcrossUsers = try reader.bool(object, "sharedAcrossUsers", at: "distributeToken.") ?? false
            do { try role.checked() } catch { throw AuthCoreError(.malformedInput, "\(source): \(error.reason)") }
            let style: AliyunSTSClient.SignatureStyle
            switch try reader.string(object, "signatureStyle", at: "distributeToken.") {
            case nil, "rpc": style = .rpc
            case "acs3": style = .acs3
            default: throw AuthCoreError(.malformedInput, "\(source): distributeToken.signatureStyle is rpc or acs3")
            }
            distributeToken = (
                role, try reader.string(object, "region", at: "distributeToken."),
                try reader.string(object, "endpoint", at: "distributeToken."), style
            )
        }

        if let object = try reader.object(root, "ossSigning") {
            let template = try OSSSigningPolicyFile.policy(
                from: object,
                source: "\(source): ossSigning",
                alsoAllowing: ["sharedAcrossUsers"]
            )
            let shared = try reader.bool(object, "sharedAcrossUsers", at: "ossSigning.") ?? false
            do { try PerUserOSSSigning.check(template: template, sharedAcrossUsers: shared) } catch {
                throw AuthCoreError(.malformedInput, "\(source): \(error.reason)")
            }
            ossSigning = (template, shared)
        }

        if let object = try reader.object(root, "developerIdentity") {
            let at = "developerIdentity."
            try reader.allow(object, ["region", "identityPoolId", "providerName", "tokenDuration", "endpoint"], at: at)
            guard let region = try reader.string(object, "region", at: at),
                let pool = try reader.string(object, "identityPoolId", at: at),
                let provider = try reader.string(object, "providerName", at: at)
            else {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): developerIdentity needs region, identityPoolId and providerName"
                )
            }
            let duration =
                try reader.integer(object, "tokenDuration", CognitoIdentityClient.tokenDurationRange, at: at)
                ?? CognitoIdentityClient.defaultTokenDuration
            developerIdentity = (region, pool, provider, duration, try reader.string(object, "endpoint", at: at))
        }
    }
}

/// Reads fields with errors that name the file and the field's path, never its value.
struct FieldReader {
    let source: String
    let directory: String

    // bytes-lint: option names of the configuration file (fixed ASCII).
    func allow(_ object: JSONObject, _ keys: Set<String>, at path: String) throws(AuthCoreError) {
        if let unknown = object.keys.first(where: { !keys.contains($0) }) {
            throw AuthCoreError(
                .malformedInput,
                "\(source): unknown option \(path)\(unknown) (known: \(keys.sorted().joined(separator: ", ")))"
            )
        }
    }

    func object(_ object: JSONObject, _ key: String) throws(AuthCoreError) -> JSONObject? {
        do { return try object.optionalObject(key) } catch {
            throw AuthCoreError(.malformedInput, "\(source): \(key) must be an object")
        }
    }

    func string(_ object: JSONObject, _ key: String, at path: String) throws(AuthCoreError) -> String? {
        do { return try object.optionalString(key) } catch {
            throw AuthCoreError(.malformedInput, "\(source): \(path)\(key) must be a string")
        }
    }

    func integer(
        _ object: JSONObject,
        _ key: String,
        _ range: ClosedRange<Int>,
        at path: String
    ) throws(AuthCoreError) -> Int? {
        guard object.has(key) else { return nil }
        do { return Int(try object.integer(key, in: Int64(range.lowerBound)...Int64(range.upperBound))) } catch {
            throw AuthCoreError(
                .malformedInput,
                "\(source): \(path)\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound)"
            )
        }
    }

    func bool(_ object: JSONObject, _ key: String, at path: String) throws(AuthCoreError) -> Bool? {
        do { return try object.optionalBool(key) } catch {
            throw AuthCoreError(.malformedInput, "\(source): \(path)\(key) must be true or false")
        }
    }

    /// `rateLimits`: `perAddress` and `perNetwork`, each `{"requestsPerSecond": r, "burst": b}` (the
    /// network's also with its prefix lengths), absent for the default, `null` for none.
    func rateLimits(_ object: JSONObject) throws(AuthCoreError) -> AddressRateLimits {
        var limits = AddressRateLimits()
        try allow(object, ["perAddress", "perNetwork"], at: "rateLimits.")
        // bytes-lint: option names of the configuration file (fixed ASCII).
        func limit(
            _ key: String,
            _ fallback: RateLimit?,
            extra: Set<String>
        ) throws(AuthCoreError) -> (RateLimit?, JSONObject?) {
            guard object.keys.contains(key) else { return (fallback, nil) }
            guard object.has(key), let fields = try self.object(object, key) else { return (nil, nil) }  // null: off
            let at = "rateLimits.\(key)."
            try allow(fields, Set(["requestsPerSecond", "burst"]).union(extra), at: at)
            let rate =
                try integer(fields, "requestsPerSecond", 1...1_000_000, at: at).map(Double.init) ?? fallback?
                .requestsPerSecond ?? 1
            let burst = try integer(fields, "burst", 1...1_000_000, at: at).map(Double.init) ?? fallback?.burst ?? 1
            return (RateLimit(requestsPerSecond: rate, burst: burst), fields)
        }
        limits.perAddress = try limit("perAddress", limits.perAddress, extra: []).0
        let (network, fields) = try limit(
            "perNetwork",
            limits.perNetwork,
            extra: ["ipv4PrefixLength", "ipv6PrefixLength"]
        )
        limits.perNetwork = network
        if let fields {
            let at = "rateLimits.perNetwork."
            limits.ipv4NetworkPrefixLength =
                try integer(fields, "ipv4PrefixLength", 8...32, at: at) ?? limits.ipv4NetworkPrefixLength
            limits.ipv6NetworkPrefixLength =
                try integer(fields, "ipv6PrefixLength", 16...128, at: at) ?? limits.ipv6NetworkPrefixLength
        }
        return limits
    }

    /// `store.redis.sentinel`: `{"masterName": …, "addresses": [{"host": …, "port": N}, …]}`.
    func sentinel(_ object: JSONObject) throws(AuthCoreError) -> RedisHandshakeStore.Configuration.Sentinel {
        let at = "store.redis.sentinel."
        try allow(object, ["masterName", "addresses", "username"], at: at)
        guard let name = try string(object, "masterName", at: at), !name.isEmpty, name.utf8.count <= 256 else {
            throw AuthCoreError(.malformedInput, "\(source): \(at)masterName is required (1...256 bytes)")
        }
        let entries: [JSONObject]
        do { entries = try object.optionalObjectArray("addresses") } catch {
            throw AuthCoreError(
                .malformedInput,
                "\(source): \(at)addresses must be an array of {\"host\": …, \"port\": N}"
            )
        }
        guard (1...16).contains(entries.count) else {
            throw AuthCoreError(.malformedInput, "\(source): \(at)addresses needs 1...16 sentinels")
        }
        var addresses: [RedisHandshakeStore.Configuration.Address] = []
        for (index, entry) in entries.enumerated() {
            let here = "\(at)addresses[\(index)]."
            try allow(entry, ["host", "port"], at: here)
            guard let host = try string(entry, "host", at: here), !host.isEmpty,
                let port = try integer(entry, "port", 1...65_535, at: here)
            else {
                throw AuthCoreError(.malformedInput, "\(source): \(here)host and port are required")
            }
            addresses.append(.init(host: host, port: port))
        }
        let username = try string(object, "username", at: at)
        guard username?.isEmpty != true else {
            throw AuthCoreError(.malformedInput, "\(source): \(at)username is empty")
        }
        return .init(masterName: name, addresses: addresses, username: username)
    }

    func strings(_ object: JSONObject, _ key: String, at path: String) throws(AuthCoreError) -> [String]? {
        guard object.has(key) else { return nil }
        do { return try object.stringArray(key) } catch {
            throw AuthCoreError(.malformedInput, "\(source): \(path)\(key) must be an array of strings")
        }
    }

    func path(_ object: JSONObject, _ key: String, at path: String) throws(AuthCoreError) -> String? {
        guard let value = try string(object, key, at: path) else { return nil }
        guard !value.isEmpty, !value.utf8.contains(0) else {
            throw AuthCoreError(.malformedInput, "\(source): \(path)\(key) is empty")
        }
        return value.hasPrefix("/") ? value : "\(directory)/\(value)"
    }
}
