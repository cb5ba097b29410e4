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
        var key: [UInt8] = [isIPv4 ? 4 : 6, UInt8(truncatingIfNeeded: kept)]
        for (index, byte) in bytes.enumerated() {
            let bitsHere = Swift.max(0, Swift.min(8, kept - index * 8))
            key.append(bitsHere == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere)))
        }
        return key
    }

    /// Dotted IPv4 or uncompressed hexadecimal IPv6 (logs and messages).
    public var description: String {
        if isIPv4 { return bytes.map { String($0) }.joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
