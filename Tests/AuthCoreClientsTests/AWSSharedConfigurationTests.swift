import AuthCore
import Foundation
import Testing

@testable import AuthCoreClients

/// The pieces of the AWS default chain that need no peer: the INI dialect (configparser's rules, each
/// error naming the file and line), the shell-word split of `credential_process`, path expansion, the
/// bounded process run, settings order, and the container source's checks. The chain's choices are
/// checked against botocore in AWSCredentialsChainTests.
@Suite("AWS shared configuration: INI dialect, words, paths, process bounds")
struct AWSSharedConfigurationTests {
    /// A fresh directory (the caller removes it).
    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-aws-config-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func parse(_ text: String) throws -> SharedConfigFile {
        try SharedConfigFile(parsing: Array(text.utf8), path: "cfg")
    }

    func reason(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as AuthCoreError { return error.reason } catch { return "\(error)" }
    }

    @Test(
        "configparser's dialect: comments, delimiters, case, continuations, blank lines inside a value, nested blocks, [DEFAULT]"
    )
    func dialect() throws {
        let file = try parse(
            "; top\n# comment\n[DEFAULT]\nshared = yes\n[one]\nKey = value # not a comment\nother: colon=kept\n"
                + "multi = first\n   second\n\n   third\n  # a comment line does not end it\n  fourth\n"
                + "s3 =\n  addressing_style = path\n  Max = 10\n[two]\r\nshared = overridden\r\n"
        )
        let one = try #require(file.section("one"))
        #expect(one.values["key"] == .text("value # not a comment"))
        #expect(one.values["other"] == .text("colon=kept"))
        #expect(one.values["multi"] == .text("first\nsecond\n\nthird\nfourth"))
        #expect(one.values["s3"] == .nested(["addressing_style": "path", "Max": "10"]))
        #expect(one.values["shared"] == .text("yes"))
        #expect(file.section("two")?.values["shared"] == .text("overridden"))
        #expect(file.section("DEFAULT") == nil && file.sections.map(\.name) == ["one", "two"])
        #expect(file.section("one")?.line == 5)
    }

    @Test("section headers: the name runs to the last ']'; '[]' is no header")
    func headers() throws {
        #expect(try parse("[a]b]\nk = v\n").sections.map(\.name) == ["a]b"])
        #expect(try parse("[profile x] trailing\nk = v\n").sections.map(\.name) == ["profile x"])
        #expect(reason("[]\n")?.hasPrefix("cfg:1:") == true)
    }

    @Test("every malformed file is an error naming the file and line")
    func errors() {
        #expect(reason("k = v\n") == "cfg:1: a key outside any section (the file must start with a [section] header)")
        #expect(reason("[a]\nk = 1\n[a]\n") == "cfg:3: section [a] appears twice")
        #expect(reason("[a]\nk = 1\nK = 2\n") == "cfg:3: key 'k' appears twice in [a]")
        #expect(reason("[a]\n= value\n")?.hasPrefix("cfg:2:") == true)
        #expect(reason("[a]\njust words\nk = v\n")?.hasPrefix("cfg:2:") == true)
        #expect(reason("[a]\ns3 =\n  no equals here\n")?.hasPrefix("cfg:2:") == true)
        let invalid = (try? SharedConfigFile(parsing: Array("[a]\nk = ".utf8) + [0xFF, 0x0A], path: "cfg")) == nil
        #expect(invalid)
        // a byte-order mark is not a header, as in configparser
        #expect(reason("\u{FEFF}[a]\n")?.hasPrefix("cfg:1:") == true)
    }

    @Test("random bytes never crash the parser: each input parses or fails with a typed error")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("[]=:#; \t\r\nabkKDEFAULT\\\"'".utf8) + [0x00, 0xFF, 0xC3]
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            do { _ = try SharedConfigFile(parsing: bytes, path: "fuzz") } catch {
                #expect(error.code == .malformedInput)
            }
        }
    }

    @Test("credential_process words: quotes, escapes, joined pieces, errors")
    func shellWords() throws {
        #expect(
            try ShellWords.split(#"/bin/echo 'a b' "c \" d" e\ f g"h"'i'"#, context: "t") == [
                "/bin/echo", "a b", #"c " d"#, "e f", "ghi",
            ]
        )
        #expect(try ShellWords.split(#"cmd "" ''"#, context: "t") == ["cmd", "", ""])
        #expect(try ShellWords.split(#"a "\n\\""#, context: "t") == ["a", #"\n\"#])
        #expect(try ShellWords.split("  \t ", context: "t") == [])
        #expect(throws: AuthCoreError(.malformedInput, "")) { try ShellWords.split("a 'open", context: "t") }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try ShellWords.split(#"a "open"#, context: "t") }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try ShellWords.split(#"a \"#, context: "t") }
    }

    @Test("paths: $VAR, ${VAR} and ~ expanded as os.path.expandvars and expanduser do")
    func paths() {
        let environment = ConfigurationEnvironment(["HOME": "/home/u", "DIR": "/etc/aws", "X": "x"])
        #expect(environment.expandedPath("~/.aws/config") == "/home/u/.aws/config")
        #expect(environment.expandedPath("~") == "/home/u")
        #expect(environment.expandedPath("~other/x") == "~other/x")
        #expect(environment.expandedPath("$DIR/config") == "/etc/aws/config")
        #expect(environment.expandedPath("${DIR}/c-${X}") == "/etc/aws/c-x")
        #expect(environment.expandedPath("$UNSET/a ${UNSET} $") == "$UNSET/a ${UNSET} $")
        #expect(ConfigurationEnvironment(["AWS_PROFILE": ""])["AWS_PROFILE"] == nil)
    }

    @Test("a profile's description names its keys, never their values")
    func profileDescription() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("credentials").path
        try Data("[default]\naws_access_key_id = AKIDX\naws_secret_access_key = very-secret\n".utf8).write(
            to: URL(fileURLWithPath: path)
        )
        let files = try AWSSharedConfiguration(
            configFile: directory.appendingPathComponent("none").path,
            credentialsFile: path
        )
        let profile = try #require(files.profile(named: "default"))
        #expect(profile["aws_secret_access_key"] == "very-secret")
        #expect(!"\(profile)".contains("very-secret") && "\(profile)".contains("aws_secret_access_key"))
    }

    @Test("[DEFAULT] keys times sections are bounded; 20,000 sections parse")
    func defaultsBound() throws {
        let defaults = (0..<400).map { "k\($0) = v" }.joined(separator: "\n")
        let sections = (0..<400).map { "[s\($0)]" }.joined(separator: "\n")
        #expect(throws: AuthCoreError(.inputTooLarge, "")) { try parse("[DEFAULT]\n\(defaults)\n\(sections)\n") }
        let many = (0..<20_000).map { "[s\($0)]\nk = v" }.joined(separator: "\n")
        #expect(try parse(many).sections.count == 20_000)
    }

    @Test("without HOME, ~ is the password database's home, never the working directory")
    func homeFallback() {
        let expanded = ConfigurationEnvironment([:]).expandedPath("~/.aws/config")
        #expect(!expanded.hasPrefix("~") && expanded.hasSuffix("/.aws/config"), "\(expanded)")
    }

    @Test("files over 1 MiB are refused, naming the file")
    func largeFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config").path
        try Data(repeating: UInt8(ascii: "#"), count: AWSSharedConfiguration.maximumFileBytes + 1).write(
            to: URL(fileURLWithPath: path)
        )
        #expect(throws: AuthCoreError(.inputTooLarge, "")) {
            try AWSSharedConfiguration(configFile: path, credentialsFile: path + ".none")
        }
    }

    @Test("region and endpoint order")
    func settings() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config").path
        try Data(
            "[default]\nregion = eu-west-1\nendpoint_url = https://global.example\nservices = local\n[services local]\nsts =\n  endpoint_url = https://sts.local.example\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: config))
        func resolver(_ values: [String: String]) -> (AWSSettingsResolver, AWSSharedConfiguration) {
            let environment = ConfigurationEnvironment(values)
            return (
                AWSSettingsResolver(environment: environment),
                try! AWSSharedConfiguration(
                    configFile: config,
                    credentialsFile: config + ".none",
                    environment: environment
                )
            )  // test files
        }
        var (settings, files) = resolver([:])
        #expect(settings.region(in: files) == "eu-west-1")
        #expect(settings.endpoint(serviceKey: "sts", in: files) == "https://sts.local.example")
        #expect(settings.endpoint(serviceKey: "s3", in: files) == "https://global.example")
        (settings, files) = resolver(["AWS_DEFAULT_REGION": "us-west-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"])
        #expect(settings.region(in: files) == "us-west-1")
        #expect(settings.endpoint(serviceKey: "sts", in: files) == "http://127.0.0.1:1")
        (settings, files) = resolver([
            "AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "us-west-1", "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:2",
        ])
        #expect(settings.region(in: files) == "ap-south-1")
        #expect(settings.endpoint(serviceKey: "sts", in: files) == "http://127.0.0.1:2")
        (settings, files) = resolver([
            "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true", "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:2",
        ])
        #expect(settings.endpoint(serviceKey: "sts", in: files) == nil)
    }

    @Test("credential_process output: versions, keys, expiry")
    func processOutput() throws {
        let now = try Timestamp(iso8601: "2026-12-06T00:00:00Z")
        func parse(_ text: String) throws(AuthCoreError) -> Credentials {
            try CredentialProcessRunner.parse(Array(text.utf8), profile: "p", now: now)
        }
        let full = try parse(
            #"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "SessionToken": "t", "Expiration": "2026-12-06T01:00:00Z"}"#
        )
        let hourLater = try Timestamp(iso8601: "2026-12-06T01:00:00Z")
        #expect(full.accessKeyId == "A" && full.sessionToken == "t" && full.expiration == hourLater)
        #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try parse(#"{"Version": "1", "AccessKeyId": "A", "SecretAccessKey": "s"}"#)
        }
        #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try parse(#"{"AccessKeyId": "A", "SecretAccessKey": "s"}"#)
        }
        #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try parse(#"{"Version": 1, "SecretAccessKey": "s"}"#)
        }
        #expect(throws: AuthCoreError(.credentialsUnavailable, "")) { try parse("not json") }
        #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try parse(#"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "Expiration": "soon"}"#)
        }
        #expect(throws: AuthCoreError(.expired, "")) {
            try parse(
                #"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "Expiration": "2026-12-05T23:59:59Z"}"#
            )
        }
    }

    @Test(
        "credential_process runs are bounded: a process past its time limit is killed, endless output is cut, a missing program named"
    )
    func processBounds() async throws {
        let now = Timestamp(Date())
        // Only the deadline can end this run with timedOut (the program sleeps 100 times longer).
        let slow = CredentialProcessRunner(
            command: "/bin/sleep 30",
            profile: "slow",
            timeLimit: .milliseconds(300),
            searchPath: nil
        )
        await #expect(throws: AuthCoreError(.timedOut, "")) { try await slow.credentials(now: now) }
        let endless = CredentialProcessRunner(
            command: "/usr/bin/yes",
            profile: "loud",
            timeLimit: .seconds(20),
            searchPath: nil
        )
        await #expect(throws: AuthCoreError(.inputTooLarge, "")) { try await endless.credentials(now: now) }
        let missing = CredentialProcessRunner(
            command: "no-such-program-authcore",
            profile: "m",
            timeLimit: .seconds(5),
            searchPath: "/usr/bin:/bin"
        )
        await #expect(throws: AuthCoreError(.credentialsUnavailable, "")) { try await missing.credentials(now: now) }
        // A program that leaves a child holding its output (for 30 s, past the 20 s limit): the output is
        // taken shortly after the program exits, or the run would end timedOut.
        let lingering = CredentialProcessRunner(
            command:
                #"/bin/sh -c 'sleep 30 & echo "{\"Version\": 1, \"AccessKeyId\": \"AKIDLINGER\", \"SecretAccessKey\": \"s\"}"'"#,
            profile: "l",
            timeLimit: .seconds(20),
            searchPath: nil
        )
        #expect(try await lingering.credentials(now: now).accessKeyId == "AKIDLINGER")
        // A cancelled caller stops waiting, and the program is killed: only the cancellation can end
        // this run before its 10-minute limit.
        let patient = CredentialProcessRunner(
            command: "/bin/sleep 600",
            profile: "patient",
            timeLimit: .seconds(600),
            searchPath: nil
        )
        let task = Task { try await patient.credentials(now: now) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: AuthCoreError(.cancelled, "")) { try await task.value }
        let found = CredentialProcessRunner(
            command: #"echo '{"Version": 1, "AccessKeyId": "AKIDPATH", "SecretAccessKey": "s"}'"#,
            profile: "p",
            timeLimit: .seconds(5),
            searchPath: "/usr/bin:/bin"
        )
        #expect(try await found.credentials(now: now).accessKeyId == "AKIDPATH")
    }

    @Test("container source: hosts allowed over http, a token with a line break refused, RELATIVE_URI first")
    func containerSource() throws {
        func source(_ values: [String: String]) throws(AuthCoreError) -> ContainerCredentialsSource? {
            try ContainerCredentialsSource.from(ConfigurationEnvironment(values))
        }
        #expect(try source([:]) == nil)
        #expect(
            try source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:8080/creds"])?.url.host == "127.0.0.1"
        )
        #expect(try source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://localhost/creds"]) != nil)
        #expect(try source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "https://anywhere.example/creds"]) != nil)
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://creds.example/x"])
        }
        let relative = try source([
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/id",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1/x",
        ])
        #expect(relative?.url.host == "169.254.170.2" && relative?.url.path == "/v2/credentials/id")
    }

    @Test("service messages lose the request material AWS and Alibaba echo into them (it holds the session token)")
    func echoedRequestCut() {
        let aws =
            "The request signature we calculated does not match the signature you provided.\n\nThe Canonical String for this request should have been\n'POST\n/\n\nx-amz-security-token:TOKENMARKER'"
        let cut = ServiceErrorBody.withoutEchoedRequest(aws)
        #expect(
            cut
                == "The request signature we calculated does not match the signature you provided. (request material cut)",
            "\(cut)"
        )
        let aliyun =
            "Specified signature is not matched with our calculation. server string to sign is:GET&%2F&SecurityToken%3DTOKENMARKER"
        #expect(!ServiceErrorBody.withoutEchoedRequest(aliyun).contains("TOKENMARKER"))
        #expect(ServiceErrorBody.withoutEchoedRequest("Access denied.") == "Access denied.")
        #expect(ServiceErrorBody.withoutEchoedRequest(String(repeating: "x", count: 2000)).utf8.count < 600)
    }

    @Test(
        "Alibaba chain: the OIDC variables stop it (no fall-through to a broader role); an STS region that is not a region is refused before any request"
    )
    func alibabaChainGuards() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let oidc = try AlibabaCloudCredentialsChain(
            environment: ConfigurationEnvironment([
                "HOME": directory.path, "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true",
                "ALIBABA_CLOUD_OIDC_TOKEN_FILE": "/t",
                "ALIBABA_CLOUD_ROLE_ARN": "acs:ram::1:role/r",
                "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": "acs:ram::1:oidc-provider/p",
            ])
        )
        await #expect(throws: AuthCoreError(.unsupported, "")) { try await oidc.resolve() }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent(".aliyun"),
            withIntermediateDirectories: true
        )
        try Data(
            #"{"current":"r","profiles":[{"name":"r","mode":"RamRoleArn","access_key_id":"LTAIX","access_key_secret":"s","ram_role_arn":"acs:ram::1:role/r","sts_region":"evil.example/"}]}"#
                .utf8
        )
        .write(to: directory.appendingPathComponent(".aliyun/config.json"))
        let region = try AlibabaCloudCredentialsChain(
            environment: ConfigurationEnvironment([
                "HOME": directory.path, "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true",
            ]),
            transport: RefusingTransport()
        )
        do {
            _ = try await region.resolve()
            Issue.record("resolved with a bad STS region")
        } catch {
            #expect(
                error.code == .credentialsUnavailable && error.reason.contains("STS region must be"),
                "\(error.reason)"
            )
        }
    }
}

/// A transport that must not be used: every request is a test failure.
struct RefusingTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        Issue.record("a request was sent to \(request.url.origin)")
        throw AuthCoreError(.transportFailure, "refused by the test")
    }
}
