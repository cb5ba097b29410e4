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
