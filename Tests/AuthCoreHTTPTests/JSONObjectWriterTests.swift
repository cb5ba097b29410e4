import Foundation
import Testing

@testable import AuthCoreHTTP

/// `JSONObjectWriter` against its oracle, Foundation's `JSONEncoder` in the package's set-up
/// (`ServiceJSON.encoder(keys: .asDeclared)`): the login answers must come out byte for byte as the
/// encoder writes them, whatever their strings hold.
@Suite("JSONObjectWriter: the login answers byte for byte as JSONEncoder writes them")
struct JSONObjectWriterTests {
    /// Edge-case strings: every ASCII byte alone (the control characters, `"`, `\`, `/`, DEL),
    /// non-ASCII (two-, three- and four-byte UTF-8, U+2028, a lone combining mark), empty, long.
    static let strings: [String] = {
        var strings = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        strings += [
            "", "é", "日本語", "😀", "\u{2028}\u{2029}", "\u{301}", "a\"b\\c/d\u{0}e\u{1F}f",
            String(repeating: "x/\"", count: 400),
        ]
        strings += [
            "f4c2a9", "2026-12-06T23:59:59Z", "h.0123456789abcdef0123456789abcdef01234567", "0123456789abcdef01234567",
        ]
        return strings
    }()

    /// Random strings from a fixed seed: printable ASCII, controls and multi-byte scalars mixed.
    static func randomStrings(count: Int) -> [String] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let scalars: [UInt32] = Array(0...0x7F) + [0xE9, 0x2028, 0x65E5, 0x1F600, 0xFEFF, 0x10FFFF]
        return (0..<count).map { _ in
            String(
                String.UnicodeScalarView(
                    (0..<Int(next() % 24)).compactMap { _ in UnicodeScalar(scalars[Int(next() % UInt64(scalars.count))])
                    }
                )
            )
        }
    }

    static func oracle(_ value: some Encodable) throws -> [UInt8] {
        Array(try ServiceJSON.encoder(keys: .asDeclared).encode(value))
    }

    /// Every edge-case and random string, each with a partner string, through `variants` answers
    /// per string: the writer's bytes against the oracle's for each; returns how many were compared.
    static func compareAll<Answer: JSONObjectWritable & Encodable>(
        variants: Int,
        _ make: (String, String, Int) -> Answer
    ) throws -> Int {
        let values = strings + randomStrings(count: 300)
        var compared = 0
        for (index, text) in values.enumerated() {
            let other = values[(index * 7 + 3) % values.count]
            for variant in 0..<variants {
                let answer = make(text, other, variant)
                #expect(
                    JSONObjectWriter.write(answer) == (try oracle(answer)),
                    "\(text.unicodeScalars.map { $0.value }) variant \(variant)"
                )
                compared += 1
            }
        }
        return compared
    }

    @Test("BeginAnswer: every edge-case and random string in every member, and group sizes from 0 to Int.max")
    func beginAnswer() throws {
        let groups = [0, 1024, 3072, -1, Int.max, Int.min]
        let compared = try Self.compareAll(variants: groups.count) { text, other, variant in
            SRPLoginWire.BeginAnswer(
                loginId: text,
                salt: other,
                serverPublicValue: text + other,
                group: groups[variant],
                hash: other
            )
        }
        #expect(compared == (Self.strings.count + 300) * groups.count)
    }

    @Test("FinishAnswer: every edge-case and random string, and every combination of absent members")
    func finishAnswer() throws {
        let compared = try Self.compareAll(variants: 16) { text, other, absent in
            SRPLoginWire.FinishAnswer(
                serverProof: text,
                username: absent & 1 == 0 ? other : nil,
                sessionToken: absent & 2 == 0 ? text : nil,
                expiresAt: absent & 4 == 0 ? other : nil,
                deviceToken: absent & 8 == 0 ? text + other : nil
            )
        }
        #expect(compared == (Self.strings.count + 300) * 16)
        // The writer's output for one known answer, spelled out (the oracle could change with Foundation).
        let known = SRPLoginWire.FinishAnswer(
            serverProof: "ab",
            username: "a/b",
            sessionToken: nil,
            expiresAt: "2026",
            deviceToken: "\u{1}"
        )
        #expect(
            String(decoding: JSONObjectWriter.write(known), as: UTF8.self)
                == #"{"M2":"ab","deviceToken":"\u0001","expiresAt":"2026","username":"a\/b"}"#
        )
    }
}
