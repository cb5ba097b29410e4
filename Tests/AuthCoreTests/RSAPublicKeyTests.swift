import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// RSASSA-PKCS1-v1_5 verification against NIST CAVP SigVer15 records (moduli 2048–4096 bits,
/// SHA-256/384/512; valid signatures and ones with a changed message, key, exponent or signature),
/// converted by scripts/convert_rsa_sigver_vectors.py and re-checked there with `cryptography`.
@Suite("RSA PKCS#1 v1.5 signature verification")
struct RSAPublicKeyTests {
    struct Case {
        let bits: Int
        let hash: HashAlgorithm
        let n: [UInt8], e: [UInt8], message: [UInt8], signature: [UInt8]
        let valid: Bool
        let note: String
    }

    static func cases() throws -> [Case] {
        let url = repositoryRoot.appendingPathComponent("Tests/AuthCoreTests/Fixtures/rsa-pkcs1v15-sigver.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let hashes: [String: HashAlgorithm] = ["sha256": .sha256, "sha384": .sha384, "sha512": .sha512]
        return try #require(document["cases"] as? [[String: Any]]).map { item in
            Case(
                bits: item["bits"] as? Int ?? 0,
                hash: hashes[item["hash"] as? String ?? ""] ?? .sha1,
                n: hex(item["n"] as? String ?? ""),
                e: hex(item["e"] as? String ?? ""),
                message: hex(item["message"] as? String ?? ""),
                signature: hex(item["signature"] as? String ?? ""),
                valid: item["valid"] as? Bool ?? false,
                note: item["note"] as? String ?? ""
            )
        }
    }

    @Test("every CAVP SigVer15 record (162: 27 valid, 135 altered) is judged as NIST judged it")
    func cavp() throws {
        let all = try Self.cases()
        #expect(all.count == 162)
        #expect(all.filter(\.valid).count == 27)
        for item in all {
            let key = try RSAPublicKey(modulus: item.n, exponent: item.e)
            #expect(key.bitCount == item.bits)
            let verdict = try key.isValidSignature(item.signature, for: item.message, hash: item.hash)
            #expect(verdict == item.valid, "\(item.bits)-bit \(item.hash): \(item.note)")
        }
    }

    @Test("a valid signature fails with another hash, a flipped bit, a short or long signature")
    func alterations() throws {
        let item = try #require(try Self.cases().first { $0.valid && $0.hash == .sha256 })
        let key = try RSAPublicKey(modulus: item.n, exponent: item.e)
        #expect(try key.isValidSignature(item.signature, for: item.message, hash: .sha256))
        #expect(try !key.isValidSignature(item.signature, for: item.message, hash: .sha512))
        var flipped = item.signature
        flipped[flipped.count - 1] ^= 1
        #expect(try !key.isValidSignature(flipped, for: item.message))
        #expect(try !key.isValidSignature(Array(item.signature.dropFirst()), for: item.message))
        #expect(try !key.isValidSignature(item.signature + [0], for: item.message))
        #expect(try !key.isValidSignature([], for: item.message))
        #expect(try !key.isValidSignature(item.signature, for: item.message + [0]))
    }

    @Test("short moduli and unusable exponents are refused with typed errors")
    func refusals() throws {
        let item = try #require(try Self.cases().first)
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try RSAPublicKey(modulus: Array(item.n.prefix(128)), exponent: [1, 0, 1])
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try RSAPublicKey(modulus: [0x80] + [UInt8](repeating: 1, count: 2048), exponent: [3])
        }
        for exponent: [UInt8] in [[], [0], [1], [2], [1, 0, 0], [UInt8](repeating: 0xFF, count: 9)] {
            #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try RSAPublicKey(modulus: item.n, exponent: exponent)
            }
        }
        // Leading zero bytes are not part of the size.
        #expect(try RSAPublicKey(modulus: [0, 0] + item.n, exponent: [0] + item.e).bitCount == item.bits)
    }
}
