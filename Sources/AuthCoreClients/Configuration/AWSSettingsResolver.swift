import AuthCore

/// Settings the AWS CLI and SDKs read from the environment and the shared files besides credentials:
/// the profile's name, the region, and configured endpoints.
public struct AWSSettingsResolver: Sendable {
    /// The environment read.
    public let environment: ConfigurationEnvironment
    /// A profile named by the caller (`--profile`), which wins over `AWS_PROFILE`.
    public let explicitProfile: String?

    /// A resolver over `environment`.
    public init(profile: String? = nil, environment: ConfigurationEnvironment = .process) {
        self.explicitProfile = profile
        self.environment = environment
    }

    /// The profile in use: the explicit one, else `AWS_DEFAULT_PROFILE`, else `AWS_PROFILE` (botocore
    /// reads the older name first), else `default`.
    public var profileName: String { namedProfile ?? "default" }

    /// The profile the caller or the environment names; nil when none does (the default applies).
    public var namedProfile: String? {
        explicitProfile ?? environment.present("AWS_DEFAULT_PROFILE") ?? environment.present("AWS_PROFILE")
    }

    /// The region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region` (from either
    /// file); nil when none says. (botocore's own session reads no `AWS_REGION`; the AWS CLI v2 and the
    /// other SDKs read it first, as here.)
    public func region(in files: AWSSharedConfiguration) -> String? {
        environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? files.profile(named: profileName)?["region"]
    }

    /// A service's configured endpoint, in the SDKs' order ("Service-specific endpoints" in the AWS
    /// SDKs and Tools Reference Guide, and botocore's): `AWS_ENDPOINT_URL_<SERVICE>` (the service id
    /// upper-cased, spaces as `_`), `AWS_ENDPOINT_URL`, the block for the service in the `services`
    /// section the profile names (`endpoint_url`), the profile's `endpoint_url`; nil when none is set or
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` (or the profile's `ignore_configured_endpoint_urls`) is `true`.
    ///
    /// - Parameters:
    ///   - serviceKey: the service's configuration key (`sts`, `s3`, `cognito_identity`).
    ///   - files: the shared files (the profile's `services` section and `endpoint_url`).
    public func endpoint(serviceKey: String, in files: AWSSharedConfiguration) -> String? {
        let profile = files.profile(named: profileName)
        if environment.isTrue("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
            || profile?["ignore_configured_endpoint_urls"]?.lowercased() == "true"
        {
            return nil
        }
        let variable = "AWS_ENDPOINT_URL_" + String(serviceKey.uppercased().map { $0 == " " ? "_" : $0 })
        if let url = environment[variable] ?? environment["AWS_ENDPOINT_URL"] { return url }
        if let section = profile?["services"], let block = files.serviceSettings(section, service: serviceKey),
            let url = block["endpoint_url"],
            !url.isEmpty
        {
            return url
        }
        return profile?["endpoint_url"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
