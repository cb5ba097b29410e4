public import AuthCore

/// The network address a request came from, as bytes: 4 for IPv4, 16 for IPv6 (an IPv4-mapped
/// IPv6 address, `::ffff:a.b.c.d`, is its IPv4 address). Abuse limits count per address and per
/// network; an identity is never keyed by its text.
public struct ClientAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address's bytes, network order.
    public let bytes: [UInt8]

    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for another length.
    public init(bytes: [UInt8]) throws(AuthCoreError) {
        switch bytes.count {
        case 4: self.bytes = bytes
        case 16:
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            self.bytes = mapped ? Array(bytes[12...]) : bytes
        default: throw AuthCoreError(.invalidParameter, "an IP address is 4 or 16 bytes, not \(bytes.count)")
        }
    }

    /// An IPv4 address from its four parts.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { bytes = [a, b, c, d] }

    /// Whether it is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The first `bits` bits, the rest zero, with a first byte telling the family (so an IPv4
    /// network and an IPv6 one never share a key).
    public func network(prefixBits bits: Int) -> [UInt8] {
        let kept = Swift.max(0, Swift.min(bits, bytes.count * 8))
        var key: [UInt8] = []
        key.reserveCapacity(2 + bytes.count)  // one allocation (an asked-for key per login step)
        key.append(isIPv4 ? 4 : 6)
        key.append(UInt8(truncatingIfNeeded: kept))
        for (index, byte) in bytes.enumerated() {
            let bitsHere = Swift.max(0, Swift.min(8, kept - index * 8))
            key.append(bitsHere == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere)))
        }
        return key
    }

    /// Dotted IPv4 or uncompressed hexadecimal IPv6 (logs and messages).
    /// Written into the string's own buffer (every access line names its peer): no string per part.
    public var description: String {
        // At most 39 bytes: eight groups of four hex digits and seven colons.
        String(unsafeUninitializedCapacity: 39) { text in
            var count = 0
            @inline(__always) func append(_ byte: UInt8) {
                text[count] = byte
                count += 1
            }
            if isIPv4 {
                for (index, byte) in bytes.enumerated() {
                    if index > 0 { append(UInt8(ascii: ".")) }
                    if byte >= 100 { append(UInt8(ascii: "0") + byte / 100) }
                    if byte >= 10 { append(UInt8(ascii: "0") + byte / 10 % 10) }
                    append(UInt8(ascii: "0") + byte % 10)
                }
            } else {
                for group in 0..<8 {
                    if group > 0 { append(UInt8(ascii: ":")) }
                    let value = UInt16(bytes[2 * group]) << 8 | UInt16(bytes[2 * group + 1])
                    var started = false
                    for shift in stride(from: 12, through: 0, by: -4) {
                        let digit = UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0x0F
                        // Lower-case hex without leading zeros, as String(_:radix: 16) wrote it.
                        if digit != 0 || started || shift == 0 {
                            append(Hex.lowerDigit(digit))
                            started = true
                        }
                    }
                }
            }
            return count
        }
    }
}
