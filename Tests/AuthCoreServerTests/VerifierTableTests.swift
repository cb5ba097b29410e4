import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The verifier table is checked when it loads: what would let anyone in, hide an account or tell
/// enrolled users from unknown ones is refused with a message naming the user, never a value.
@Suite("Verifier table: checked at load")
struct VerifierTableTests {
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant

    func table(_ users: [(String, String, String)]) -> [UInt8] {
        let members = users.map { #""\#($0.0)": {"salt_hex": "\#($0.1)", "verifier_hex": "\#($0.2)"}"# }
        return Array(#"{"users": {\#(members.joined(separator: ", "))}}"#.utf8)
    }

    func refusal(_ json: [UInt8]) -> String? {
        do {
            _ = try StaticVerifierStore(json: json, configuration: configuration, source: "users.json")
            return nil
        } catch {
            #expect(error.code == .malformedInput)
            return error.reason
        }
    }

    @Test("verifiers 0, 1, N-1, N and above are refused; 2 and N-2 are accepted")
    func verifierRange() throws {
        let n = configuration.group.modulus
        let salt = "00112233445566778899aabbccddeeff"
        for bad in [BigUInt(0), BigUInt(1), n - BigUInt(1), n, n + BigUInt(5)] {
            let reason = try #require(
                refusal(table([("alice", salt, bad.hexLowercased.isEmpty ? "00" : bad.hexLowercased)]))
            )
            #expect(reason.contains("user 'alice' has a verifier outside 2...N-2"), "\(reason)")
            #expect(!reason.contains(bad.hexLowercased.suffix(8)) || bad.bitWidth < 8, "the value is not echoed")
        }
        for good in [BigUInt(2), n - BigUInt(2)] {
            #expect(refusal(table([("alice", salt, good.hexLowercased)])) == nil)
        }
    }

    @Test("salts of different lengths are refused; the decoys take the table's one length (4 or 32 bytes)")
    func saltLengths() async throws {
        let v = "0f0f"
        #expect(
            refusal(table([("alice", "00112233", v), ("bob", "0011223344556677", v)]))?.contains(
                "every salt must have one length"
            ) == true
        )
        for length in [4, 32] {
            let salt = String(repeating: "ab", count: length)
            let store = try StaticVerifierStore(json: table([("alice", salt, v)]), configuration: configuration)
            #expect(store.uniformSaltByteCount == length)
            let service = try SRPLoginService(
                configuration: configuration,
                verifiers: store,
                handshakes: InMemoryHandshakeStore(),
                serverSecret: SecureBytes([UInt8](repeating: 3, count: 32))
            )
            #expect(try await service.begin(username: "alice", clientPublicValue: [2]).salt.count == length)
            #expect(try await service.begin(username: "mallory", clientPublicValue: [2]).salt.count == length)
        }
    }

    @Test(
        "two names that are the same bytes, or canonically equivalent Unicode, are refused (a String-keyed reader kept one silently)"
    )
    func duplicateAndEquivalentNames() throws {
        let salt = "00112233445566778899aabbccddeeff"
        let duplicate = refusal(table([("alice", salt, "0f0f"), ("alice", salt, "0f0e")]))
        #expect(duplicate?.contains("appears twice") == true, "\(duplicate ?? "accepted")")
        // "jos\u00e9" (NFC) and "jose\u0301" (NFD): JSON escapes and raw UTF-8 alike.
        let escaped = refusal(table([("jos\\u00e9", salt, "0f0f"), ("jose\\u0301", salt, "0f0e")]))
        #expect(escaped?.contains("canonically equivalent") == true, "\(escaped ?? "accepted")")
        let raw = refusal(table([("jos\u{E9}", salt, "0f0f"), ("jose\u{301}", salt, "0f0e")]))
        #expect(raw?.contains("canonically equivalent") == true, "\(raw ?? "accepted")")
        // Distinct names that merely look alike are fine, each found by its own bytes.
        let store = try StaticVerifierStore(
            json: table([("alice", salt, "0f0f"), ("Alice", salt, "0f0e")]),
            configuration: configuration
        )
        #expect(store.verifier(for: "alice")?.verifier == BigUInt(bigEndianBytes: [0x0F, 0x0F]))
        #expect(store.verifier(for: "Alice")?.verifier == BigUInt(bigEndianBytes: [0x0F, 0x0E]))
        #expect(store.verifier(for: "ALICE") == nil)
    }

    @Test("lookups find every enrolled name and no other, for tables of 1 to 40 users")
    func lookups() throws {
        for size in [1, 2, 3, 7, 8, 9, 40] {
            let names = (0..<size).map { "user\($0 * 7919 % 1000)" }
            let store = try StaticVerifierStore(
                names.map {
                    (username: $0, verifier: SRPVerifier(salt: [1], verifier: BigUInt(UInt(100 + $0.utf8.count))))
                },
                configuration: configuration
            )
            for name in names { #expect(store.verifier(for: name) != nil, "\(size): \(name)") }
            for other in ["", "user", "user1000", "zzz", "\u{0}", "user" + String(repeating: "9", count: 40)]
            where !names.contains(other) {
                #expect(store.verifier(for: other) == nil, "\(size): \(other)")
            }
        }
    }

    @Test("a table file others may read or write, or a symlink, is refused like a secret file; a 0600 file loads")
    func fileMode() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-verifiers-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("users.json").path
        try Data(table([("alice", "0011", "0f0f")])).write(to: URL(fileURLWithPath: path))
        for mode in [0o644, 0o640, 0o606, 0o660] {
            _ = chmod(path, mode_t(mode))
            #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try StaticVerifierStore(contentsOfFile: path, configuration: configuration)
            }
        }
        _ = chmod(path, 0o600)
        #expect(
            try StaticVerifierStore(contentsOfFile: path, configuration: configuration).verifier(for: "alice") != nil
        )
        let link = directory.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: AuthCoreError.self) {
            try StaticVerifierStore(contentsOfFile: link, configuration: configuration)
        }
    }
}
