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

    /// The lower-case hex pairs of 0...255 in order ("00" "01" … "ff"): one two-byte load per byte
    /// from constant data (no array to retain or bounds-check), read by ``write(_:to:uppercase:)``.
    /// Checked against computed digits by `SWARTests`.
    package static let lowerPairs: StaticString =
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

    /// The lower-case hex digit of a nibble (0...15), computed (no table).
    @inline(__always)
    package static func lowerDigit(_ nibble: UInt8) -> UInt8 {
        nibble &+ (nibble < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10)
    }

    /// Whether `byte` is one of the digits `encode` writes by default: `0-9`, `a-f`.
    @inline(__always)
    package static func isLowerDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// The upper-case hex digit of a nibble (0...15), computed (no table): percent-encoding's `%XX`.
    @inline(__always)
    package static func upperDigit(_ nibble: UInt8) -> UInt8 {
        nibble &+ (nibble < 10 ? UInt8(ascii: "0") : UInt8(ascii: "A") &- 10)
    }

    /// Writes the hex of `bytes` to exactly `2 · bytes.count` bytes at `destination`: the one hex
    /// encoder of the package (``encode(_:uppercase:)``, the canonical-request writer, URI building).
    ///
    /// Lower case is one two-byte load per byte from ``lowerPairs``; upper case computes digits.
    ///
    /// - Precondition: `destination` has room for `2 · bytes.count` bytes (the callers size it).
    @inline(__always)
    static func write(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer, uppercase: Bool = false)
    {
        var offset = 0
        if uppercase {
            for byte in bytes {
                destination.storeBytes(of: upperDigit(byte >> 4), toByteOffset: offset, as: UInt8.self)
                destination.storeBytes(of: upperDigit(byte & 0x0F), toByteOffset: offset &+ 1, as: UInt8.self)
                offset &+= 2
            }
            return
        }
        let pairs = UnsafeRawPointer(lowerPairs.utf8Start)  // invariant: 512 bytes, pair i at offset 2i (i < 256)
        for byte in bytes {
            destination.storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: Int(byte) &<< 1, as: UInt16.self),
                toByteOffset: offset,
                as: UInt16.self
            )
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
        if let encoded = bytes.withContiguousStorageIfAvailable({
            encode(UnsafeRawBufferPointer($0), uppercase: uppercase)
        }) {
            return encoded
        }
        return Array(bytes).withUnsafeBytes { encode($0, uppercase: uppercase) }
    }

    /// Decodes an even-length hex string.
    ///
    /// - Parameters:
    ///   - text: the hex digits.
    ///   - field: the name used in the error reason (never the value).
    ///   - allowEmpty: whether `""` decodes to no bytes (default: it is an error).
    /// - Throws: ``AuthCoreError/Code/invalidHex``.
    public static func decode(
        _ text: some StringProtocol,
        field: String = "hex",
        allowEmpty: Bool = false
    )
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
    public static func decodeNumber(_ text: some StringProtocol, field: String = "hex") throws(AuthCoreError) -> [UInt8]
    {
        var utf8 = Array(text.utf8)
        defer { utf8.secureZeroize() }
        return try decode(utf8: utf8, field: field, allowEmpty: false, allowOddLength: true)
    }

    static func decode(
        utf8: [UInt8],
        field: String,
        allowEmpty: Bool,
        allowOddLength: Bool
    )
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
