import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// One table per command of hostile argv, environment and file input: each must end with the
/// contract's exit code (2 usage, 1 failure), one clear first line on stderr, and never a signal.
@Suite("authcore CLI: bad input never crashes")
struct CLIBadInputTests {
    static let aws: [String: String?] = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-secret-secret",
    ]
    static let oss: [String: String?] = [
        "OSS_ACCESS_KEY_ID": "LTAIEXAMPLE", "OSS_ACCESS_KEY_SECRET": "secret-secret-secret",
    ]
    static let sign = ["sigv4", "sign", "--region", "us-east-1", "--service", "s3"]
    static let url = "https://bucket.s3.amazonaws.com/key"

    static func check(
        _ arguments: [String],
        environment: [String: String?] = [:],
        stdin: String? = nil,
        status: Int32,
        mention: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try authcore(arguments, stdin: stdin, environment: environment)
        #expect(!result.terminatedBySignal, "signal: \(arguments.prefix(6))", sourceLocation: sourceLocation)
        #expect(
            result.status == status,
            "exit \(result.status) for \(arguments.prefix(8)): \(result.stderr.prefix(300))",
            sourceLocation: sourceLocation
        )
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            first.hasPrefix("error: "),
            "\(arguments.prefix(6)): \(result.stderr.prefix(300))",
            sourceLocation: sourceLocation
        )
        #expect(first.contains(mention), "\(first.prefix(300))", sourceLocation: sourceLocation)
    }

    @Test(
        "sigv4 --sigv4a: region sets checked (usage errors), --region-set only with --sigv4a, no streaming; a good one signs"
    )
    func sigV4A() throws {
        let base = ["sigv4", "sign", "--service", "s3"]
        let table: [([String], String)] = [
            (base + ["--sigv4a", "--region-set", "", Self.url], "region"),
            (base + ["--sigv4a", "--region-set", "us east-1", Self.url], "region"),
            (base + ["--sigv4a", "--region-set", "us-east-1,", Self.url], "region"),
            (base + ["--sigv4a", Self.url], "--region-set"),
            (base + ["--region", "us-east-1", "--region-set", "*", Self.url], "--region-set goes with --sigv4a"),
            (base + ["--sigv4a", "--region", "us-east-1", "--region-set", "*", Self.url], "not both"),
            // A loopback URL: were the check gone, nothing would leave the machine.
            (
                [
                    "sigv4", "send", "--service", "s3", "--sigv4a", "--region-set", "*", "--upload", "/dev/null",
                    "http://127.0.0.1:9/k",
                ], "--sigv4a does not stream"
            ),
            (
                [
                    "sigv4", "presign", "--service", "s3", "--sigv4a", "--region-set", "*", "--expires", "604801",
                    Self.url,
                ], "--expires"
            ),
        ]
        for (arguments, mention) in table {
            try Self.check(arguments, environment: Self.aws, status: 2, mention: mention)
        }
        let signed = try authcore(
            base + ["--sigv4a", "--region-set", "us-east-1,eu-west-1", "--timestamp", "20150830T123600Z", Self.url],
            environment: Self.aws
        )
        #expect(signed.status == 0, "\(signed.stderr)")
        let lines = signed.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.map { $0.prefix { $0 != ":" } } == [
                "X-Amz-Date", "X-Amz-Region-Set", "X-Amz-Content-SHA256", "Authorization",
            ]
        )
        #expect(lines.contains("X-Amz-Region-Set: us-east-1,eu-west-1"))
        #expect(
            lines.last?.hasPrefix(
                "Authorization: AWS4-ECDSA-P256-SHA256 Credential=AKIDEXAMPLE/20150830/s3/aws4_request, SignedHeaders="
            ) == true
        )
    }

    @Test("sigv4 and oss: out-of-range numbers and times, unreadable or endless files, control bytes, huge values")
    func signing() throws {
        let big = String(repeating: "a", count: 100_000)
        let table: [([String], Int32, String)] = [
            (Self.sign + ["--clock-offset", "-99999999999", Self.url], 2, "--clock-offset"),
            (Self.sign + ["--clock-offset", "99999999999999999999999", Self.url], 2, "--clock-offset"),
            (Self.sign + ["--clock-offset", "1e300", Self.url], 2, "--clock-offset"),
            (Self.sign + ["--timestamp", "00000101T000000Z", Self.url], 2, "--timestamp"),
            (Self.sign + ["--timestamp", "99991231T235959Z", "--clock-offset", "31536000", Self.url], 0, ""),
            (
                ["sigv4", "presign", "--region", "us-east-1", "--service", "s3", "--expires", "1e300", Self.url], 2,
                "--expires"
            ),
            (
                ["sigv4", "presign", "--region", "us-east-1", "--service", "s3", "--expires", "-1", Self.url], 2,
                "--expires"
            ),
            (
                [
                    "sigv4", "presign", "--region", "us-east-1", "--service", "s3", "--expires", "9223372036854775807",
                    Self.url,
                ], 2, "--expires"
            ),
            (Self.sign + ["--data-file", "/dev/zero", Self.url], 2, "larger than"),
            (Self.sign + ["--data-file", "/nonexistent/file", Self.url], 2, "cannot read"),
            (Self.sign + ["--data-file", "/", Self.url], 2, "cannot read"),
            // Checked when the argument is read, by HTTP's one rule for fields: a usage error.
            (Self.sign + ["-H", "X-Test: a\u{01}b", Self.url], 2, "control byte"),
            (Self.sign + ["-H", "X-Test: a\u{7F}b", Self.url], 2, "control byte"),
            (Self.sign + ["-H", "X-Test: \(big)", Self.url], 0, ""),
            (Self.sign + ["-H", "\(big): v", Self.url], 0, ""),
            (Self.sign + ["https://bucket.s3.amazonaws.com/\u{01}"], 2, "URL"),
            (Self.sign + ["https://[::1/x"], 2, "URL"),
            (Self.sign + ["https://host:99999999999999999999/x"], 2, "URL"),
            (Self.sign + ["https://host:0/x"], 2, "URL"),
        ]
        for (arguments, status, mention) in table {
            if status == 0 {
                let result = try authcore(arguments, environment: Self.aws)
                #expect(
                    result.status == 0 && !result.terminatedBySignal,
                    "\(arguments.prefix(8)): \(result.stderr.prefix(300))"
                )
            } else {
                try Self.check(arguments, environment: Self.aws, status: status, mention: mention)
            }
        }
        try Self.check(
            [
                "oss", "sign", "--bucket", "b", "--version", "v4", "--region", "cn-hangzhou", "--clock-offset",
                "-99999999999", "https://b.oss.example.com/k",
            ],
            environment: Self.oss,
            status: 2,
            mention: "--clock-offset"
        )
        try Self.check(
            [
                "oss", "sign", "--bucket", "b", "--version", "v1", "--timestamp", "Mon, 01 Jan 0000 00:00:00 GMT",
                "https://b.oss.example.com/k",
            ],
            environment: Self.oss,
            status: 2,
            mention: "--timestamp"
        )
    }

    @Test("secrets in argv: a credential -H is refused, and no header error echoes the argument")
    func argvSecrets() throws {
        let secret = "SECRETVALUE0123456789"
        for (header, mention) in [
            ("Authorization: AWS4-HMAC-SHA256 \(secret)", "-H Authorization: a credential header"),
            ("X-Amz-Security-Token: \(secret)", "-H X-Amz-Security-Token: a credential header"),
            ("cookie: s=\(secret)", "-H cookie: a credential header"),
            ("\(secret)-without-a-colon", "has no ':'"),
            ("Bad Name \(secret): v", "header name must be an HTTP token"),
        ] {
            try Self.check(Self.sign + ["-H", header, Self.url], environment: Self.aws, status: 2, mention: mention)
            let result = try authcore(Self.sign + ["-H", header, Self.url], environment: Self.aws)
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(result.stderr)")
        }
    }

    @Test(
        "the signer's credentials never come from argv: a credential --signer-header is a usage error that does not echo it; AUTHCORE_SIGNER_HEADERS lines must be 'Name: value'"
    )
    func signerCredentials() throws {
        let secret = "SIGNERSECRET0123456789"
        let signed = [
            "oss", "sign", "--bucket", "b", "--version", "v4", "--region", "cn-hangzhou", "--signer-url",
            "http://127.0.0.1:9/oss/sign",
        ]
        for header in ["Authorization: Bearer \(secret)", "Cookie: session=\(secret)"] {
            try Self.check(
                signed + ["--signer-header", header, "http://127.0.0.1:9/b/k"],
                status: 2,
                mention: "a credential header cannot be given in argv"
            )
            let result = try authcore(signed + ["--signer-header", header, "http://127.0.0.1:9/b/k"])
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(result.stderr)")
        }
        let malformed = try authcore(
            signed + ["http://127.0.0.1:9/b/k"],
            environment: ["AUTHCORE_SIGNER_HEADERS": "no colon \(secret)"]
        )
        #expect(malformed.status == 2)
        #expect(
            malformed.stderr.contains("AUTHCORE_SIGNER_HEADERS: each line must be 'Name: value'"),
            "\(malformed.stderr)"
        )
        #expect(!malformed.stderr.contains(secret))
    }

    @Test("--verbose prints the canonical request with the session token redacted, in header and query form")
    func verboseRedaction() throws {
        let token = "SESSIONTOKEN0123456789abcdef"
        var environment = Self.aws
        environment["AWS_SESSION_TOKEN"] = token
        let fixed = ["--timestamp", "20261201T000000Z", "--verbose"]
        let signed = try authcore(Self.sign + fixed + [Self.url], environment: environment)
        #expect(signed.status == 0)
        #expect(signed.stdout.contains("X-Amz-Security-Token: \(token)"), "the header to add is the output, not a log")
        #expect(!signed.stderr.contains(token), "\(signed.stderr)")
        #expect(signed.stderr.contains("x-amz-security-token:<redacted>"), "\(signed.stderr)")
        let presigned = try authcore(
            ["sigv4", "presign", "--region", "us-east-1", "--service", "s3"] + fixed + [Self.url],
            environment: environment
        )
        #expect(presigned.status == 0)
        #expect(!presigned.stderr.contains(token), "\(presigned.stderr)")
        #expect(presigned.stderr.contains("X-Amz-Security-Token=<redacted>"), "\(presigned.stderr)")
        var ossEnvironment = Self.oss
        ossEnvironment["OSS_SECURITY_TOKEN"] = token
        let oss = try authcore(
            [
                "oss", "sign", "--bucket", "b", "--version", "v4", "--region", "cn-hangzhou", "--timestamp",
                "20261201T000000Z", "--verbose",
                "https://b.oss-cn-hangzhou.aliyuncs.com/key",
            ],
            environment: ossEnvironment
        )
        #expect(oss.status == 0, "\(oss.stderr)")
        #expect(!oss.stderr.contains(token), "\(oss.stderr)")
        #expect(oss.stderr.contains("x-oss-security-token:<redacted>"), "\(oss.stderr)")
    }

    @Test("srp, cognito and identity: bad numbers, endpoints and files")
    func flows() throws {
        try Self.check(
            ["srp", "verifier", "--group", "99999999999999999999", "--hash", "sha256", "--username", "u"],
            stdin: "pw",
            status: 2,
            mention: "SRP group"
        )
        try Self.check(
            ["srp", "verifier", "--group", "-1", "--hash", "sha256", "--username", "u"],
            stdin: "pw",
            status: 2,
            mention: "group"
        )
        let cognito = [
            "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_x", "--client-id", "c",
            "--username", "u",
        ]
        try Self.check(
            cognito + ["--endpoint", "http://[::1"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "endpoint"
        )
        try Self.check(
            cognito + ["--endpoint", "ftp://host/"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "endpoint"
        )
        try Self.check(
            cognito + ["--endpoint", "http://cognito.example.com/"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "plain http"
        )
        let identity = [
            "identity", "credentials", "--region", "us-east-1", "--identity-id", "us-east-1:x", "--logins-key", "k",
        ]
        try Self.check(identity + ["--token-file", "/dev/zero"], status: 2, mention: "larger than")
        try Self.check(identity + ["--token-file", "/nonexistent"], status: 2, mention: "cannot read")
        try Self.check(
            [
                "identity", "developer-token", "--region", "us-east-1", "--identity-pool-id", "p", "--provider-name",
                "n", "--user-identifier", "u",
                "--token-duration", "1e300",
            ],
            environment: Self.aws,
            status: 2,
            mention: "--token-duration"
        )
    }

    @Test("identity get-id and credentials: stores, pool ids, formats and option combinations")
    func identityStores() throws {
        let base = ((try temporaryFile("", name: "x")) as NSString).deletingLastPathComponent
        let getId = ["identity", "get-id", "--region", "us-east-1", "--identity-pool-id"]
        try Self.check(
            getId + ["us-east-1:p", "--identity-store", base + "/absent"],
            status: 2,
            mention: "not a directory"
        )
        try Self.check(
            getId + ["../../etc/p", "--identity-store", base],
            status: 2,
            mention: "not an identity pool id"
        )
        // A store file that is not the user's alone, or not the store's JSON: exit 1, nothing sent.
        for (name, text, mode, mention) in [
            ("us-east-1:open", #"{"version":1,"identityPoolId":"us-east-1:open","identityId":"i"}"#, 0o644, "0600"),
            ("us-east-1:junk", "{ not json", 0o600, "not a JSON object"),
            ("us-east-1:v2", #"{"version":2,"identityPoolId":"us-east-1:v2","identityId":"i"}"#, 0o600, "version"),
        ] as [(String, String, Int, String)] {
            _ = FileManager.default.createFile(
                atPath: base + "/cognito-identity-\(name).json",
                contents: Data(text.utf8),
                attributes: [.posixPermissions: mode]
            )
            try Self.check(
                getId + [name, "--identity-store", base, "--endpoint", "http://127.0.0.1:9/"],
                status: 1,
                mention: mention
            )
        }
        let credentials = ["identity", "credentials", "--region", "us-east-1"]
        try Self.check(credentials, status: 2, mention: "one of --identity-id and --identity-pool-id")
        try Self.check(
            credentials + ["--identity-id", "us-east-1:x", "--identity-store", base],
            status: 2,
            mention: "needs --identity-pool-id"
        )
        try Self.check(
            credentials + ["--identity-id", "us-east-1:x", "--logins-key", "k"],
            status: 2,
            mention: "needs --token-file"
        )
        try Self.check(
            credentials + ["--identity-id", "us-east-1:x", "--format", "yaml"],
            status: 2,
            mention: "--format"
        )
        try Self.check(
            [
                "identity", "lookup-developer-identity", "--region", "us-east-1", "--identity-pool-id", "p",
                "--user-identifier", "u",
            ],
            environment: ["AWS_ACCESS_KEY_ID": nil, "AWS_SECRET_ACCESS_KEY": nil],
            status: 2,
            mention: "AWS_ACCESS_KEY_ID"
        )
        try Self.check(["identity", "frobnicate"], status: 2, mention: "unknown identity subcommand")
    }

    @Test("cognito session files and stores: missing options, hostile or foreign files, a bad region")
    func cognitoFiles() throws {
        let directory = (try temporaryFile("", name: "x")) as NSString
        let base = directory.deletingLastPathComponent
        func secretFile(_ name: String, _ text: String, mode: Int = 0o600) -> String {
            let path = base + "/" + name
            _ = FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: mode]
            )
            return path
        }
        try Self.check(["cognito", "confirm-sign-in"], status: 2, mention: "--session-file")
        try Self.check(["cognito", "session"], status: 2, mention: "--store")
        try Self.check(["cognito", "sign-out", "--global"], status: 2, mention: "--store")
        try Self.check(
            ["cognito", "sign-in", "--username", "u"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "--region"
        )
        try Self.check(
            [
                "cognito", "sign-in", "--region", "us-east-1.evil.example/#", "--user-pool-id", "us-east-1_x",
                "--client-id", "c", "--username", "u",
            ],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "region"
        )
        try Self.check(["cognito", "session", "--store", base + "/absent.json"], status: 1, mention: "signed out")
        try Self.check(
            ["cognito", "session", "--store", secretFile("open.json", "{}", mode: 0o644)],
            status: 1,
            mention: "0600"
        )
        try Self.check(
            ["cognito", "session", "--store", secretFile("junk.json", "{ not json")],
            status: 1,
            mention: "not a JSON object"
        )
        try Self.check(
            ["cognito", "session", "--store", secretFile("v2.json", #"{"version":2}"#)],
            status: 1,
            mention: "version"
        )
        try Self.check(
            ["cognito", "confirm-sign-in", "--session-file", secretFile("step.json", #"{"version":1,"flow":"nope"}"#)],
            environment: ["COGNITO_CHALLENGE_RESPONSE": "x"],
            status: 1,
            mention: "flow"
        )
        try Self.check(
            [
                "cognito", "confirm-sign-in", "--session-file",
                secretFile(
                    "bits.json",
                    #"{"version":1,"flow":"user-srp","challengeName":"SMS_MFA","username":"u","parameters":{},"clientMetadata":{},"privateValueBitCount":1e300,"region":"us-east-1","userPoolId":"us-east-1_x","clientId":"c","typedUsername":"u"}"#
                ),
            ],
            environment: ["COGNITO_CHALLENGE_RESPONSE": "x"],
            status: 1,
            mention: "privateValueBitCount"
        )
        try Self.check(
            [
                "cognito", "sign-in", "--amplify-outputs", secretFile("amplify.json", #"{"version":"2","auth":{}}"#),
                "--username", "u",
            ],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "version"
        )
        try Self.check(
            ["cognito", "sign-in", "--amplify-outputs", "/dev/zero", "--username", "u"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "not a regular file"
        )
        let big = secretFile("big-amplify.json", String(repeating: " ", count: (1 << 20) + 10))
        try Self.check(
            ["cognito", "sign-in", "--amplify-outputs", big, "--username", "u"],
            environment: ["COGNITO_PASSWORD": "pw"],
            status: 2,
            mention: "1 MiB"
        )
    }

    @Test(
        "vectors: unreadable, non-JSON and hostile files fail with a line on stderr; a repeat that overflows ends at once"
    )
    func vectors() throws {
        let broken = try temporaryFile("{ not json")
        let result = try authcore(["vectors", broken])
        #expect(result.status == 1 && !result.terminatedBySignal)
        #expect(result.stderr.hasPrefix("FAIL \(broken): not valid JSON"), "\(result.stderr)")
        let overflow = try temporaryFile(
            #"{"kind":"hash","cases":[{"name":"r","alg":"sha256","msg_hex":"00","repeat":4611686018427387904,"expect":{"digest_hex":"00"}},{"name":"e","alg":"sha256","msg_hex":"","repeat":9000000000000000,"expect":{"digest_hex":"00"}}]}"#
        )
        let start = ContinuousClock.now
        let repeated = try authcore(["vectors", overflow])
        #expect(repeated.status == 1 && !repeated.terminatedBySignal)
        #expect(repeated.stdout.contains("0 passed, 2 failed"), "\(repeated.stdout)")
        #expect(ContinuousClock.now - start < .seconds(20))
        let deep = try temporaryFile(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
        let nested = try authcore(["vectors", deep])
        #expect(nested.status == 1 && !nested.terminatedBySignal, "\(nested.stderr.prefix(200))")
        let missing = try authcore(["vectors", "/nonexistent/vectors"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("FAIL /nonexistent/vectors"), "\(missing.stderr)")
    }
}
