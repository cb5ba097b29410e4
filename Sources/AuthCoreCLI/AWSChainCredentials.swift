import AuthCore
import AuthCoreClients

/// AWS credentials and region for the commands that call AWS: `--profile NAME` (or `AWS_PROFILE`)
/// selects a profile of the shared files, resolved by the AWS default chain (``AWSCredentialsChain``).
///
/// Without `--profile`, keys in the environment are read as before (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` — taken out of the environment and wiped —, `AWS_SESSION_TOKEN`,
/// `AWS_CREDENTIAL_EXPIRATION`); when there are none, the chain runs.
enum AWSChainCredentials {
    /// The credentials, the source's name and the region the chain resolves (nil when none is set).
    ///
    /// - Throws: `UsageError` when no source has credentials or a named profile does not exist;
    ///   `CommandFailure` when a configured source fails (a file that does not parse, STS refusing).
    static func resolve(profile: String?) async throws -> (credentials: Credentials, source: String, profile: String, region: String?) {
        let settings = AWSSettingsResolver(profile: profile)
        let region: String?
        do { region = settings.region(in: try AWSSharedConfiguration()) } catch { throw CommandFailure(error.reason) }
        if profile == nil, environment("AWS_ACCESS_KEY_ID") != nil {
            let credentials = try credentialsFromEnvironment(
                id: "AWS_ACCESS_KEY_ID", secret: "AWS_SECRET_ACCESS_KEY", token: "AWS_SESSION_TOKEN", expiration: "AWS_CREDENTIAL_EXPIRATION")
            return (credentials, AWSCredentialSource.environment.rawValue, settings.profileName, region)
        }
        do {
            let chain = try AWSCredentialsChain(profile: profile, transport: try CLITransport.make(for: .aws))
            let resolved = try await chain.resolve()
            return (resolved.credentials, resolved.source.rawValue, resolved.profile, region)
        } catch let error as AuthCoreError {
            switch error.code {
            case .credentialsUnavailable where error.reason.hasPrefix("no AWS credentials"), .invalidParameter:
                throw UsageError(
                    "\(error.reason) (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile of ~/.aws/config with --profile or AWS_PROFILE)")
            default:
                throw CommandFailure(error.reason)
            }
        }
    }
}
