import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@Suite("authcore CLI: exit codes and output contract")
struct CLITests {
    @Test("no subcommand, unknown subcommand, unknown option and a missing PATH are usage errors (exit 2)")
    func usageErrors() throws {
        for arguments in [[], ["frobnicate"], ["vectors"], ["vectors", "--bogus", "x"]] {
            let result = try authcore(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.terminatedBySignal)
            #expect(result.stderr.hasPrefix("error: "), "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    @Test("--help exits 0 on every command")
    func help() throws {
        for arguments in [["--help"], ["-h"], ["vectors", "--help"]] {
            let result = try authcore(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout.contains("USAGE:"), "\(arguments)")
        }
    }

    @Test("vectors: a passing file exits 0, a failing or unreadable one exits 1")
    func vectorsExitCodes() throws {
        let good = try temporaryFile(
            #"{"kind":"hash","cases":[{"name":"abc","alg":"sha256","msg_hex":"616263","expect":{"digest_hex":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}}]}"#
        )
        let passing = try authcore(["vectors", good])
        #expect(passing.status == 0)
        #expect(passing.stdout == "PASS \(good) (1 cases)\n1 passed, 0 failed\n")

        let broken = try temporaryFile("{ this is not json")
        let failing = try authcore(["vectors", good, broken])
        #expect(failing.status == 1)
        #expect(failing.stdout.hasSuffix("1 passed, 1 failed\n"))
        #expect(failing.stdout.contains("FAIL \(broken): not valid JSON"))
    }
}

@Suite("authcore srp verifier")
struct SRPVerifierCommandTests {
    func verifier(_ stdin: String, username: String = "alice") throws -> (salt: [UInt8], verifier: String) {
        let result = try authcore(
            ["srp", "verifier", "--group", "2048", "--hash", "sha256", "--username", username],
            stdin: stdin
        )
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        let salt = try #require(object?["salt_hex"])
        let verifier = try #require(object?["verifier_hex"])
        #expect(object?.count == 2)
        #expect(salt.count == 32)
        return (try Hex.decode(salt), verifier)
    }

    @Test("prints {salt_hex, verifier_hex}; the verifier is g^x for the printed salt; one trailing newline is dropped")
    func output() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        for (stdin, password) in [
            ("pässword\n", "pässword"), ("pässword\r\n", "pässword"), ("pässword", "pässword"),
            ("pässword\n\n", "pässword\n"), (" spaced \n", " spaced "),
        ] {
            let (salt, hex) = try verifier(stdin)
            let expected = try configuration.makeVerifier(
                username: Array("alice".utf8),
                password: SecureBytes(Array(password.utf8)),
                salt: salt
            )
            #expect(try BigUInt(hex: hex) == expected.verifier, "stdin \(stdin.debugDescription)")
        }
    }

    @Test("bad options are usage errors (exit 2) and the password never comes from argv")
    func usage() throws {
        for arguments in [
            ["srp"], ["srp", "frob"], ["srp", "verifier", "--group", "1000", "--hash", "sha256", "--username", "a"],
            ["srp", "verifier", "--group", "2048", "--hash", "md5", "--username", "a"],
            ["srp", "verifier", "--group", "2048", "--hash", "sha256"],
            ["srp", "verifier", "--group", "2048", "--hash", "sha256", "--username", "a", "--password", "x"],
        ] {
            let result = try authcore(arguments, stdin: "pw\n")
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("error: "))
        }
    }
}
