/// A set of ASCII bytes as a 128-bit mask: membership is a shift and a test, with no table to load,
/// retain or bounds-check (the canonicalisers ask it once per byte).
package struct ASCIISet: Sendable {
    /// Bit `b` set for byte `b` in 0..<64.
    package let low: UInt64
    /// Bit `b - 64` set for byte `b` in 64..<128.
    package let high: UInt64

    @inline(__always)
    package func contains(_ byte: UInt8) -> Bool { memberBit(byte) != 0 }

    /// 1 when `byte` is in the set, else 0, without branches (loops AND or OR these bits instead of
    /// short-circuiting, which keeps them free of data-dependent jumps).
    @inline(__always)
    package func memberBit(_ byte: UInt8) -> UInt64 {
        let word = byte < 64 ? low : high
        return (word &>> UInt64(byte)) & UInt64(1 &- (byte &>> 7))  // &>>: the shift is taken mod 64
    }

    /// RFC 3986 §2.3 unreserved: `A-Z a-z 0-9 - . _ ~` (the masks are checked against that list by
    /// `ASCIISetTests`).
    package static let unreserved = ASCIISet(low: 0x03FF_6000_0000_0000, high: 0x47FF_FFFE_87FF_FFFE)
    /// RFC 9110 §5.6.2 `tchar`: ``!#$%&'*+-.^_`|~``, digits and letters.
    package static let token = ASCIISet(low: 0x03FF_6CFA_0000_0000, high: 0x57FF_FFFF_C7FF_FFFE)
}

/// The lower-case hex pairs of 0...255 in order ("00" "01" … "ff"): one two-byte load per byte
/// from constant data (no array to retain or bounds-check), read by ``Hex/write(_:to:uppercase:)``.
/// Checked against computed digits by `SWARTests`.
package let lowerHexPairs: StaticString = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

/// Lower-case hex digit of a nibble, computed (no table).
@inline(__always)
package func lowerHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble &+ (nibble < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10)
}

/// Upper-case hex digit of a nibble, computed (no table).
@inline(__always)
package func upperHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble &+ (nibble < 10 ? UInt8(ascii: "0") : UInt8(ascii: "A") &- 10)
}
