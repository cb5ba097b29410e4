import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("Hex and Base64 codecs")
struct CodecTests {
    /// A naive reference encoder (digits from a string, one nibble at a time).
    static func naiveHex(_ bytes: [UInt8], uppercase: Bool) -> String {
        let digits = Array(uppercase ? "0123456789ABCDEF" : "0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    @Test(
        "the one hex encoder (Hex.encode, the canonical-request writer, Array.appendHex) agrees with a naive one on every byte and random inputs"
    )
    func hexDifferential() {
        let every = (0...255).map { UInt8($0) }
        #expect(Hex.encode(every) == Self.naiveHex(every, uppercase: false))
        #expect(Hex.encode(every, uppercase: true) == Self.naiveHex(every, uppercase: true))
        #expect(Hex.encode([UInt8]()) == "")
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 7, 31, 32, 33, 64, 200] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Hex.encode(bytes) == Self.naiveHex(bytes, uppercase: false))
            #expect(Hex.encode(bytes[...]) == Self.naiveHex(bytes, uppercase: false), "a non-Array collection")
            var appended: [UInt8] = Array("x=".utf8)
            bytes.withUnsafeBytes { appended.appendHex($0) }
            #expect(String(decoding: appended, as: UTF8.self) == "x=" + Self.naiveHex(bytes, uppercase: false))
        }
        var empty: [UInt8] = []
        [UInt8]().withUnsafeBytes { empty.appendHex($0) }
        #expect(empty.isEmpty)
    }
    @Test("hex round trip, upper and lower case")
    func hexRoundTrip() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0xab, 0xff]
        #expect(Hex.encode(bytes) == "0001abff")
        #expect(Hex.encode(bytes, uppercase: true) == "0001ABFF")
        #expect(try Hex.decode("0001ABff") == bytes)
        #expect(try Hex.decodeNumber("abc") == [0x0a, 0xbc])
    }

    @Test(
        "malformed hex is rejected with invalidHex",
        arguments: ["abc", "zz", "0x00", " 00", "00 ", "", "g0", "0\u{e9}"]
    )
    func malformedHex(text: String) {
        #expect(errorCode { try Hex.decode(text) } == .invalidHex)
    }

    @Test("empty hex is accepted only when allowed")
    func emptyHex() throws {
        #expect(try Hex.decode("", allowEmpty: true) == [])
        #expect(errorCode { try Hex.decodeNumber("") } == .invalidHex)
    }

    @Test("hex error reasons name the field, never the value")
    func hexReason() {
        do {
            _ = try Hex.decode("secretzz", field: "password_hex")
            Issue.record("expected an error")
        } catch {
            #expect(error.reason.contains("password_hex"))
            #expect(!error.reason.contains("secret"))
        }
    }

    // RFC 4648 §10 test vectors.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("Base64 matches RFC 4648 §10", arguments: rfc4648)
    func base64Vectors(plain: String, encoded: String) throws {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded, allowEmpty: true) == Array(plain.utf8))
    }

    @Test("URL-safe Base64 uses - and _, omits padding, and decodes with or without it")
    func base64URLSafe() throws {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0xfe]
        #expect(Base64.encode(bytes) == "+/+//g==")
        #expect(Base64.encode(bytes, alphabet: .urlSafe) == "-_-__g")
        #expect(try Base64.decode("-_-__g", alphabet: .urlSafe) == bytes)
        #expect(try Base64.decode("-_-__g==", alphabet: .urlSafe) == bytes)
    }

    @Test(
        "malformed Base64 is rejected with invalidBase64",
        arguments: [
            ("Zg=", Base64.Alphabet.standard),  // length not a multiple of 4
            ("Zg", .standard),  // standard requires padding
            ("Z===", .standard),  // impossible length
            ("Zm9v!A==", .standard),  // bad character
            ("Zh==", .standard),  // non-canonical trailing bits
            ("=Zm9", .standard),  // misplaced padding
            ("-_-_", .standard),  // URL-safe characters in the standard alphabet
            ("+/+/", .urlSafe),  // standard characters in the URL-safe alphabet
            ("Zm9vY", .urlSafe),  // impossible length
            ("", .standard),  // empty
        ]
    )
    func malformedBase64(text: String, alphabet: Base64.Alphabet) {
        #expect(errorCode { try Base64.decode(text, alphabet: alphabet) } == .invalidBase64)
    }

    @Test("a UUID (as moto sends for SECRET_BLOCK) is not Base64")
    func uuidIsNotBase64() {
        #expect(errorCode { try Base64.decode("0f5e3c2a-1b4d-4e6f-8a9b-0c1d2e3f4a5b") } == .invalidBase64)
    }
}

@Suite("Constant-time comparison, SecureBytes, randomness, errors")
struct SupportTests {
    @Test("constantTimeEqual compares contents and lengths")
    func constantTime() {
        #expect(constantTimeEqual([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEqual([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!constantTimeEqual([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(constantTimeEqual([] as [UInt8], [] as [UInt8]))
    }

    @Test("SecureBytes never prints its contents and copies on write")
    func secureBytes() {
        var secret = SecureBytes(Array("hunter2".utf8))
        #expect(secret.description == "SecureBytes(7 bytes)")
        #expect("\(secret)" == "SecureBytes(7 bytes)")
        #expect(!String(reflecting: secret).contains("hunter2"))
        let copy = secret
        secret.append(contentsOf: Array("!".utf8))
        #expect(copy.count == 7)
        #expect(secret.count == 8)
        #expect(secret.withUnsafeBytes { Array($0) } == Array("hunter2!".utf8))
        #expect(copy == SecureBytes(Array("hunter2".utf8)))
        #expect(copy != secret)
    }

    @Test("SystemRandom fills buffers; two draws differ")
    func systemRandom() throws {
        let a = try SystemRandom().secureBytes(count: 32)
        let b = try SystemRandom().secureBytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test("an injected generator is used and its failure surfaces as randomFailure")
    func injectedRandom() throws {
        let first = try SeededRandom(seed: 7).secureBytes(count: 16)
        let second = try SeededRandom(seed: 7).secureBytes(count: 16)
        #expect(first == second)
        #expect(errorCode { try FailingRandom().secureBytes(count: 16) } == .randomFailure)
    }

    @Test("AuthCoreError compares by code and describes code, reason and location")
    func errors() {
        let a = AuthCoreError(.invalidHex, "x_hex: odd number of hex digits (3)")
        let b = AuthCoreError(.invalidHex, "something else")
        #expect(a == b)
        #expect(a != AuthCoreError(.invalidBase64, "x"))
        #expect(
            a.description.hasPrefix(
                "AuthCoreError.invalidHex: x_hex: odd number of hex digits (3) AuthCoreTests/CodecTests.swift:"
            )
        )
        #expect(AuthCoreError.Code.proofMismatch.description == "proofMismatch")
    }
}
