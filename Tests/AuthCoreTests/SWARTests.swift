import AuthCore
import Testing

/// The word-at-a-time tests against their byte-at-a-time definitions: every byte value in every
/// lane (the other lanes holding a neutral letter), then words of random bytes.
@Suite("SWAR byte tests")
struct SWARTests {
    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    static func isSimpleToken(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
    }

    static func check(_ bytes: [UInt8]) {
        let w = word(bytes)
        #expect(SWAR.hasByteAtMost0x20(w) == bytes.contains(where: { $0 <= 0x20 }), "\(bytes)")
        #expect(SWAR.hasControlByte(w) == bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }), "\(bytes)")
        #expect(SWAR.hasByteAtMost0x20OrDEL(w) == bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }), "\(bytes)")
        let expected: UInt64? =
            bytes.allSatisfy(isSimpleToken)
            ? word(bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }) : nil
        #expect(SWAR.lowercasedIfSimpleToken(w) == expected, "\(bytes)")
        #expect(
            bytes.withUnsafeBufferPointer(SWAR.containsControlByte)
                == bytes.contains(where: { $0 < 0x20 || $0 == 0x7F })
        )
        for target in [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"), 0x00, 0x7F, 0xFF] {
            #expect(SWAR.equalMask(w, target) == word(bytes.map { $0 == target ? 0x80 : 0 }), "\(bytes) = \(target)")
        }
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        #expect((SWAR.unreservedOrSlashMask(w) == SWAR.highs) == bytes.allSatisfy(kept.contains), "\(bytes)")
        if bytes.allSatisfy({ $0 < 0x80 }) {
            #expect(SWAR.unreservedOrSlashMask(w) == word(bytes.map { kept.contains($0) ? 0x80 : 0 }), "\(bytes)")
            #expect(
                SWAR.rangeMask(w, 0x30, 0x39) == word(bytes.map { (0x30...0x39).contains($0) ? 0x80 : 0 }),
                "\(bytes)"
            )
        }
    }

    @Test("every byte value in every lane")
    func everyByteInEveryLane() {
        for lane in 0..<8 {
            for value in UInt8.min...UInt8.max {
                var bytes = [UInt8](repeating: UInt8(ascii: "m"), count: 8)
                bytes[lane] = value
                Self.check(bytes)
            }
        }
    }

    @Test("random words, and the control-byte scan on ragged lengths")
    func randomWords() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Bias towards the interesting ranges: controls, space, letters, digits, '-', DEL, high bytes.
            let pool: [UInt8] = [
                0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x5A,
                0x5B, 0x5E, 0x5F, 0x60, 0x61, 0x7A, 0x7B, 0x7D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF,
            ]
            let bytes = (0..<8).map { _ in
                Bool.random(using: &generator)
                    ? pool.randomElement(using: &generator)! : UInt8.random(in: 0x21...0x7E, using: &generator)
            }
            Self.check(bytes)
        }
        for length in 0..<40 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(!bytes.withUnsafeBufferPointer(SWAR.containsControlByte))
            if length > 0 {
                bytes[length - 1] = 0x7F
                #expect(bytes.withUnsafeBufferPointer(SWAR.containsControlByte))
            }
        }
    }

    @Test("partial loads pad the missing bytes")
    func partialLoads() {
        let bytes: [UInt8] = [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49]
        bytes.withUnsafeBytes { raw in
            for count in 0...8 {
                let expected = Self.word(Array(bytes[1..<(1 + count)]) + [UInt8](repeating: 0x61, count: 8 - count))
                #expect(
                    SWAR.loadPartial(raw.baseAddress!, offset: 1, count: count, padding: 0x61) == expected,
                    "\(count)"
                )
            }
        }
    }

    @Test("the hex pair table holds 00 ... ff")
    func hexPairTable() {
        let table = Hex.lowerPairs.withUTF8Buffer { Array($0) }
        #expect(table == Array(Hex.encode((0...255).map { UInt8($0) }).utf8))
    }
}
