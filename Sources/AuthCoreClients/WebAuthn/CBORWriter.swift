/// The few CBOR items (RFC 8949) a WebAuthn authenticator writes: unsigned and negative integers,
/// byte and text strings, and maps whose entries the caller gives in CTAP2's canonical order
/// (shorter key first, then byte order: "CTAP2 canonical CBOR encoding form", CTAP 2.1 §8). Every
/// head is in its shortest form (RFC 8949 §4.2.1), as verifiers that re-encode a COSE key require.
package struct CBORWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// A head of major type `major` with argument `value`, shortest form (RFC 8949 §3).
    package mutating func head(_ major: UInt8, _ value: UInt64) {
        let type = major << 5
        switch value {
        case 0..<24: bytes.append(type | UInt8(value))
        case 24...0xFF: bytes += [type | 24, UInt8(value)]
        case 0x100...0xFFFF: bytes += [type | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            bytes += [type | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        default: bytes += [type | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
    }

    /// An integer: major type 0, or 1 for a negative one (`-1 - n`).
    package mutating func integer(_ value: Int64) {
        if value >= 0 { head(0, UInt64(value)) } else { head(1, UInt64(-(value + 1))) }
    }

    /// A byte string (major type 2).
    package mutating func byteString(_ value: some Collection<UInt8>) {
        head(2, UInt64(value.count))
        bytes += value
    }

    /// A text string (major type 3).
    package mutating func text(_ value: String) {
        head(3, UInt64(value.utf8.count))
        bytes += value.utf8
    }

    /// A map head for `count` entries (major type 5); the caller writes each key, then its value.
    package mutating func mapHead(_ count: Int) { head(5, UInt64(count)) }
}
