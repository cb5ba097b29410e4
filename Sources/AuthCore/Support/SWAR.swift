/// Byte-parallel tests on eight bytes in a `UInt64` ("SIMD within a register"; Hacker's Delight
/// ch. 6, and the `haszero`/`hasless` forms from Sean Anderson's Bit Twiddling Hacks).
package enum SWAR {
    package static let ones: UInt64 = 0x0101_0101_0101_0101
    package static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte is <= 0x20 (space, tab, CR, LF, NUL and the other control bytes).
    @inline(__always)
    package static func hasByteAtMost0x20(_ word: UInt64) -> Bool {
        (word &- ones &* 0x21) & ~word & highs != 0
    }

    /// Whether any byte is a control byte (< 0x20, or DEL 0x7F).
    @inline(__always)
    package static func hasControlByte(_ word: UInt64) -> Bool {
        let del = word ^ (ones &* 0x7F)
        return ((word &- ones &* 0x20) & ~word | (del &- ones) & ~del) & highs != 0
    }

    /// Whether any byte of `bytes` is a control byte (< 0x20, or DEL 0x7F), eight at a time.
    @inline(__always)
    package static func containsControlByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = UnsafeRawPointer(bytes.baseAddress) else { return false }
        var index = 0
        while index &+ 8 <= bytes.count {
            if hasControlByte(source.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return true }
            index &+= 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F { return true }
            index &+= 1
        }
        return false
    }

    /// The word with A–Z lower-cased when every byte is an ASCII letter, digit or `-`; nil otherwise.
    @inline(__always)
    package static func lowercasedIfSimpleToken(_ word: UInt64) -> UInt64? {
        guard word & highs == 0 else { return nil }  // ASCII only: the adds below cannot carry across bytes
        @inline(__always) func inRange(_ w: UInt64, _ low: UInt8, _ high: UInt8) -> UInt64 {
            // High bit of each byte set when low <= byte <= high (bytes < 0x80).
            (w &+ ones &* UInt64(0x80 &- low)) & ~(w &+ ones &* UInt64(0x7F &- high)) & highs
        }
        let upper = inRange(word, UInt8(ascii: "A"), UInt8(ascii: "Z"))
        let lowered = word | (upper >> 2)
        let dash = lowered ^ (ones &* UInt64(UInt8(ascii: "-")))
        let isDash = ~(((dash & ~highs) &+ ~highs) | dash) & highs  // exact per-byte zero test
        let accepted = inRange(lowered, UInt8(ascii: "a"), UInt8(ascii: "z")) | inRange(lowered, UInt8(ascii: "0"), UInt8(ascii: "9")) | isDash
        return accepted == highs ? lowered : nil
    }
}
