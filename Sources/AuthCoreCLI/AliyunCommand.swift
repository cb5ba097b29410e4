import AuthCore
import AuthCoreClients

/// `authcore aliyun sts assume-role`: the app server's half of the OSS STS mode, as a command a
/// shell script can serve `distribute-token.json` with.
enum AliyunCommand {
    static let help = """
        OVERVIEW: Alibaba Cloud: STS temporary credentials for OSS (the app server's half).

        USAGE: authcore aliyun sts assume-role --role-arn ARN --role-session-name NAME [--duration-seconds N]
                  [--policy-file F] [--external-id ID] [--region R] [--endpoint URL]
                  [--signature rpc|acs3] [--profile NAME] [--show-secrets]

        assume-role   STS AssumeRole, signed with the long-term key from ALIBABA_CLOUD_ACCESS_KEY_ID /
                      ALIBABA_CLOUD_ACCESS_KEY_SECRET (or OSS_ACCESS_KEY_ID / OSS_ACCESS_KEY_SECRET; a
                      security token from ALIBABA_CLOUD_SECURITY_TOKEN / OSS_SECURITY_TOKEN is sent too), or
                      with --profile NAME from that profile of ~/.aliyun/config.json (AK, StsToken,
                      RamRoleArn, ChainableRamRoleArn, EcsRamRole) or of the INI credentials file
                      (ALIBABA_CLOUD_CREDENTIALS_FILE), as the Alibaba Cloud SDKs resolve it.
                      --duration-seconds is 900...43200 (default 3600; the role's maximum may be lower).
                      --policy-file narrows the role with a policy (JSON, at most 2048 bytes).
                      --region uses sts.<region>.aliyuncs.com (default sts.aliyuncs.com); --endpoint
                      overrides both. --signature picks RPC signature 1.0 (default) or ACS3-HMAC-SHA256.
                      Prints distribute-token.json: {"StatusCode":200,"AccessKeyId":…,"Expiration":…};
                      AccessKeySecret and SecurityToken only with --show-secrets.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("aliyun needs a subcommand (sts)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        guard sub == "sts" else { throw unknownSubcommand(sub, of: "aliyun", among: ["sts"]) }
        let rest = arguments.dropFirst()
        guard let action = rest.first else { throw UsageError("aliyun sts needs a subcommand (assume-role)") }
        if action == "-h" || action == "--help" { throw HelpRequested(text: help) }
        guard action == "assume-role" else { throw unknownSubcommand(action, of: "aliyun sts", among: ["assume-role"]) }
        return try await assumeRole(rest.dropFirst())
    }

    static func assumeRole(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let values = [
            "--role-arn", "--role-session-name", "--duration-seconds", "--policy-file", "--external-id", "--region",
            "--endpoint", "--signature", "--profile",
        ]
        let specs =
            values.map { OptionSpec(names: [$0], kind: .value) } + [OptionSpec(names: ["--show-secrets"], kind: .flag)]
        let parsed = try parseArguments(arguments, specs: specs, help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let roleArn = try parsed.required("--role-arn")
        let sessionName = try parsed.required("--role-session-name")
        var duration = 3600
        if let text = parsed.value("--duration-seconds") {
            guard let value = Int(text),
                (AliyunSTSClient.minimumDuration...AliyunSTSClient.maximumDuration).contains(value)
            else {
                throw UsageError(
                    "--duration-seconds must be a whole number in \(AliyunSTSClient.minimumDuration)...\(AliyunSTSClient.maximumDuration)"
                )
            }
            duration = value
        }
        var policy: String?
        if let file = parsed.value("--policy-file") {
            let bytes = try readFile(file, limit: 2048, option: "--policy-file")
            guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else {
                throw UsageError("--policy-file \(file) must hold UTF-8 text (a JSON policy)")
            }
            policy = text
        }
        let style: AliyunSTSClient.SignatureStyle
        switch parsed.value("--signature") ?? "rpc" {
        case "rpc": style = .rpc
        case "acs3": style = .acs3
        case let other: throw UsageError("--signature is rpc or acs3, not '\(other)'")
        }
        let credentials =
            if let profile = parsed.value("--profile") {
                // A role profile's own AssumeRole goes to the same STS endpoint (a private one, a stand-in).
                try await AlibabaProfileCredentials.resolve(profile: profile, stsEndpoint: parsed.value("--endpoint"))
                    .credentials
            } else if environment("ALIBABA_CLOUD_ACCESS_KEY_ID") != nil {
                try credentialsFromEnvironment(
                    id: "ALIBABA_CLOUD_ACCESS_KEY_ID",
                    secret: "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
                    token: "ALIBABA_CLOUD_SECURITY_TOKEN"
                )
            } else {
                try credentialsFromEnvironment(
                    id: "OSS_ACCESS_KEY_ID",
                    secret: "OSS_ACCESS_KEY_SECRET",
                    token: "OSS_SECURITY_TOKEN"
                )
            }
        let client: AliyunSTSClient
        do {
            client = try AliyunSTSClient(
                region: parsed.value("--region"),
                endpoint: parsed.value("--endpoint"),
                signatureStyle: style
            )
        } catch {
            throw UsageError(error.reason)
        }
        let assumed: AliyunAssumedRole
        do {
            assumed = try await client.assumeRole(
                roleArn: roleArn,
                roleSessionName: sessionName,
                durationSeconds: duration,
                policy: policy,
                externalId: parsed.value("--external-id"),
                credentials: credentials
            )
        } catch {
            // Refused before sending (session name, policy, duration) is a usage error.
            if error.code == .invalidParameter { throw UsageError(error.reason) }
            throw CommandFailure(error.reason)
        }
        guard parsed.has("--show-secrets") else {
            printOut(try jsonText(DistributeToken.json(assumed.credentials, showingSecrets: false)))
            return 0
        }
        var secrets = try SecretJSONValues()
        try printJSON(DistributeToken.json(assumed.credentials, secrets: &secrets), secrets: secrets)
        return 0
    }
}
