import AuthCore
import AuthCoreClients

/// AWS credentials and region for the commands that call AWS, from the AWS default chain
/// (``AWSCredentialsChain``): environment keys first (not with `--profile NAME`), then the profile
/// (`--profile`, `AWS_DEFAULT_PROFILE`, `AWS_PROFILE`, `default`) of the shared files, roles,
/// processes, the container endpoint and the instance metadata service. Keys taken from the
/// environment leave it: `AWS_SECRET_ACCESS_KEY` is wiped and unset once read, as before the chain.
enum AWSChainCredentials {
    /// The credentials, the source's name, the profile and the region the chain resolves (nil when
    /// none is set).
    ///
    /// - Throws: `UsageError` when no source has credentials, the environment has a key id without
    ///   its secret, or a named profile does not exist; `CommandFailure` when a configured source
    ///   fails (a file that does not parse, STS refusing).
    static func resolve(profile: String?) async throws -> (credentials: Credentials, source: String, profile: String, region: String?) {
        let settings = AWSSettingsResolver(profile: profile)
        if profile == nil, environment("AWS_ACCESS_KEY_ID") != nil, environment("AWS_SECRET_ACCESS_KEY") == nil {
            throw UsageError("AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY (credentials never come from arguments)")
        }
        let files: AWSSharedConfiguration
        do { files = try AWSSharedConfiguration() } catch { throw CommandFailure(error.reason) }
        if let named = settings.namedProfile, files.profile(named: named) == nil {
            throw UsageError("profile '\(named)' is in neither \(files.configFilePath) nor \(files.credentialsFilePath)")
        }
        let resolved: AWSResolvedCredentials
        do {
            resolved = try await AWSCredentialsChain(profile: profile, transport: try CLITransport.make(for: .aws)).resolve()
        } catch let error as AuthCoreError {
            if error.code == .credentialsUnavailable && error.reason.hasPrefix(AWSCredentialsChain.exhaustedReasonPrefix) {
                throw UsageError(
                    "\(error.reason) (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile of ~/.aws/config with --profile or AWS_PROFILE)")
            }
            throw CommandFailure(error.reason)
        }
        if resolved.source == .environment { _ = takeSecretEnvironment("AWS_SECRET_ACCESS_KEY") }  // wiped and unset, as before
        return (resolved.credentials, resolved.source.rawValue, resolved.profile, settings.region(in: files))
    }
}
