import AuthCore
import AuthCoreClients

/// AWS credentials and region for the commands that call AWS, from the AWS default chain
/// (``AWSCredentialsChain``): environment keys first (not with `--profile NAME`), then the profile
/// (`--profile`, `AWS_DEFAULT_PROFILE`, `AWS_PROFILE`, `default`) of the shared files, roles,
/// processes, the container endpoint and the instance metadata service. Keys taken from the
/// environment are read as before the chain: `AWS_SECRET_ACCESS_KEY` into wiping storage, then wiped
/// and unset.
enum AWSChainCredentials {
    /// The credentials, the source's name, the profile and the region the chain resolves (nil when
    /// none is set).
    ///
    /// - Throws: `UsageError` when no source has credentials, the environment has a key id without
    ///   its secret, or a named profile does not exist; `CommandFailure` when a configured source
    ///   fails (a file that does not parse, STS refusing).
    static func resolve(
        profile: String?
    ) async throws -> (credentials: Credentials, source: String, profile: String, region: String?) {
        let settings = AWSSettingsResolver(profile: profile)
        if profile == nil, environment("AWS_ACCESS_KEY_ID") != nil, environment("AWS_SECRET_ACCESS_KEY") == nil {
            throw UsageError(
                "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY (credentials never come from arguments)"
            )
        }
        let files: AWSSharedConfiguration
        do { files = try AWSSharedConfiguration() } catch { throw CommandFailure(error.reason) }
        if let named = settings.namedProfile, files.profile(named: named) == nil {
            throw UsageError(
                "profile '\(named)' is in neither \(files.configFilePath) nor \(files.credentialsFilePath)"
            )
        }
        // Environment keys, the chain's first source, are read here as before the chain: the secret
        // straight into wiping storage and out of the environment (the zeroize gate counts its copies;
        // the chain's own reading would leave Swift strings of it).
        if profile == nil, environment("AWS_ACCESS_KEY_ID") != nil {
            let token = environment("AWS_SECURITY_TOKEN") != nil ? "AWS_SECURITY_TOKEN" : "AWS_SESSION_TOKEN"
            let credentials = try credentialsFromEnvironment(
                id: "AWS_ACCESS_KEY_ID",
                secret: "AWS_SECRET_ACCESS_KEY",
                token: token,
                expiration: "AWS_CREDENTIAL_EXPIRATION"
            )
            return (
                credentials, AWSCredentialSource.environment.rawValue, settings.profileName, settings.region(in: files)
            )
        }
        let resolved: AWSResolvedCredentials
        do {
            resolved = try await AWSCredentialsChain(profile: profile, transport: try CLITransport.make(for: .aws))
                .resolve()
        } catch let error as AuthCoreError {
            if error.code == .credentialsUnavailable
                && error.reason.hasPrefix(AWSCredentialsChain.exhaustedReasonPrefix)
            {
                throw UsageError(
                    "\(error.reason) (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile of ~/.aws/config with --profile or AWS_PROFILE)"
                )
            }
            throw CommandFailure(error.reason)
        }
        return (resolved.credentials, resolved.source.rawValue, resolved.profile, settings.region(in: files))
    }
}
