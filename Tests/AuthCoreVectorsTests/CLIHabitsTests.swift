import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The CLI habits of swift-argument-parser and the AWS CLI: --version, help <command>, every option in
/// the help, near-miss suggestions, bodies from files and stdin, S3 rules for the s3 service, no empty
/// SRP identities.
@Suite("authcore CLI habits")
struct CLIHabitsTests {
    static let aws: [String: String?] = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    ]
    static let sign = ["sigv4", "sign", "--region", "us-east-1", "--timestamp", "20150830T123600Z"]

    @Test("--version and help <command>")
    func versionAndHelp() throws {
        let version = try authcore(["--version"])
        #expect(version.status == 0 && version.stdout == "authcore 0.1.0\n", "\(version.stdout)")
        for command in ["vectors", "srp", "sigv4", "oss", "cognito", "identity"] {
            let viaHelp = try authcore(["help", command])
            let viaFlag = try authcore([command, "--help"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0, "\(command)")
            #expect(viaHelp.stdout == viaFlag.stdout && viaHelp.stdout.contains("USAGE:"), "\(command)")
        }
        for topic in ["help", "--version"] {
            let meta = try authcore(["help", topic])
            #expect(meta.status == 0 && meta.stdout.contains("USAGE: authcore <subcommand>"), "\(topic)")
        }
        let unknown = try authcore(["help", "sigv5"])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean 'sigv4'?"), "\(unknown.stderr)")
    }

    @Test("every option a command accepts is in its help")
    func helpListsOptions() throws {
        let options: [String: [String]] = [
            "identity": [
                "--region", "--identity-pool-id", "--provider-name", "--user-identifier", "--identity-id", "--login",
                "--token-duration",
                "--endpoint", "--max-results", "--next-token", "--identity-store", "--token-file", "--logins-key",
                "--custom-role-arn",
                "--format", "--show-secrets", "credential-process",
            ],
            "sigv4": [
                "--region", "--service", "-X", "-H", "-d", "--data-file", "--s3", "--no-s3", "--unsigned-payload",
                "--timestamp",
                "--expires", "--verbose", "--clock-offset", "--no-skew-correction",
            ],
            "srp": ["--group", "--hash", "--username"],
            "cognito": [
                "--region", "--user-pool-id", "--client-id", "--username", "--flow", "--preferred-challenge",
                "--endpoint", "--store",
                "--session-file", "--show-secrets", "--global", "--amplify-outputs",
            ],
        ]
        for (command, names) in options {
            let help = try authcore([command, "--help"]).stdout
            for name in names { #expect(help.contains(name), "\(command) --help does not mention \(name)") }
        }
    }

    @Test("near misses are suggested for subcommands, actions and options")
    func nearMisses() throws {
        let cases: [([String], String)] = [
            (["sigv5"], "did you mean 'sigv4'?"),
            (["identity", "get-ids"], "did you mean 'get-id'?"),
            (["cognito", "signin"], "did you mean 'sign-in'?"),
            (["sigv4", "sing"], "did you mean 'sign'?"),
            (Self.sign + ["--servce", "s3", "https://b.s3.amazonaws.com/k"], "did you mean '--service'?"),
        ]
        for (arguments, hint) in cases {
            let result = try authcore(arguments, environment: Self.aws)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(hint), "\(arguments): \(result.stderr)")
        }
        let far = try authcore(["zzzzzzzz"])
        #expect(far.status == 2 && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test("-d @FILE and --data-file - sign the same body as -d TEXT")
    func bodies() throws {
        let url = "https://example.amazonaws.com/"
        let base = Self.sign + ["--service", "service", "-X", "POST"]
        let text = try authcore(base + ["-d", "Param1=value1", url], environment: Self.aws)
        #expect(text.status == 0, "\(text.stderr)")
        let file = try temporaryFile("Param1=value1", name: "body")
        let fromFile = try authcore(base + ["-d", "@" + file, url], environment: Self.aws)
        let fromStdin = try authcore(base + ["--data-file", "-", url], stdin: "Param1=value1", environment: Self.aws)
        let fromDashAt = try authcore(base + ["-d", "@-", url], stdin: "Param1=value1", environment: Self.aws)
        #expect(fromFile.stdout == text.stdout && fromStdin.stdout == text.stdout && fromDashAt.stdout == text.stdout)
        let missing = try authcore(base + ["-d", "@/nonexistent/body", url], environment: Self.aws)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read"), "\(missing.stderr)")
    }

    @Test("--service s3 implies the S3 rules (x-amz-content-sha256 signed) unless --no-s3")
    func s3Default() throws {
        let url = "https://examplebucket.s3.amazonaws.com/a%20b//c"
        let implied = try authcore(Self.sign + ["--service", "s3", url], environment: Self.aws)
        let explicit = try authcore(Self.sign + ["--service", "s3", "--s3", url], environment: Self.aws)
        let standard = try authcore(Self.sign + ["--service", "s3", "--no-s3", url], environment: Self.aws)
        #expect(implied.status == 0 && implied.stdout == explicit.stdout, "\(implied.stderr)")
        #expect(implied.stdout.contains("X-Amz-Content-SHA256: "))
        #expect(
            standard.status == 0 && !standard.stdout.contains("X-Amz-Content-SHA256")
                && standard.stdout != implied.stdout
        )
        let both = try authcore(Self.sign + ["--service", "s3", "--s3", "--no-s3", url], environment: Self.aws)
        #expect(both.status == 2)
    }

    @Test("on a terminal the password prompt turns echo off, and a Ctrl-C at it restores echo before the process ends")
    func terminalPrompt() throws {
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [repositoryRoot.appendingPathComponent("scripts/pty_prompt_check.py").path, authcoreBinary.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stdout)"
        )
        #expect(report["prompted"] as? Bool == true)
        #expect(report["echoWhileTyping"] as? Bool == false)
        #expect(report["passwordEchoed"] as? Bool == false)
        #expect(report["verifierPrinted"] as? Bool == true && report["exitStatus"] as? Int == 0)
        #expect(report["interruptSignal"] as? Int == Int(SIGINT))
        #expect(report["echoWhileTypingBeforeInterrupt"] as? Bool == false)
        #expect(report["echoAfterInterrupt"] as? Bool == true, "the terminal is not left without echo")
    }

    @Test("-d @FILE reads a file, --data-raw never does; a body option at most once")
    func dataRaw() throws {
        let url = "https://example.amazonaws.com/"
        let base = Self.sign + ["--service", "service", "-X", "POST"]
        let file = try temporaryFile("from the file", name: "body")
        let raw = try authcore(base + ["--data-raw", "@" + file, url], environment: Self.aws)
        let fromFile = try authcore(base + ["-d", "@" + file, url], environment: Self.aws)
        #expect(raw.status == 0, "\(raw.stderr)")
        let literalSigned = try authcore(
            base + ["--data-file", try temporaryFile("@" + file, name: "literal"), url],
            environment: Self.aws
        )
        #expect(raw.stdout == literalSigned.stdout, "--data-raw signs the text itself")
        #expect(raw.stdout != fromFile.stdout, "-d @FILE signs the file's contents")
        let both = try authcore(base + ["-d", "x", "--data-raw", "y", url], environment: Self.aws)
        #expect(both.status == 2 && both.stderr.contains("use one of -d, --data-raw and --data-file"))
    }

    @Test("srp verifier refuses an empty username or password")
    func srpEmpty() throws {
        let base = ["srp", "verifier", "--group", "2048", "--hash", "sha256"]
        let noPassword = try authcore(base + ["--username", "alice"], stdin: "\n")
        #expect(noPassword.status == 2 && noPassword.stderr.contains("password is empty"), "\(noPassword.stderr)")
        let noUser = try authcore(base + ["--username", ""], stdin: "pw\n")
        #expect(noUser.status == 2 && noUser.stderr.contains("--username"), "\(noUser.stderr)")
        let ok = try authcore(base + ["--username", "alice"], stdin: "pw\n")
        #expect(ok.status == 0 && ok.stdout.contains("verifier_hex"))
    }
}

/// authcore-bench's options (the figures themselves are never asserted: only what a run reports).
@Suite("authcore-bench: --list, statistics and environment in the JSON, --baseline and --fail-above")
struct BenchOptionsTests {
    static let bench = authcoreBinary.deletingLastPathComponent().appendingPathComponent("authcore-bench")

    @Test("--list names every engine row with its C twin; bad option combinations exit 2")
    func list() throws {
        let listed = try run(Self.bench, ["--list"])
        #expect(listed.status == 0)
        let names = Set(listed.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) })
        for name in [
            "sha256.64B", "c.sha256.64B", "sigv4.sign.get", "c.sigv4.sign.get", "py.sigv4.sign.get",
            "cognito.login.client",
        ] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(try run(Self.bench, ["--fail-above", "1.2"]).status == 2)
        #expect(try run(Self.bench, ["--baseline", "x.json", "--fail-above", "0.5"]).status == 2)
        let junk = try temporaryFile("[1, 2]", name: "baseline.json")
        #expect(try run(Self.bench, ["--quick", "--filter", "c.sha256.64B", "--baseline", junk]).status == 2)
    }

    @Test(
        "a run's JSON has the spread of every row and the environment; --fail-above fails only on an engine row's regression"
    )
    func baseline() throws {
        let directory = (try temporaryFile("", name: "x") as NSString).deletingLastPathComponent
        let report = directory + "/now.json"
        let measured = try run(Self.bench, ["--quick", "--filter", "sha256.64B", "--json", report])
        #expect(measured.status == 0, "\(measured.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        )
        let environment = try #require(document["environment"] as? [String: Any])
        #expect((environment["openssl"] as? String)?.hasPrefix("OpenSSL 3") == true, "\(environment)")
        #expect((environment["gmp"] as? String)?.isEmpty == false)
        #expect(environment["date"] is String && environment["cpu"] is String && environment["commit"] is String)
        let rows = try #require(document["results"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["name"] as? String }) == ["sha256.64B", "c.sha256.64B"])
        for row in rows {
            for key in ["median", "p10", "p90", "min", "max", "mean", "stddev", "samples", "iterations"] {
                #expect(row[key] != nil, "\(key)")
            }
            let minimum = try #require((row["min"] as? NSNumber)?.doubleValue),
                maximum = try #require((row["max"] as? NSNumber)?.doubleValue)
            let median = try #require((row["median"] as? NSNumber)?.doubleValue)
            #expect(minimum <= median && median <= maximum)
            #expect((row["samples"] as? Int) == 7)
        }
        // A baseline a million times faster than any machine: the engine row regresses, exit 1; one a
        // million times slower: exit 0. A regressed C twin alone does not fail the run.
        func baseline(engine: Double, twin: Double) throws -> String {
            try temporaryFile(
                #"{"results":[{"name":"sha256.64B","median":\#(engine)},{"name":"c.sha256.64B","median":\#(twin)}]}"#,
                name: "baseline.json"
            )
        }
        let slower = try run(
            Self.bench,
            [
                "--quick", "--filter", "sha256.64B", "--baseline", try baseline(engine: 0.0001, twin: 1e9),
                "--fail-above", "1.5",
            ]
        )
        #expect(slower.status == 1)
        #expect(slower.stdout.contains("REGRESSION"), "\(slower.stdout)")
        let faster = try run(
            Self.bench,
            [
                "--quick", "--filter", "sha256.64B", "--baseline", try baseline(engine: 1e9, twin: 0.0001),
                "--fail-above", "1.5",
            ]
        )
        #expect(faster.status == 0, "\(faster.stderr)")
        #expect(faster.stdout.contains("now/baseline"))
    }
}
