import Foundation
import Testing

@Suite("authcore CLI: exit codes and output contract")
struct CLITests {
    @Test("no subcommand, unknown subcommand, unknown option and a missing PATH are usage errors (exit 2)")
    func usageErrors() throws {
        for arguments in [[], ["frobnicate"], ["vectors"], ["vectors", "--bogus", "x"]] {
            let result = try run(authcoreBinary, arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.terminatedBySignal)
            #expect(result.stderr.hasPrefix("error: "), "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    @Test("--help exits 0 on every command")
    func help() throws {
        for arguments in [["--help"], ["-h"], ["vectors", "--help"]] {
            let result = try run(authcoreBinary, arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout.contains("USAGE:"), "\(arguments)")
        }
    }

    @Test("vectors: a passing file exits 0, a failing or unreadable one exits 1")
    func vectorsExitCodes() throws {
        let good = try temporaryFile(
            #"{"kind":"hash","cases":[{"name":"abc","alg":"sha256","msg_hex":"616263","expect":{"digest_hex":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}}]}"#)
        let passing = try run(authcoreBinary, ["vectors", good])
        #expect(passing.status == 0)
        #expect(passing.stdout == "PASS \(good) (1 cases)\n1 passed, 0 failed\n")

        let broken = try temporaryFile("{ this is not json")
        let failing = try run(authcoreBinary, ["vectors", good, broken])
        #expect(failing.status == 1)
        #expect(failing.stdout.hasSuffix("1 passed, 1 failed\n"))
        #expect(failing.stdout.contains("FAIL \(broken): not valid JSON"))
    }
}
