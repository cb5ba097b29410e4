import AuthCore

/// A type that writes itself as a JSON object, member by member, without an `Encoder`: the app
/// server's hottest answers (the two login steps') take this path, each about 20 µs cheaper than
/// `JSONEncoder`'s.
///
/// The bytes must be exactly what ``ServiceJSON/encoder(keys:)`` writes for the same value (its
/// sorted member order, a `nil` optional left out, its string escapes): a conforming type lists
/// its members in that order, and a differential test holds each conforming type to the encoder's
/// output over edge-case values.
package protocol JSONObjectWritable {
    /// Writes the members, in the encoder's order.
    func writeMembers(to writer: inout JSONObjectWriter)
}

/// One compact JSON object, written as `JSONEncoder` writes it (swift-foundation's `JSONWriter`):
/// strings with `"`, `\` and `/` escaped, the control characters as `\b \t \n \f \r` or `\u00XX`
/// (lower-case hex), everything else as its UTF-8 bytes; integers in decimal; members in the order
/// written (`.sortedKeys` sorts names by their bytes: `M2` before `deviceToken`).
package struct JSONObjectWriter {
    package private(set) var bytes: [UInt8] = []
    private var first = true

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// `value` as a writer's object.
    package static func write(_ value: some JSONObjectWritable) -> [UInt8] {
        var writer = JSONObjectWriter()
        value.writeMembers(to: &writer)
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// A string member; nothing for `nil` (`encodeIfPresent`, as synthesised `Encodable` does).
    package mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// An integer member.
    package mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func key(_ name: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        // Member names are ASCII letters and digits: nothing to escape.
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    Hex.lowerDigit(byte >> 4), Hex.lowerDigit(byte & 0x0F),
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
