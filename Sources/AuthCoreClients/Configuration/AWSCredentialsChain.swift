public import AuthCore

/// Where the AWS default chain found credentials: botocore's names for its sources (the `method` of
/// its credentials), so a resolution can be compared with botocore's.
public enum AWSCredentialSource: String, Sendable, CaseIterable {
    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`).
    case environment = "env"
    /// STS `AssumeRole` for a profile's `role_arn`, with `source_profile` or `credential_source`.
    case assumeRole = "assume-role"
    /// STS `AssumeRoleWithWebIdentity` with a token file (`AWS_WEB_IDENTITY_TOKEN_FILE` or the profile's).
    case webIdentity = "assume-role-with-web-identity"
    /// Keys in the credentials file's section.
    case sharedCredentialsFile = "shared-credentials-file"
    /// A profile's `credential_process`.
    case process = "custom-process"
    /// Keys in the config file's profile.
    case configFile = "config-file"
    /// The ECS container credentials endpoint.
    case container = "container-role"
    /// The EC2 instance metadata service (IMDSv2).
    case instanceMetadata = "iam-role"
}

/// Credentials the chain resolved, with their source and the profile in use.
public struct AWSResolvedCredentials: Sendable {
    /// The credentials (their expiry, when the source gives one).
    public let credentials: Credentials
    /// Where they came from.
    public let source: AWSCredentialSource
    /// The profile that was in use (`default` when none was named).
    public let profile: String
}

/// The AWS default credentials chain, resolved as botocore resolves it (`Session().get_credentials()`),
/// so a backend or CLI finds the credentials the AWS CLI would, from the same environment and files:
///
/// 1. the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SECURITY_TOKEN` or
///    `AWS_SESSION_TOKEN`) — skipped when the caller names the profile (`--profile`), not for
///    `AWS_PROFILE`;
/// 2. the profile's `role_arn` with `source_profile` (chains followed, a cycle refused; a profile may
///    name itself when it holds keys) or `credential_source` (`Environment`, `EcsContainer`,
///    `Ec2InstanceMetadata`), `external_id`, `role_session_name`, `duration_seconds` → STS `AssumeRole`;
/// 3. a web identity token file (`AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN` and
///    `AWS_ROLE_SESSION_NAME`, each over the profile's `web_identity_token_file`, `role_arn`,
///    `role_session_name`) → STS `AssumeRoleWithWebIdentity`, the file read at each resolution;
/// 4. keys in the credentials file's section, then 5. the profile's `credential_process`
///    (a time limit and an output bound), then 6. keys in the config file's profile;
/// 7. the ECS container endpoint (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` or `_FULL_URI`, with its authorization
///    token);
/// 8. the EC2 instance metadata service, IMDSv2 (a session token first; `AWS_EC2_METADATA_DISABLED`,
///    `AWS_EC2_METADATA_SERVICE_ENDPOINT`).
///
/// STS is called in the resolved region (`us-east-1` when none is set) at its configured endpoint
/// (``AWSSettingsResolver/endpoint(serviceKey:in:)``, key `sts`). Not supported: IAM Identity Center
/// (`sso_role_name`/`sso_account_id`) and `mfa_serial` (an interactive code) — each an
/// `AuthCoreError.Code.unsupported` naming the profile — and botocore's two legacy sources
/// `AWS_CREDENTIAL_FILE` and boto 2's `~/.boto`, which are skipped. The container endpoint is asked
/// once (botocore tries three times).
///
/// Each ``credentials()`` call resolves anew; wrap the chain in a ``RefreshingCredentialsProvider`` to
/// cache its answer until the source's own expiry.
public struct AWSCredentialsChain: CredentialsProvider {
    /// The profile, region and endpoint settings in use.
    public let settings: AWSSettingsResolver
    let transport: any HTTPTransport
    let metadataTransport: any HTTPTransport
    let clock: any SigningClock
    /// The longest a `credential_process` may run.
    public let processTimeLimit: Duration

    /// A chain over `environment` (the process's by default).
    ///
    /// - Parameters:
    ///   - profile: a profile named by the caller; `nil` for `AWS_PROFILE` (or `default`).
    ///   - environment: the variables read (the process's by default).
    ///   - transport: for STS.
    ///   - metadataTransport: for the container endpoint and the instance metadata service (default:
    ///     one-second time-outs, no proxy).
    ///   - clock: the signing clock (STS calls, session names, process output expiry).
    ///   - processTimeLimit: the longest a `credential_process` may run.
    public init(
        profile: String? = nil,
        environment: ConfigurationEnvironment = .process,
        transport: any HTTPTransport = HTTP1Transport(),
        metadataTransport: (any HTTPTransport)? = nil,
        clock: any SigningClock = SystemClock(),
        processTimeLimit: Duration = .seconds(60)
    ) throws(AuthCoreError) {
        settings = AWSSettingsResolver(profile: profile, environment: environment)
        self.transport = transport
        // Link-local services are never reached through a proxy (botocore's are not either).
        if let metadataTransport {
            self.metadataTransport = metadataTransport
        } else {
            self.metadataTransport = try MetadataTransport.make(totalTimeout: .seconds(3), proxies: .direct)
        }
        self.clock = clock
        self.processTimeLimit = processTimeLimit
    }

    public func credentials() async throws(AuthCoreError) -> Credentials { try await resolve().credentials }

    /// How the reason of the error for "no source had credentials" begins (the one failure a caller
    /// may want to tell from a broken configuration).
    public static let exhaustedReasonPrefix = "no AWS credentials"

    /// Resolves the chain: the credentials, their source and the profile.
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable` when no source has credentials;
    ///   `AuthCoreError.Code.invalidParameter` when a named profile is in neither file;
    ///   `AuthCoreError.Code.malformedInput` for a file that does not parse, keys without their
    ///   partner, a role without (or with both) `source_profile` and `credential_source`, or a
    ///   `source_profile` cycle; the source's own error when a configured source fails.
    public func resolve() async throws(AuthCoreError) -> AWSResolvedCredentials {
        let files = try AWSSharedConfiguration(environment: settings.environment)
        let name = settings.profileName
        let profile = files.profile(named: name)
        // A profile named by the caller or the environment must exist (botocore's ProfileNotFound, raised
        // before any source is tried); the implicit default may be absent.
        if profile == nil && settings.namedProfile != nil {
            throw AuthCoreError(
                .invalidParameter,
                "profile '\(name)' is in neither \(files.configFilePath) nor \(files.credentialsFilePath)"
            )
        }
        func found(_ credentials: Credentials, _ source: AWSCredentialSource) -> AWSResolvedCredentials {
            AuthCoreLog.log(
                .info,
                "authcore.credentials",
                "AWS credentials resolved",
                ["source": source.rawValue, "profile": name]
            )
            return AWSResolvedCredentials(credentials: credentials, source: source, profile: name)
        }
        if settings.explicitProfile == nil, let credentials = try environmentKeys() {
            return found(credentials, .environment)
        }
        if let profile, Self.hasRoleToAssume(profile) {
            return found(try await assumeRole(profile, files: files, visited: [name]), .assumeRole)
        }
        if let (credentials, source) = try await profileSources(
            name,
            files: files,
            readsEnvironment: settings.explicitProfile == nil
        ) {
            return found(credentials, source)
        }
        if let container = try ContainerCredentialsSource.from(settings.environment) {
            return found(try await container.credentials(transport: metadataTransport), .container)
        }
        if let metadata = try InstanceMetadataCredentialsSource.from(settings.environment, profile: profile),
            let credentials = try await metadata.credentialsIfAvailable(transport: metadataTransport)
        {
            return found(credentials, .instanceMetadata)
        }
        throw AuthCoreError(
            .credentialsUnavailable,
            "\(Self.exhaustedReasonPrefix) for profile '\(name)': none in the environment, \(files.credentialsFilePath), \(files.configFilePath), "
                + "a container endpoint or the instance metadata service"
        )
    }

    // MARK: - Sources

    private func environmentKeys() throws(AuthCoreError) -> Credentials? {
        let environment = settings.environment
        guard let accessKeyId = environment["AWS_ACCESS_KEY_ID"] else { return nil }
        guard let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
            throw AuthCoreError(.malformedInput, "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY")
        }
        var expiration: Timestamp?
        if let text = environment["AWS_CREDENTIAL_EXPIRATION"] {
            do { expiration = try Timestamp(iso8601: text) } catch {
                throw AuthCoreError(.malformedInput, "AWS_CREDENTIAL_EXPIRATION: \(error.reason)")
            }
        }
        return try Credentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secret,
            sessionToken: environment["AWS_SECURITY_TOKEN"] ?? environment["AWS_SESSION_TOKEN"],
            expiration: expiration
        )
    }

    /// Keys in one file's view of a profile; nil without `aws_access_key_id`.
    private static func staticKeys(_ profile: AWSProfile?, file: String) throws(AuthCoreError) -> Credentials? {
        guard let profile, let accessKeyId = profile["aws_access_key_id"] else { return nil }
        guard let secret = profile["aws_secret_access_key"] else {
            throw AuthCoreError(
                .malformedInput,
                "profile '\(profile.name)' in \(file) has aws_access_key_id without aws_secret_access_key"
            )
        }
        return try Credentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secret,
            sessionToken: profile["aws_security_token"] ?? profile["aws_session_token"]
        )
    }

    /// The profile-scoped sources, in botocore's order: web identity, the credentials file, the
    /// process, the config file.
    private func profileSources(
        _ name: String,
        files: AWSSharedConfiguration,
        readsEnvironment: Bool
    ) async throws(AuthCoreError)
        -> (Credentials, AWSCredentialSource)?
    {
        let profile = files.profile(named: name)
        if let credentials = try await webIdentity(profile, files: files, readsEnvironment: readsEnvironment) {
            return (credentials, .webIdentity)
        }
        // botocore's SSO source comes next and applies to a profile with sso_role_name or sso_account_id.
        if profile?.has("sso_role_name") == true || profile?.has("sso_account_id") == true {
            throw AuthCoreError(
                .unsupported,
                "profile '\(name)' uses IAM Identity Center (sso_*), which AuthCore does not support"
            )
        }
        if let credentials = try Self.staticKeys(files.credentialsFileProfiles[name], file: files.credentialsFilePath) {
            return (credentials, .sharedCredentialsFile)
        }
        if let command = profile?["credential_process"] {
            let runner = CredentialProcessRunner(
                command: command,
                profile: name,
                timeLimit: processTimeLimit,
                searchPath: settings.environment["PATH"]
            )
            return (try await runner.credentials(now: clock.now()), .process)
        }
        if let credentials = try Self.staticKeys(files.configFileProfiles[name], file: files.configFilePath) {
            return (credentials, .configFile)
        }
        return nil
    }

    private func webIdentity(
        _ profile: AWSProfile?,
        files: AWSSharedConfiguration,
        readsEnvironment: Bool
    ) async throws(AuthCoreError)
        -> Credentials?
    {
        // A variable that is set wins over the profile even when empty (botocore: `in os.environ`).
        func setting(_ key: String, _ variable: String) -> String? {
            (readsEnvironment ? settings.environment.present(variable) : nil) ?? profile?[key]
        }
        guard let tokenFile = setting("web_identity_token_file", "AWS_WEB_IDENTITY_TOKEN_FILE"), !tokenFile.isEmpty
        else { return nil }
        guard let roleArn = setting("role_arn", "AWS_ROLE_ARN"), !roleArn.isEmpty else {
            throw AuthCoreError(
                .malformedInput,
                "a web identity token file is configured without a role ARN (role_arn or AWS_ROLE_ARN)"
            )
        }
        guard let bytes = try BoundedFile.read(tokenFile, maximumBytes: 64 << 10),
            let token = String(validating: bytes, as: UTF8.self)
        else {
            throw AuthCoreError(.credentialsUnavailable, "the web identity token file \(tokenFile) cannot be read")
        }
        let sts = try stsClient(files)
        // No DurationSeconds from the profile here: botocore sends none for web identity (STS's default, 1 hour).
        return try await sts.assumeRoleWithWebIdentity(
            roleArn: roleArn,
            sessionName: setting("role_session_name", "AWS_ROLE_SESSION_NAME") ?? defaultSessionName(),
            webIdentityToken: token
        )
    }

    // MARK: - AssumeRole

    /// botocore's test: a `role_arn` that is not a web identity role.
    static func hasRoleToAssume(_ profile: AWSProfile) -> Bool {
        profile.has("role_arn") && !profile.has("web_identity_token_file")
    }

    private func assumeRole(
        _ profile: AWSProfile,
        files: AWSSharedConfiguration,
        visited: [String]
    ) async throws(AuthCoreError)
        -> Credentials
    {
        guard let roleArn = profile["role_arn"] else {
            throw AuthCoreError(.malformedInput, "profile '\(profile.name)' has no role_arn")
        }
        if profile.has("mfa_serial") {
            throw AuthCoreError(
                .unsupported,
                "profile '\(profile.name)' asks for an MFA code (mfa_serial), which AuthCore cannot prompt for"
            )
        }
        let sourceProfile = profile["source_profile"]
        let credentialSource = profile["credential_source"]
        let source: Credentials
        switch (sourceProfile, credentialSource) {
        case (.some, .some):
            throw AuthCoreError(
                .malformedInput,
                "profile '\(profile.name)' has both source_profile and credential_source"
            )
        case (nil, nil):
            throw AuthCoreError(
                .malformedInput,
                "profile '\(profile.name)' has role_arn without source_profile or credential_source"
            )
        case (nil, .some(let named)):
            source = try await credentials(fromSource: named, profile: profile)
        case (.some(let sourceName), nil):
            guard let next = files.profile(named: sourceName) else {
                throw AuthCoreError(
                    .malformedInput,
                    "the source_profile '\(sourceName)' of profile '\(profile.name)' does not exist"
                )
            }
            if visited.contains(sourceName) {
                // A profile may name itself to use its own keys; any other return is a cycle.
                guard sourceName == profile.name, Self.hasKeys(next) else {
                    throw AuthCoreError(
                        .malformedInput,
                        "source_profile cycle: \((visited + [sourceName]).joined(separator: " → "))"
                    )
                }
            }
            source = try await credentials(ofSourceProfile: next, files: files, visited: visited + [sourceName])
        }
        let sts = try stsClient(files)
        return try await sts.assumeRole(
            roleArn: roleArn,
            sessionName: profile["role_session_name"] ?? defaultSessionName(),
            durationSeconds: durationSeconds(profile),
            externalId: profile["external_id"],
            credentials: source
        )
    }

    static func hasKeys(_ profile: AWSProfile) -> Bool {
        profile.has("aws_access_key_id") || profile.has("aws_secret_access_key")
    }

    /// A source profile's credentials: its own sources (never the environment) when it holds keys or
    /// assumes no role, else its role.
    private func credentials(
        ofSourceProfile profile: AWSProfile,
        files: AWSSharedConfiguration,
        visited: [String]
    ) async throws(AuthCoreError)
        -> Credentials
    {
        if Self.hasKeys(profile) || !Self.hasRoleToAssume(profile) {
            guard let (credentials, _) = try await profileSources(profile.name, files: files, readsEnvironment: false)
            else {
                throw AuthCoreError(.malformedInput, "the source profile '\(profile.name)' has no credentials")
            }
            return credentials
        }
        return try await assumeRole(profile, files: files, visited: visited)
    }

    private func credentials(fromSource name: String, profile: AWSProfile) async throws(AuthCoreError) -> Credentials {
        switch name {
        case "Environment":
            guard let credentials = try environmentKeys() else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "credential_source Environment of profile '\(profile.name)': no keys in the environment"
                )
            }
            return credentials
        case "EcsContainer":
            guard let container = try ContainerCredentialsSource.from(settings.environment) else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "credential_source EcsContainer of profile '\(profile.name)': no container endpoint set"
                )
            }
            return try await container.credentials(transport: metadataTransport)
        case "Ec2InstanceMetadata":
            guard let metadata = try InstanceMetadataCredentialsSource.from(settings.environment, profile: profile)
            else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "credential_source Ec2InstanceMetadata of profile '\(profile.name)': the metadata service is disabled"
                )
            }
            guard let credentials = try await metadata.credentialsIfAvailable(transport: metadataTransport) else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "credential_source Ec2InstanceMetadata of profile '\(profile.name)': the metadata service has no credentials"
                )
            }
            return credentials
        default:
            throw AuthCoreError(
                .malformedInput,
                "profile '\(profile.name)': credential_source '\(name)' is not one of Environment, EcsContainer, Ec2InstanceMetadata"
            )
        }
    }

    // MARK: - STS

    private func stsClient(_ files: AWSSharedConfiguration) throws(AuthCoreError) -> STSClient {
        let region = settings.region(in: files) ?? "us-east-1"
        return try STSClient(
            region: region,
            endpoint: settings.endpoint(serviceKey: "sts", in: files),
            sender: SignedRequestSender(transport: transport, clock: clock)
        )
    }

    /// The profile's `duration_seconds`; one that is not a whole number is ignored, as botocore
    /// ignores it (STS's default, 1 hour, applies).
    private func durationSeconds(_ profile: AWSProfile?) -> Int {
        profile?["duration_seconds"].flatMap { Int($0) } ?? 3600
    }

    private func defaultSessionName() -> String { "authcore-session-\(clock.now().secondsSince1970)" }
}
