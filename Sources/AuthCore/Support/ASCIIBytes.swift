/// Byte-level ASCII helpers for canonical forms: lower-casing and comparing ranges of one buffer.

/// ASCII lower-casing of one byte.
@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
}

/// Whether two byte sequences are equal ignoring ASCII case.
package func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
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

/// Whether the `count` bytes at `bytes` are exactly `text` (a lower-case ASCII name).
@inline(__always)
func asciiEqual(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ text: StaticString) -> Bool {
    guard count == text.utf8CodeUnitCount else { return false }
    let expected = text.utf8Start
    var i = 0
    while i < count {
        if bytes[i] != expected[i] { return false }
        i &+= 1
    }
    return true
}

/// Whether the `count` bytes at `bytes` start with `prefix`.
@inline(__always)
func asciiHasPrefix(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ prefix: StaticString) -> Bool {
    count >= prefix.utf8CodeUnitCount && asciiEqual(bytes, prefix.utf8CodeUnitCount, prefix)
}
