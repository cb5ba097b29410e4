/// Byte-level ASCII helpers for canonical forms: lower-casing and comparing ranges of one buffer.

extension String {
    /// Whether every UTF-8 byte of the string satisfies `predicate`: on the bytes in place where
    /// the string is native (a tight loop), else through its UTF-8 view. The one home of this check
    /// on the signing paths (methods, header fields, scope parts, nonces, OSS names).
    @inlinable @inline(__always)
    package func utf8AllSatisfy(_ predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? utf8.allSatisfy(predicate)
    }
}

/// ASCII lower-casing of one byte.
@inlinable @inline(__always)
package func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
}

/// Whether two byte sequences are equal ignoring ASCII case. Inlinable: called across modules on
/// header names (`String.UTF8View`), where an unspecialised generic call cost more than the compare.
@inlinable
package func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var j = b.startIndex
    for byte in a {
        if asciiLowercase(byte) != asciiLowercase(b[j]) { return false }
        j = b.index(after: j)
    }
    return true
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

/// Text cut at ASCII bytes: the one way protocol text (URLs, header lines, `name=value` arguments,
/// paths) is split. A delimiter is found as a byte, so one joined to its neighbour in a grapheme
/// cluster (a combining mark after `=`, U+0600 before `/`) still delimits, as it does for every
/// other reader; cutting at an ASCII byte never splits a UTF-8 sequence, so the pieces decode as
/// they were written.
extension StringProtocol {
    /// The text before and after the first `delimiter` byte, nil when there is none.
    package func cutOnce(atFirst delimiter: UInt8) -> (before: String, after: String)? {
        let bytes = Array(utf8)
        guard let index = bytes.firstIndex(of: delimiter) else { return nil }
        return (
            String(decoding: bytes[..<index], as: UTF8.self), String(decoding: bytes[(index + 1)...], as: UTF8.self)
        )
    }

    /// The text before and after the last `delimiter` byte, nil when there is none.
    package func cutOnce(atLast delimiter: UInt8) -> (before: String, after: String)? {
        let bytes = Array(utf8)
        guard let index = bytes.lastIndex(of: delimiter) else { return nil }
        return (
            String(decoding: bytes[..<index], as: UTF8.self), String(decoding: bytes[(index + 1)...], as: UTF8.self)
        )
    }

    /// The pieces between `delimiter` bytes (empty pieces kept unless `omittingEmpty`).
    package func pieces(separatedBy delimiter: UInt8, omittingEmpty: Bool = false) -> [String] {
        Array(utf8).split(separator: delimiter, omittingEmptySubsequences: omittingEmpty).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Without ASCII spaces and tabs at either end (nothing else: Unicode white space is content).
    package var trimmingASCIISpaces: String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// ASCII lower-case (other bytes as they are): the one lower-casing of protocol names.
    package var asciiLowercased: String { String(decoding: utf8.map(asciiLowercase), as: UTF8.self) }
}
