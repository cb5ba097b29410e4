/// Small allocation-free helpers for building canonical forms into `[UInt8]`.
extension Array where Element == UInt8 {
    /// Appends the lower-case hex of `bytes` (``Hex/write(_:to:uppercase:)``, through a stack buffer).
    @inline(__always)
    package mutating func appendHex(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        withUnsafeTemporaryAllocation(byteCount: 2 * bytes.count, alignment: 2) { digits in
            Hex.write(bytes, to: digits.baseAddress!)  // invariant: the allocation is exactly 2 · bytes.count bytes
            append(contentsOf: UnsafeRawBufferPointer(digits))
        }
    }
}

/// ASCII lower-casing of one byte.
@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
}

/// Whether two byte sequences are equal ignoring ASCII case.
func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
}

/// Whether two byte ranges of one buffer hold the same bytes.
@inline(__always)
func bytesEqual(_ buffer: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
    guard a.count == b.count else { return false }
    var i = a.lowerBound
    var j = b.lowerBound
    while i < a.upperBound {
        if buffer[i] != buffer[j] { return false }
        i += 1
        j += 1
    }
    return true
}

/// Lexicographic byte order of two ranges of one buffer.
@inline(__always)
func bytesLess(_ buffer: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
    var i = a.lowerBound
    var j = b.lowerBound
    while i < a.upperBound && j < b.upperBound {
        if buffer[i] != buffer[j] { return buffer[i] < buffer[j] }
        i += 1
        j += 1
    }
    return a.count < b.count
}
