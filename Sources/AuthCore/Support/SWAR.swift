/// Byte-parallel tests on eight bytes in a `UInt64` ("SIMD within a register"; Hacker's Delight
/// ch. 6, and the `haszero`/`hasless` forms from Sean Anderson's Bit Twiddling Hacks).
package enum SWAR {
    package static let ones: UInt64 = 0x0101_0101_0101_0101
    package static let highs: UInt64 = 0x8080_8080_8080_8080

    /// 0x80 in each byte equal to `byte`, 0 in the others (exact: no borrow between bytes).
    @inline(__always)
    package static func equalMask(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return ~(((x & ~highs) &+ ~highs) | x) & highs
    }

    /// 0x80 in each byte within `low...high`, for words of ASCII bytes (< 0x80) only.
    @inline(__always)
    package static func rangeMask(_ word: UInt64, _ low: UInt8, _ high: UInt8) -> UInt64 {
        (word &+ ones &* UInt64(0x80 &- low)) & ~(word &+ ones &* UInt64(0x7F &- high)) & highs
    }

    /// Up to eight bytes from `source + offset` as a word (first byte lowest), the missing high
    /// bytes filled with `padding`: the last bytes of a field go through the same word tests.
    /// Two overlapping loads cover any count from 1 to 8 without a byte loop (bytes read twice
    /// are the same bytes, so OR-ing them is harmless).
    @inline(__always)
    package static func loadPartial(_ source: UnsafeRawPointer, offset: Int, count: Int, padding: UInt8) -> UInt64 {
        let start = source + offset
        let word: UInt64
        if count >= 8 {
            return UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))
        } else if count >= 4 {
            let low = UInt64(UInt32(littleEndian: start.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: start.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
            word = low | high &<< UInt64((count &- 4) &* 8)
        } else if count >= 2 {
            let low = UInt64(UInt16(littleEndian: start.loadUnaligned(as: UInt16.self)))
            let high = UInt64(UInt16(littleEndian: start.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)))
            word = low | high &<< UInt64((count &- 2) &* 8)
        } else if count == 1 {
            word = UInt64(start.load(as: UInt8.self))
        } else {
            return ones &* UInt64(padding)
        }
        let filled = UInt64.max &>> UInt64((8 &- count) &* 8)  // the low `count` bytes
        return word | (ones &* UInt64(padding)) & ~filled
    }

    /// Whether any byte is <= 0x20 (space, tab, CR, LF, NUL and the other control bytes).
    @inline(__always)
    package static func hasByteAtMost0x20(_ word: UInt64) -> Bool {
        (word &- ones &* 0x21) & ~word & highs != 0
    }

    /// Whether any byte is <= 0x20 or is DEL 0x7F (a header value's bytes that need a closer look).
    @inline(__always)
    package static func hasByteAtMost0x20OrDEL(_ word: UInt64) -> Bool {
        let del = word ^ (ones &* 0x7F)
        return ((word &- ones &* 0x21) & ~word | (del &- ones) & ~del) & highs != 0
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
        guard word & highs == 0 else { return nil }  // ASCII only: the adds in rangeMask cannot carry across bytes
        let upper = rangeMask(word, UInt8(ascii: "A"), UInt8(ascii: "Z"))
        let lowered = word | (upper >> 2)
        let accepted =
            rangeMask(lowered, UInt8(ascii: "a"), UInt8(ascii: "z"))
            | rangeMask(lowered, UInt8(ascii: "0"), UInt8(ascii: "9"))
            | equalMask(lowered, UInt8(ascii: "-"))
        return accepted == highs ? lowered : nil
    }

    /// 0x80 in each byte that a canonical URI path keeps as it is (RFC 3986 unreserved, and `/`).
    @inline(__always)
    package static func unreservedOrSlashMask(_ word: UInt64) -> UInt64 {
        let ascii = ~word & highs
        return
            (rangeMask(word, UInt8(ascii: "A"), UInt8(ascii: "Z"))
            | rangeMask(word, UInt8(ascii: "a"), UInt8(ascii: "z"))
            | rangeMask(word, UInt8(ascii: "0"), UInt8(ascii: "9"))
            | rangeMask(word, UInt8(ascii: "-"), UInt8(ascii: "/"))
            | equalMask(word, UInt8(ascii: "_")) | equalMask(word, UInt8(ascii: "~"))) & ascii
    }
}
