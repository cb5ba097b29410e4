/// Hexadecimal encoding and strict decoding.
///
/// Decoding accepts upper- and lower-case digits, rejects anything else (spaces, `0x` prefixes,
/// odd lengths) with ``AuthCoreError/Code/invalidHex``, and by default rejects the empty string.
public enum Hex {
    /// Value of an ASCII hex digit, or 0xFF.
    @usableFromInline static let digitValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "0123456789".utf8.enumerated() { table[Int(c)] = UInt8(i) }
        for (i, c) in "abcdef".utf8.enumerated() { table[Int(c)] = UInt8(10 + i) }
        for (i, c) in "ABCDEF".utf8.enumerated() { table[Int(c)] = UInt8(10 + i) }
        return table
    }()

    /// Writes the hex of `bytes` to exactly `2 · bytes.count` bytes at `destination`: the one hex
    /// encoder of the package (``encode(_:uppercase:)``, the canonical-request writer, URI building).
    ///
    /// Lower case is one two-byte load per byte from ``lowerHexPairs``; upper case computes digits.
    ///
    /// - Precondition: `destination` has room for `2 · bytes.count` bytes (the callers size it).
    @inline(__always)
    static func write(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer, uppercase: Bool = false) {
        var offset = 0
        if uppercase {
            for byte in bytes {
                destination.storeBytes(of: upperHexDigit(byte >> 4), toByteOffset: offset, as: UInt8.self)
                destination.storeBytes(of: upperHexDigit(byte & 0x0F), toByteOffset: offset &+ 1, as: UInt8.self)
                offset &+= 2
            }
            return
        }
        let pairs = UnsafeRawPointer(lowerHexPairs.utf8Start)  // invariant: 512 bytes, pair i at offset 2i (i < 256)
        for byte in bytes {
            destination.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(byte) &<< 1, as: UInt16.self), toByteOffset: offset, as: UInt16.self)
            offset &+= 2
        }
    }

    /// Encodes bytes as hex.
    public static func encode(_ bytes: UnsafeRawBufferPointer, uppercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            // invariant: the capacity is 2 · bytes.count, exactly what write fills.
            if let base = out.baseAddress { write(bytes, to: UnsafeMutableRawPointer(base), uppercase: uppercase) }
            return bytes.count * 2
        }
    }

    /// Encodes bytes as hex.
    public static func encode(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0), uppercase: uppercase) }) { return encoded }
        return Array(bytes).withUnsafeBytes { encode($0, uppercase: uppercase) }
    }

    /// Decodes an even-length hex string.
    ///
    /// - Parameters:
    ///   - text: the hex digits.
    ///   - field: the name used in the error reason (never the value).
    ///   - allowEmpty: whether `""` decodes to no bytes (default: it is an error).
    /// - Throws: ``AuthCoreError/Code/invalidHex``.
    public static func decode(_ text: some StringProtocol, field: String = "hex", allowEmpty: Bool = false)
        throws(AuthCoreError) -> [UInt8]
    {
        var utf8 = Array(text.utf8)
        defer { utf8.secureZeroize() }
        return try decode(utf8: utf8, field: field, allowEmpty: allowEmpty, allowOddLength: false)
    }

    /// Decodes hex that may have an odd number of digits (a leading `0` is implied), as big
    /// integers are written.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidHex`` for bad digits or an empty string.
    public static func decodeNumber(_ text: some StringProtocol, field: String = "hex") throws(AuthCoreError) -> [UInt8] {
        var utf8 = Array(text.utf8)
        defer { utf8.secureZeroize() }
        return try decode(utf8: utf8, field: field, allowEmpty: false, allowOddLength: true)
    }

    static func decode(utf8: [UInt8], field: String, allowEmpty: Bool, allowOddLength: Bool)
        throws(AuthCoreError) -> [UInt8]
    {
        if utf8.isEmpty {
            if allowEmpty { return [] }
            throw AuthCoreError(.invalidHex, "\(field): empty")
        }
        let odd = utf8.count % 2 == 1
        if odd && !allowOddLength {
            throw AuthCoreError(.invalidHex, "\(field): odd number of hex digits (\(utf8.count))")
        }
        let table = digitValues
        var out = [UInt8](repeating: 0, count: (utf8.count + 1) / 2)
        var index = 0
        var outIndex = 0
        if odd {
            let v = table[Int(utf8[0])]
            guard v != 0xFF else { throw AuthCoreError(.invalidHex, "\(field): invalid hex digit at offset 0") }
            out[0] = v
            index = 1
            outIndex = 1
        }
        while index < utf8.count {
            let hi = table[Int(utf8[index])]
            let lo = table[Int(utf8[index + 1])]
            guard hi | lo != 0xFF, hi != 0xFF, lo != 0xFF else {
                out.secureZeroize()
                let at = hi == 0xFF ? index : index + 1
                throw AuthCoreError(.invalidHex, "\(field): invalid hex digit at offset \(at)")
            }
            out[outIndex] = hi << 4 | lo
            index += 2
            outIndex += 1
        }
        return out
    }
}

/// Hex appended to a growing byte array (URI building).
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
