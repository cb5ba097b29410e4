public import AuthCore
import Foundation

/// Credentials the Alibaba Cloud chain resolved, with the name of their source.
public struct AlibabaCloudResolvedCredentials: Sendable {
    /// The credentials.
    public let credentials: Credentials
    /// The source, named as the `alibabacloud-credentials` SDK names its providers (without its
    /// `default/` prefix): `env`, `cli_profile/static_ak`, `cli_profile/static_sts`,
    /// `cli_profile/ram_role_arn/static_ak` (one `ram_role_arn/` per chained role),
    /// `cli_profile/ecs_ram_role`, `profile/static_ak`, `profile/ram_role_arn/static_ak`,
    /// `profile/ecs_ram_role`, `ecs_ram_role`, `credential_uri`.
    public let source: String
}

/// The Alibaba Cloud default credentials chain, resolved as the `alibabacloud-credentials` SDK
/// resolves it (its `Client()` with no configuration), so a backend finds the credentials the
/// Alibaba Cloud SDKs and CLI would:
///
/// 1. `ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET` (`ALIBABA_CLOUD_SECURITY_TOKEN`);
/// 2. the Alibaba Cloud CLI's `~/.aliyun/config.json`: the profile `ALIBABA_CLOUD_PROFILE` names,
///    else its `current` one, in mode `AK`, `StsToken`, `RamRoleArn` or `ChainableRamRoleArn` (STS
///    `AssumeRole` through ``AliyunSTSClient``: `ram_role_arn`, `ram_session_name`, `expired_seconds`,
///    `policy`, `external_id`, `sts_region`, `source_profile`) or `EcsRamRole` (`ram_role_name`);
///    off when `ALIBABA_CLOUD_CLI_PROFILE_DISABLED` is `true`;
/// 3. the INI credentials file (`ALIBABA_CLOUD_CREDENTIALS_FILE`, else
///    `~/.alibabacloud/credentials.ini`), section `ALIBABA_CLOUD_PROFILE` or `default`, `type` =
///    `access_key`, `ram_role_arn` or `ecs_ram_role`; values end at `#`;
/// 4. the ECS instance's RAM role from the metadata service (`http://100.100.100.200`, a session
///    token first; without one, version 1 unless `ALIBABA_CLOUD_IMDSV1_DISABLED` is `true`), the role
///    `ALIBABA_CLOUD_ECS_METADATA` names or the one the service lists; off when
///    `ALIBABA_CLOUD_ECS_METADATA_DISABLED` is `true`;
/// 5. `ALIBABA_CLOUD_CREDENTIALS_URI` (a JSON answer with `Code: Success`).
///
/// As in the SDK, a source that fails (a file that does not parse, a profile without its keys, an
/// STS refusal) does not stop the chain: the next is tried, and only when none gives credentials is
/// the error an `AuthCoreError.Code.credentialsUnavailable` that lists what each source said (a
/// service's refusal by its type and status, never its message). When `ALIBABA_CLOUD_OIDC_TOKEN_FILE`,
/// `ALIBABA_CLOUD_ROLE_ARN` and `ALIBABA_CLOUD_OIDC_PROVIDER_ARN` are set (the SDK's second source), the
/// chain stops with `AuthCoreError.Code.unsupported` rather than fall through to a broader role. The
/// metadata service is reached through `HTTP_PROXY` only when that proxy is on this machine (the SDK
/// uses any). Each resolution asks anew: wrap the chain in a ``RefreshingCredentialsProvider``. STS is `https://sts.<sts_region>.aliyuncs.com` (`sts-vpc.` with `enable_vpc` or
/// `ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED`), `ALIBABA_CLOUD_STS_REGION` when the profile names none, else
/// `https://sts.aliyuncs.com`; `stsEndpoint` replaces it (a private endpoint, or a test's stand-in).
/// Not supported: the `OIDC`, `CloudSSO`, `OAuth` and `External` modes and the `oidc_role_arn` and
/// `rsa_key_pair` types (each a failed source, as an unknown mode is).
public struct AlibabaCloudCredentialsChain: CredentialsProvider {
    /// The environment read.
    public let environment: ConfigurationEnvironment
    let transport: any HTTPTransport
    let metadataTransport: any HTTPTransport
    let stsEndpoint: String?
    /// Whether the chain ends with the instance's own RAM role and `ALIBABA_CLOUD_CREDENTIALS_URI`
    /// (steps 4 and 5). Off for a named profile: the profile's own `EcsRamRole` still asks the
    /// metadata service, but no other source stands in for the profile.
    public let usesInstanceSources: Bool
    let clock: any SigningClock
    /// The deepest chain of `source_profile`s followed.
    static let maximumChainDepth = 8

    /// A chain over `environment`.
    ///
    /// - Parameters:
    ///   - environment: the variables read (the process's by default).
    ///   - transport: for STS.
    ///   - metadataTransport: for the metadata service and the credentials URI (default: one-second
    ///     time-outs, the environment's proxies).
    ///   - stsEndpoint: the STS endpoint for every role (nil: the region's, as above).
    ///   - clock: the signing clock.
    ///   - usesInstanceSources: whether steps 4 and 5 run (``usesInstanceSources``).
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed proxy variable.
    public init(
        environment: ConfigurationEnvironment = .process,
        transport: any HTTPTransport = HTTP1Transport(),
        metadataTransport: (any HTTPTransport)? = nil,
        stsEndpoint: String? = nil,
        clock: any SigningClock = SystemClock(),
        usesInstanceSources: Bool = true
    ) throws(AuthCoreError) {
        self.environment = environment
        self.usesInstanceSources = usesInstanceSources
        self.transport = transport
        self.stsEndpoint = stsEndpoint
        self.clock = clock
        if let metadataTransport {
            self.metadataTransport = metadataTransport
        } else {
            // The SDK reaches the metadata service through the environment's HTTP proxy. Here only a
            // proxy on this machine is used (a sidecar, a test's stand-in): the metadata answer holds
            // the role's secret, which must not cross a network in clear text.
            var proxies = ProxyConfiguration.direct
            var proxyVariables: [String: String] = [:]
            for name in ["http_proxy", "HTTP_PROXY", "REQUEST_METHOD"] {
                if let value = environment[name] { proxyVariables[name] = value }
            }
            if let local = try ProxyConfiguration.fromEnvironment(proxyVariables).http,
                NetworkPolicy.isLoopback(host: local.host)
            {
                proxies.http = local
            }
            self.metadataTransport = try MetadataTransport.make(totalTimeout: .seconds(5), proxies: proxies)
        }
    }

    public func credentials() async throws(AuthCoreError) -> Credentials { try await resolve().credentials }

    /// Resolves the chain.
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable` listing each source's reason when none
    ///   has credentials.
    public func resolve() async throws(AuthCoreError) -> AlibabaCloudResolvedCredentials {
        var reasons: [String] = []
        func attempt(
            _ name: String,
            _ body: () async throws(AuthCoreError) -> AlibabaCloudResolvedCredentials?
        ) async throws(AuthCoreError)
            -> AlibabaCloudResolvedCredentials?
        {
            do {
                if let found = try await body() {
                    AuthCoreLog.log(
                        .info,
                        "authcore.credentials",
                        "Alibaba Cloud credentials resolved",
                        ["source": found.source]
                    )
                    return found
                }
            } catch {
                if error.code == .cancelled { throw error }
                reasons.append(
                    "\(name): \(error.code == .serviceError ? AuthCoreLog.serviceRefusal(error) : error.reason)"
                )
            }
            return nil
        }
        if let found = try await attempt("environment", environmentKeys) { return found }
        // The SDK's second source (ACK's per-pod roles): not supported here, so the chain stops rather
        // than fall through to a broader role (the node's ECS role).
        if environment["ALIBABA_CLOUD_OIDC_TOKEN_FILE"] != nil, environment["ALIBABA_CLOUD_ROLE_ARN"] != nil,
            environment["ALIBABA_CLOUD_OIDC_PROVIDER_ARN"] != nil
        {
            throw AuthCoreError(
                .unsupported,
                "ALIBABA_CLOUD_OIDC_* name an OIDC role, which AuthCore does not assume (AssumeRoleWithOIDC)"
            )
        }
        if let found = try await attempt("config.json", cliProfile) { return found }
        if let found = try await attempt("credentials file", iniProfile) { return found }
        guard usesInstanceSources else {
            throw AuthCoreError(
                .credentialsUnavailable,
                "no Alibaba Cloud credentials from the profile: \(reasons.joined(separator: "; "))"
            )
        }
        if !environment.isTrue("ALIBABA_CLOUD_ECS_METADATA_DISABLED") {
            if let found = try await attempt(
                "ECS metadata",
                { () async throws(AuthCoreError) in
                    AlibabaCloudResolvedCredentials(
                        credentials: try await ecsRole(named: environment["ALIBABA_CLOUD_ECS_METADATA"]),
                        source: "ecs_ram_role"
                    )
                }
            ) {
                return found
            }
        }
        if let uri = environment["ALIBABA_CLOUD_CREDENTIALS_URI"] {
            if let found = try await attempt(
                "credentials URI",
                { () async throws(AuthCoreError) in
                    AlibabaCloudResolvedCredentials(
                        credentials: try await credentialsURI(uri),
                        source: "credential_uri"
                    )
                }
            ) {
                return found
            }
        }
        throw AuthCoreError(
            .credentialsUnavailable,
            "no Alibaba Cloud credentials from any source: \(reasons.joined(separator: "; "))"
        )
    }

    // MARK: - Environment

    private func environmentKeys() throws(AuthCoreError) -> AlibabaCloudResolvedCredentials {
        guard let id = environment["ALIBABA_CLOUD_ACCESS_KEY_ID"] else {
            throw AuthCoreError(.credentialsUnavailable, "ALIBABA_CLOUD_ACCESS_KEY_ID is not set")
        }
        guard let secret = environment["ALIBABA_CLOUD_ACCESS_KEY_SECRET"] else {
            throw AuthCoreError(.credentialsUnavailable, "ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set")
        }
        return AlibabaCloudResolvedCredentials(
            credentials: try Credentials(
                accessKeyId: id,
                secretAccessKey: secret,
                sessionToken: environment["ALIBABA_CLOUD_SECURITY_TOKEN"]
            ),
            source: "env"
        )
    }

    private var home: String? { environment["HOME"] ?? ConfigurationEnvironment.passwordDatabaseHome() }

    // MARK: - ~/.aliyun/config.json

    private func cliProfile() async throws(AuthCoreError) -> AlibabaCloudResolvedCredentials? {
        if environment.isTrue("ALIBABA_CLOUD_CLI_PROFILE_DISABLED") {
            throw AuthCoreError(.credentialsUnavailable, "disabled by ALIBABA_CLOUD_CLI_PROFILE_DISABLED")
        }
        guard let home else { throw AuthCoreError(.credentialsUnavailable, "no home directory") }
        let path = home + "/.aliyun/config.json"
        guard let bytes = try BoundedFile.read(path, maximumBytes: AWSSharedConfiguration.maximumFileBytes) else {
            throw AuthCoreError(.credentialsUnavailable, "\(path) does not exist")
        }
        let document: JSONObject
        do { document = try JSONObject(parsing: bytes, context: path) } catch {
            throw AuthCoreError(.malformedInput, "\(path) is not a JSON object")
        }
        guard let name = environment["ALIBABA_CLOUD_PROFILE"] ?? (try? document.optionalString("current")) ?? nil,
            !name.isEmpty
        else {
            throw AuthCoreError(.malformedInput, "\(path): no profile named (ALIBABA_CLOUD_PROFILE or current)")
        }
        let profiles = (try? document.optionalObjectArray("profiles")) ?? []
        let (credentials, source) = try await cliCredentials(profile: name, in: profiles, path: path, depth: 0)
        return AlibabaCloudResolvedCredentials(credentials: credentials, source: "cli_profile/" + source)
    }

    /// One profile of config.json: its credentials and the source name below `cli_profile/`.
    private func cliCredentials(
        profile name: String,
        in profiles: [JSONObject],
        path: String,
        depth: Int
    ) async throws(AuthCoreError)
        -> (Credentials, String)
    {
        guard depth <= Self.maximumChainDepth else {
            throw AuthCoreError(
                .malformedInput,
                "\(path): source_profile chain deeper than \(Self.maximumChainDepth) (a cycle?)"
            )
        }
        guard let profile = profiles.first(where: { (try? $0.optionalString("name")) == .some(name) }) else {
            throw AuthCoreError(.malformedInput, "\(path): no profile '\(name)'")
        }
        func text(_ key: String) -> String? {
            guard let value = try? profile.optionalString(key), !value.isEmpty else { return nil }
            return value
        }
        // Missing keys fall back to the environment's, as in the SDK.
        func keys() throws(AuthCoreError) -> (String, String) {
            guard let id = text("access_key_id") ?? environment["ALIBABA_CLOUD_ACCESS_KEY_ID"] else {
                throw AuthCoreError(.malformedInput, "\(path): profile '\(name)' has no access_key_id")
            }
            guard let secret = text("access_key_secret") ?? environment["ALIBABA_CLOUD_ACCESS_KEY_SECRET"] else {
                throw AuthCoreError(.malformedInput, "\(path): profile '\(name)' has no access_key_secret")
            }
            return (id, secret)
        }
        let mode = text("mode") ?? "None"
        switch mode {
        case "AK":
            let (id, secret) = try keys()
            return (try Credentials(accessKeyId: id, secretAccessKey: secret), "static_ak")
        case "StsToken":
            let (id, secret) = try keys()
            guard let token = text("sts_token") ?? environment["ALIBABA_CLOUD_SECURITY_TOKEN"] else {
                throw AuthCoreError(.malformedInput, "\(path): profile '\(name)' has no sts_token")
            }
            return (try Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token), "static_sts")
        case "RamRoleArn", "ChainableRamRoleArn":
            let source: (Credentials, String)
            if mode == "RamRoleArn" {
                let (id, secret) = try keys()
                source = (try Credentials(accessKeyId: id, secretAccessKey: secret), "static_ak")
            } else {
                guard let sourceName = text("source_profile") else {
                    throw AuthCoreError(.malformedInput, "\(path): profile '\(name)' has no source_profile")
                }
                source = try await cliCredentials(profile: sourceName, in: profiles, path: path, depth: depth + 1)
            }
            guard let roleArn = text("ram_role_arn") ?? environment["ALIBABA_CLOUD_ROLE_ARN"] else {
                throw AuthCoreError(.malformedInput, "\(path): profile '\(name)' has no ram_role_arn")
            }
            let duration = try expiredSeconds(profile, name: name, path: path)
            let vpc = (try? profile.optionalBool("enable_vpc")) ?? nil
            let credentials = try await assumeRole(
                roleArn: roleArn,
                sessionName: text("ram_session_name"),
                durationSeconds: duration,
                policy: text("policy"),
                externalId: text("external_id"),
                region: text("sts_region"),
                vpc: vpc,
                source: source.0
            )
            return (credentials, "ram_role_arn/" + source.1)
        case "EcsRamRole":
            guard !environment.isTrue("ALIBABA_CLOUD_ECS_METADATA_DISABLED") else {
                throw AuthCoreError(.credentialsUnavailable, "profile '\(name)': the ECS metadata service is disabled")
            }
            return (
                try await ecsRole(named: text("ram_role_name") ?? environment["ALIBABA_CLOUD_ECS_METADATA"]),
                "ecs_ram_role"
            )
        default:
            throw AuthCoreError(
                .unsupported,
                "\(path): profile '\(name)' has mode '\(mode)', which AuthCore does not read"
            )
        }
    }

    /// `expired_seconds`: a whole number of at least 900 (default 3600).
    private func expiredSeconds(_ profile: JSONObject, name: String, path: String) throws(AuthCoreError) -> Int {
        guard profile.has("expired_seconds") else { return 3600 }
        guard let seconds = try? profile.integer("expired_seconds", in: 900...Int64(AliyunSTSClient.maximumDuration))
        else {
            throw AuthCoreError(
                .malformedInput,
                "\(path): profile '\(name)': expired_seconds must be a whole number of 900 or more"
            )
        }
        return Int(seconds)
    }

    // MARK: - The INI credentials file

    private func iniProfile() async throws(AuthCoreError) -> AlibabaCloudResolvedCredentials? {
        guard
            let path = environment["ALIBABA_CLOUD_CREDENTIALS_FILE"]
                ?? home.map({ $0 + "/.alibabacloud/credentials.ini" })
        else {
            throw AuthCoreError(.credentialsUnavailable, "no home directory")
        }
        let name = environment["ALIBABA_CLOUD_PROFILE"] ?? "default"
        guard let bytes = try BoundedFile.read(path, maximumBytes: AWSSharedConfiguration.maximumFileBytes),
            let section = try SharedConfigFile(parsing: bytes, path: path).section(name)
        else { throw AuthCoreError(.credentialsUnavailable, "no section [\(name)] in \(path)") }
        // The SDK cuts each value at '#' (an inline comment) and trims it.
        func text(_ key: String) -> String? {
            guard let raw = section.values[key]?.text else { return nil }
            let cut = raw.utf8.prefix { $0 != UInt8(ascii: "#") }
            let value = Array(cut).withUnsafeBufferPointer {
                String(decoding: ASCIIText.trimmingWhitespace($0), as: UTF8.self)
            }
            return value.isEmpty ? nil : value
        }
        func keys() throws(AuthCoreError) -> Credentials {
            guard let id = text("access_key_id") ?? environment["ALIBABA_CLOUD_ACCESS_KEY_ID"],
                let secret = text("access_key_secret") ?? environment["ALIBABA_CLOUD_ACCESS_KEY_SECRET"]
            else {
                throw AuthCoreError(.malformedInput, "\(path): [\(name)] needs access_key_id and access_key_secret")
            }
            return try Credentials(accessKeyId: id, secretAccessKey: secret)
        }
        let type = text("type") ?? "None"
        switch type {
        case "access_key":
            return AlibabaCloudResolvedCredentials(credentials: try keys(), source: "profile/static_ak")
        case "ram_role_arn":
            guard let roleArn = text("role_arn") ?? environment["ALIBABA_CLOUD_ROLE_ARN"] else {
                throw AuthCoreError(.malformedInput, "\(path): [\(name)] has no role_arn")
            }
            let credentials = try await assumeRole(
                roleArn: roleArn,
                sessionName: text("role_session_name"),
                durationSeconds: 3600,
                policy: text("policy"),
                externalId: nil,
                region: nil,
                vpc: nil,
                source: try keys()
            )
            return AlibabaCloudResolvedCredentials(credentials: credentials, source: "profile/ram_role_arn/static_ak")
        case "ecs_ram_role":
            guard !environment.isTrue("ALIBABA_CLOUD_ECS_METADATA_DISABLED") else {
                throw AuthCoreError(.credentialsUnavailable, "[\(name)]: the ECS metadata service is disabled")
            }
            return AlibabaCloudResolvedCredentials(
                credentials: try await ecsRole(named: text("role_name") ?? environment["ALIBABA_CLOUD_ECS_METADATA"]),
                source: "profile/ecs_ram_role"
            )
        default:
            throw AuthCoreError(.unsupported, "\(path): [\(name)] has type '\(type)', which AuthCore does not read")
        }
    }

    // MARK: - STS

    private func assumeRole(
        roleArn: String,
        sessionName: String?,
        durationSeconds: Int,
        policy: String?,
        externalId: String?,
        region: String?,
        vpc: Bool?,
        source: Credentials
    ) async throws(AuthCoreError) -> Credentials {
        let stsRegion = region ?? environment["ALIBABA_CLOUD_STS_REGION"]
        if let stsRegion {
            guard !stsRegion.isEmpty, stsRegion.utf8.count <= 64,
                stsRegion.utf8.allSatisfy({
                    ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-")
                })
            else { throw AuthCoreError(.invalidParameter, "the STS region must be lower-case letters, digits and '-'") }
        }
        let useVPC = vpc ?? (environment["ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED"]?.lowercased() == "true")
        let endpoint =
            stsEndpoint ?? stsRegion.map { "https://\(useVPC ? "sts-vpc" : "sts").\($0).aliyuncs.com/" }
            ?? "https://sts.aliyuncs.com/"
        let client = try AliyunSTSClient(endpoint: endpoint, transport: transport, clock: clock)
        let name =
            sessionName ?? environment["ALIBABA_CLOUD_ROLE_SESSION_NAME"] ?? "authcore-\(clock.now().secondsSince1970)"
        return try await client.assumeRole(
            roleArn: roleArn,
            roleSessionName: name,
            durationSeconds: durationSeconds,
            policy: policy,
            externalId: externalId,
            credentials: source
        ).credentials
    }

    // MARK: - ECS metadata and the credentials URI

    static let metadataOrigin = "http://100.100.100.200"

    /// The RAM role's credentials from the ECS metadata service: a token (`PUT /latest/api/token`),
    /// the role (named, or the one listed), its credentials.
    private func ecsRole(named role: String?) async throws(AuthCoreError) -> Credentials {
        func request(_ method: String, _ path: String, _ headers: [HTTPHeader]) throws(AuthCoreError) -> HTTPRequest {
            let url: RequestURL
            do { url = try RequestURL(Self.metadataOrigin + path) } catch {
                throw AuthCoreError(.invalidParameter, "metadata path: \(error.reason)")
            }
            return HTTPRequest(
                method: method,
                url: url,
                headers: headers,
                maximumResponseBytes: 64 << 10,
                allowsInsecureHTTP: true
            )
        }
        func token() async throws(AuthCoreError) -> [HTTPHeader] {
            let answer = try? await metadataTransport.send(
                try request(
                    "PUT",
                    "/latest/api/token",
                    [HTTPHeader("X-aliyun-ecs-metadata-token-ttl-seconds", "21600")]
                )
            )
            if let answer, answer.isSuccess {
                return [
                    HTTPHeader("X-aliyun-ecs-metadata-token", String(decoding: answer.body.plainBytes, as: UTF8.self))
                ]
            }
            if environment.isTrue("ALIBABA_CLOUD_IMDSV1_DISABLED") {
                throw AuthCoreError(.credentialsUnavailable, "no ECS metadata token, and version 1 is disabled")
            }
            return []
        }
        let base = "/latest/meta-data/ram/security-credentials/"
        var name = role
        if name == nil {
            let listed = try await metadataTransport.send(try request("GET", base, try await token()))
            guard listed.isSuccess else {
                throw AuthCoreError(.credentialsUnavailable, "ECS metadata: no RAM role (status \(listed.status))")
            }
            name = String(decoding: listed.body.plainBytes, as: UTF8.self)
        }
        guard let name, MetadataTransport.isPlainRoleName(name)
        else { throw AuthCoreError(.malformedResponse, "ECS metadata: the role name is not a plain name") }
        let answer = try await metadataTransport.send(try request("GET", base + name, try await token()))
        guard answer.isSuccess else {
            throw AuthCoreError(.credentialsUnavailable, "ECS metadata: role credentials answered \(answer.status)")
        }
        return try Self.successCredentials(answer.body.plainBytes, context: "ECS metadata credentials")
    }

    private func credentialsURI(_ text: String) async throws(AuthCoreError) -> Credentials {
        let url: RequestURL
        do { url = try RequestURL(text) } catch {
            throw AuthCoreError(.invalidParameter, "ALIBABA_CLOUD_CREDENTIALS_URI: \(error.reason)")
        }
        let answer = try await metadataTransport.send(
            HTTPRequest(
                method: "GET",
                url: url,
                maximumResponseBytes: 64 << 10,
                allowsInsecureHTTP: NetworkPolicy.isLoopback(host: url.host)
            )
        )
        guard answer.isSuccess else {
            throw AuthCoreError(.credentialsUnavailable, "the credentials URI answered \(answer.status)")
        }
        return try Self.successCredentials(answer.body.plainBytes, context: "credentials URI")
    }

    /// `{"Code": "Success", "AccessKeyId", "AccessKeySecret", "SecurityToken", "Expiration"}`.
    static func successCredentials(_ body: [UInt8], context: String) throws(AuthCoreError) -> Credentials {
        let object = try JSONObject(parsing: body, context: context)
        guard try object.optionalString("Code") == "Success" else {
            throw AuthCoreError(.credentialsUnavailable, "\(context): Code is not Success")
        }
        let expiration: Timestamp
        do { expiration = try Timestamp(iso8601: try object.string("Expiration")) } catch {
            throw AuthCoreError(.malformedResponse, "\(context): Expiration: \(error.reason)")
        }
        return try Credentials(
            accessKeyId: try object.string("AccessKeyId"),
            secretAccessKey: try object.string("AccessKeySecret"),
            sessionToken: try object.string("SecurityToken"),
            expiration: expiration
        )
    }
}
