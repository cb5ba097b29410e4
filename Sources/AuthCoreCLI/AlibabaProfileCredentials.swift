import AuthCore
import AuthCoreClients

/// Alibaba Cloud credentials of a named profile, for `--profile` on the commands that sign for
/// Alibaba Cloud (`aliyun sts assume-role`, `oss sign|presign|send`): the profile of the Alibaba
/// Cloud CLI's `~/.aliyun/config.json` (`AK`, `StsToken`, `RamRoleArn`, `ChainableRamRoleArn`,
/// `EcsRamRole`), else the section of that name in the INI credentials file, resolved as
/// ``AlibabaCloudCredentialsChain`` does with `ALIBABA_CLOUD_PROFILE` set to it. A named profile is
/// what the user asked for: the environment's keys (and its OIDC role), the instance's own RAM role
/// and `ALIBABA_CLOUD_CREDENTIALS_URI` are not used in its place (an `EcsRamRole` profile still asks
/// the metadata service, by the user's choice; without `--profile` the commands read the
/// environment's keys, as before).
enum AlibabaProfileCredentials {
    /// The variables hidden from the chain when a profile is named.
    // bytes-lint: environment variable names, fixed ASCII, looked up by the chain's own names.
    static let hidden: Set<String> = [
        "ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_SECURITY_TOKEN",
        "ALIBABA_CLOUD_CREDENTIALS_URI",
        "ALIBABA_CLOUD_CLI_PROFILE_DISABLED", "ALIBABA_CLOUD_OIDC_TOKEN_FILE", "ALIBABA_CLOUD_ROLE_ARN",
        "ALIBABA_CLOUD_OIDC_PROVIDER_ARN",
    ]

    /// The credentials of `profile` and the source's name (`cli_profile/static_ak`, …).
    ///
    /// - Throws: `UsageError` for an empty name; `CommandFailure` naming what each file said when
    ///   no file has the profile, or when its source fails (a role STS refuses, a file that does not parse).
    /// - Parameter stsEndpoint: the STS endpoint for a role profile's `AssumeRole` (nil: Alibaba's,
    ///   by the profile's `sts_region`).
    static func resolve(
        profile: String,
        stsEndpoint: String? = nil
    ) async throws -> (credentials: Credentials, source: String) {
        guard !profile.isEmpty else { throw UsageError("--profile is empty") }
        let process = EnvironmentCredentialsProvider.processEnvironment
        let environment = ConfigurationEnvironment { name in
            switch name {
            case "ALIBABA_CLOUD_PROFILE": profile
            case _ where hidden.contains(name): nil
            default: process(name)
            }
        }
        do {
            let chain = try AlibabaCloudCredentialsChain(
                environment: environment,
                transport: try CLITransport.make(for: .other),
                stsEndpoint: stsEndpoint,
                usesInstanceSources: false
            )
            let resolved = try await chain.resolve()
            return (resolved.credentials, resolved.source)
        } catch let error as AuthCoreError {
            throw CommandFailure("profile '\(profile)': \(error.reason)")
        }
    }
}
