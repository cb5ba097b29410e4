import AuthCore
import AuthCoreClients

enum AWSCommand {
    static let help = """
        OVERVIEW: What the AWS default credentials chain resolves (botocore's order).

        USAGE: authcore aws credentials [--profile NAME] [--format json|env|credential-process] [--show-secrets]

        The chain: environment keys (not with --profile), a profile's role_arn (STS AssumeRole from its
        source_profile or credential_source), a web identity token file (AWS_WEB_IDENTITY_TOKEN_FILE or the
        profile's), keys in ~/.aws/credentials, the profile's credential_process, keys in ~/.aws/config,
        the ECS container endpoint, the EC2 instance metadata service (IMDSv2). Files: AWS_CONFIG_FILE,
        AWS_SHARED_CREDENTIALS_FILE; profile: --profile, else AWS_DEFAULT_PROFILE, else AWS_PROFILE, else default.

        FORMATS:
          json                (default) {"accessKeyId", "expiration", "source", "profile", "region"}, plus
                              "secretAccessKey" and "sessionToken" with --show-secrets.
          env                 export lines for AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
                              AWS_CREDENTIAL_EXPIRATION, AWS_REGION; needs --show-secrets.
          credential-process  The AWS CLI's credential_process output (Version 1), secrets included: for a
                              consuming tool's credential_process line.

        OPTIONS:
          --profile NAME      The profile (environment keys are then not read).
          --show-secrets      Print the secret key and session token (json, env).
          -h, --help          Show this help.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let action = arguments.first, action != "-h", action != "--help" else {
            printOut(help)
            return 0
        }
        guard action == "credentials" else { throw unknownSubcommand(action, of: "aws", among: ["credentials"]) }
        let parsed = try parseArguments(
            arguments.dropFirst(),
            specs: [
                OptionSpec(names: ["--profile"], kind: .value), OptionSpec(names: ["--format"], kind: .value),
                OptionSpec(names: ["--show-secrets"], kind: .flag),
            ],
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let format = parsed.value("--format") ?? "json"
        guard ["json", "env", "credential-process"].contains(format) else {
            throw UsageError("--format is json, env or credential-process, not '\(format)'")
        }
        let showSecrets = parsed.has("--show-secrets")
        guard format != "env" || showSecrets else {
            throw UsageError("--format env prints secrets: add --show-secrets")
        }
        let resolved = try await AWSChainCredentials.resolve(profile: parsed.value("--profile"))
        let credentials = resolved.credentials
        var secrets = try SecretJSONValues()
        switch format {
        case "credential-process":
            try printCredentialProcessJSON(credentials)
        case "env":
            var lines = ["export AWS_ACCESS_KEY_ID=\(shellQuoted(credentials.accessKeyId))"]
            lines.append(
                "export AWS_SECRET_ACCESS_KEY="
                    + shellQuoted(
                        String(decoding: credentials.secretAccessKey.withUnsafeBytes { Array($0) }, as: UTF8.self)
                    )
            )
            if let token = credentials.sessionToken { lines.append("export AWS_SESSION_TOKEN=\(shellQuoted(token))") }
            if let expires = credentials.expiration {
                lines.append("export AWS_CREDENTIAL_EXPIRATION=\(expires.iso8601)")
            }
            if let region = resolved.region { lines.append("export AWS_REGION=\(shellQuoted(region))") }
            printOut(lines.joined(separator: "\n"))
        default:
            // bytes-lint: an output document's member names (fixed ASCII).
            var object: [String: JSONValue] = [
                "accessKeyId": .string(credentials.accessKeyId),
                "expiration": JSONValue(credentials.expiration?.iso8601),
                "source": .string(resolved.source), "profile": .string(resolved.profile),
                "region": JSONValue(resolved.region),
            ]
            if showSecrets {
                object["secretAccessKey"] = .string(secrets.placeholder(for: credentials.secretAccessKey))
                object["sessionToken"] = JSONValue(credentials.sessionToken)
            }
            try printJSON(.object(object), secrets: secrets)
        }
        return 0
    }

    /// `value` in single quotes for a POSIX shell (a `'` inside written as `'\''`), byte by byte.
    static func shellQuoted(_ value: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "'")]
        for byte in value.utf8 {
            if byte == UInt8(ascii: "'") { bytes += Array(#"'\''"#.utf8) } else { bytes.append(byte) }
        }
        bytes.append(UInt8(ascii: "'"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
