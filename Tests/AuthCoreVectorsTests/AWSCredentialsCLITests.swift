import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// `authcore aws credentials` and `--profile` on `sigv4`: profiles of the shared files, the output
/// formats, the round trip through another tool's `credential_process`, and the exit codes. (Which
/// source the chain picks in each situation is checked against botocore in AWSCredentialsChainTests.)
@Suite("authcore aws credentials and sigv4 --profile")
struct AWSCredentialsCLITests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-aws-cli-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The environment with these two files as the shared files.
    func files(config: String, credentials: String = "") throws -> [String: String?] {
        let configPath = directory.appendingPathComponent("config")
        let credentialsPath = directory.appendingPathComponent("credentials")
        try Data(config.utf8).write(to: configPath)
        try Data(credentials.utf8).write(to: credentialsPath)
        return [
            "AWS_CONFIG_FILE": configPath.path, "AWS_SHARED_CREDENTIALS_FILE": credentialsPath.path,
            "AWS_ACCESS_KEY_ID": nil,
            "AWS_SECRET_ACCESS_KEY": nil, "AWS_SESSION_TOKEN": nil, "AWS_REGION": nil, "AWS_DEFAULT_REGION": nil,
        ]
    }

    static let devConfig = "[profile dev]\nregion = eu-central-1\n"
    static let devKeys =
        "[dev]\naws_access_key_id = AKIDDEVEXAMPLE0001\naws_secret_access_key = dev/secret+key\naws_session_token = dev-token\n"

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("json: the key id, source, profile and region; secrets only with --show-secrets")
    func jsonFormat() throws {
        let environment = try files(config: Self.devConfig, credentials: Self.devKeys)
        let plain = try authcore(["aws", "credentials", "--profile", "dev"], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        let object = try json(plain.stdout)
        #expect(object["accessKeyId"] as? String == "AKIDDEVEXAMPLE0001")
        #expect(object["source"] as? String == "shared-credentials-file")
        #expect(object["profile"] as? String == "dev" && object["region"] as? String == "eu-central-1")
        #expect(
            object["secretAccessKey"] == nil && !plain.stdout.contains("dev/secret+key")
                && !plain.stdout.contains("dev-token")
        )
        let shown = try json(
            try authcore(["aws", "credentials", "--profile", "dev", "--show-secrets"], environment: environment).stdout
        )
        #expect(
            shown["secretAccessKey"] as? String == "dev/secret+key" && shown["sessionToken"] as? String == "dev-token"
        )
    }

    @Test(
        "--debug, before or after the subcommand: the library's log on stderr, the output unchanged, no secret in either"
    )
    func debugFlag() throws {
        let environment = try files(config: Self.devConfig, credentials: Self.devKeys)
        for arguments in [
            ["--debug", "aws", "credentials", "--profile", "dev"],
            ["aws", "credentials", "--profile", "dev", "--debug"],
        ] {
            let result = try authcore(arguments, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try json(result.stdout)["accessKeyId"] as? String == "AKIDDEVEXAMPLE0001")
            #expect(
                result.stderr.contains(
                    "authcore.credentials: AWS credentials resolved profile=dev source=shared-credentials-file"
                ),
                "\(result.stderr)"
            )
            #expect(!result.stderr.contains("dev/secret+key") && !result.stderr.contains("dev-token"))
        }
        let quiet = try authcore(["aws", "credentials", "--profile", "dev"], environment: environment)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test("AWS_PROFILE selects the profile; AWS_REGION overrides its region")
    func environmentProfile() throws {
        var environment = try files(config: Self.devConfig, credentials: Self.devKeys)
        environment["AWS_PROFILE"] = "dev"
        environment["AWS_REGION"] = "ap-southeast-2"
        let result = try authcore(["aws", "credentials"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["profile"] as? String == "dev" && object["region"] as? String == "ap-southeast-2")
    }

    @Test("env needs --show-secrets; with it, export lines a POSIX shell reads back")
    func envFormat() throws {
        let environment = try files(config: Self.devConfig, credentials: Self.devKeys)
        let refused = try authcore(
            ["aws", "credentials", "--profile", "dev", "--format", "env"],
            environment: environment
        )
        #expect(refused.status == 2 && refused.stdout.isEmpty, "\(refused.stderr)")
        let shown = try authcore(
            ["aws", "credentials", "--profile", "dev", "--format", "env", "--show-secrets"],
            environment: environment
        )
        #expect(shown.status == 0, "\(shown.stderr)")
        let echoed = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                shown.stdout
                    + "\nprintf '%s|%s|%s|%s' \"$AWS_ACCESS_KEY_ID\" \"$AWS_SECRET_ACCESS_KEY\" \"$AWS_SESSION_TOKEN\" \"$AWS_REGION\"",
            ]
        )
        #expect(echoed.stdout == "AKIDDEVEXAMPLE0001|dev/secret+key|dev-token|eu-central-1", "\(echoed.stdout)")
    }

    @Test("credential-process output feeds another profile's credential_process (the chain reads it back)")
    func credentialProcessRoundTrip() throws {
        let binary = authcoreBinary.path
        let config =
            Self.devConfig
            + "[profile wrapped]\ncredential_process = \(binary) aws credentials --profile dev --format credential-process\n"
        let environment = try files(config: config, credentials: Self.devKeys)
        let direct = try json(
            try authcore(
                ["aws", "credentials", "--profile", "dev", "--format", "credential-process"],
                environment: environment
            ).stdout
        )
        #expect(
            direct["Version"] as? Int == 1 && direct["SecretAccessKey"] as? String == "dev/secret+key"
                && direct["SessionToken"] as? String == "dev-token"
        )
        let wrapped = try authcore(
            ["aws", "credentials", "--profile", "wrapped", "--show-secrets"],
            environment: environment
        )
        #expect(wrapped.status == 0, "\(wrapped.stderr)")
        let object = try json(wrapped.stdout)
        #expect(
            object["source"] as? String == "custom-process" && object["accessKeyId"] as? String == "AKIDDEVEXAMPLE0001"
        )
        #expect(
            object["secretAccessKey"] as? String == "dev/secret+key" && object["sessionToken"] as? String == "dev-token"
        )
    }

    @Test("exit codes: no credentials or an unknown profile 2; a file that does not parse 1, naming it and the line")
    func exitCodes() throws {
        let empty = try files(config: "")
        let none = try authcore(["aws", "credentials"], environment: empty)
        #expect(none.status == 2 && none.stderr.contains("no AWS credentials"), "\(none.stderr)")
        let unknown = try authcore(["aws", "credentials", "--profile", "ghost"], environment: empty)
        #expect(unknown.status == 2 && unknown.stderr.contains("'ghost'"), "\(unknown.stderr)")
        let broken = try files(config: "[default]\nregion = us-east-1\nthis line has no delimiter\n")
        let failed = try authcore(["aws", "credentials"], environment: broken)
        #expect(failed.status == 1 && failed.stderr.contains("config:3:"), "\(failed.stderr)")
        let format = try authcore(["aws", "credentials", "--format", "yaml"], environment: empty)
        #expect(format.status == 2)
        let subcommand = try authcore(["aws", "credential"], environment: empty)
        #expect(subcommand.status == 2 && subcommand.stderr.contains("credentials"), "\(subcommand.stderr)")
        // The identity commands' developer credentials come from the same chain.
        let clean = try files(config: "")  // the broken config above is replaced
        let developer = try authcore(
            [
                "identity", "developer-token", "--region", "us-east-1", "--identity-pool-id", "us-east-1:p",
                "--provider-name", "login.example",
                "--user-identifier", "u", "--profile", "ghost",
            ],
            environment: clean
        )
        #expect(developer.status == 2 && developer.stderr.contains("'ghost'"), "\(developer.stderr)")
        var partial = clean
        partial["AWS_ACCESS_KEY_ID"] = "AKIDONLY"
        let half = try authcore(["aws", "credentials"], environment: partial)
        #expect(half.status == 2 && half.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(half.stderr)")
    }

    @Test(
        "sigv4 sign --profile: the profile's key and region in the credential scope; without one, the old usage error"
    )
    func sigv4Profile() throws {
        let environment = try files(config: Self.devConfig, credentials: Self.devKeys)
        let signed = try authcore(
            [
                "sigv4", "sign", "--profile", "dev", "--service", "s3", "--timestamp", "20260101T000000Z",
                "https://bucket.s3.eu-central-1.amazonaws.com/key",
            ],
            environment: environment
        )
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(
            signed.stdout.contains("Credential=AKIDDEVEXAMPLE0001/20260101/eu-central-1/s3/aws4_request"),
            "\(signed.stdout)"
        )
        #expect(signed.stdout.contains("X-Amz-Security-Token: dev-token"), "\(signed.stdout)")
        let unsigned = try authcore(
            ["sigv4", "sign", "--service", "s3", "--region", "us-east-1", "https://bucket.s3.amazonaws.com/key"],
            environment: try files(config: "")
        )
        #expect(unsigned.status == 2 && unsigned.stderr.contains("AWS_ACCESS_KEY_ID"), "\(unsigned.stderr)")
        let noRegion = try authcore(
            ["sigv4", "sign", "--service", "s3", "https://bucket.s3.amazonaws.com/key"],
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": nil,
                "AWS_DEFAULT_REGION": nil,
            ]
        )
        #expect(noRegion.status == 2 && noRegion.stderr.contains("--region"), "\(noRegion.stderr)")
    }
}
