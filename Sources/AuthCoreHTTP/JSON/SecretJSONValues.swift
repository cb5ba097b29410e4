package import AuthCore

/// Secrets a JSON text must carry — a request body (the `PASSWORD` of `USER_PASSWORD_AUTH`,
/// `SignUp`'s password, a `ClientSecret`) or the CLI's output of a secret key — kept out of every
/// `String` and encoder copy: the value encoded holds a placeholder for each, and afterwards each
/// placeholder's JSON string is replaced by its secret, escaped (RFC 8259 §7), in wiping storage
/// (the ``HTTPBody/secret(_:)`` body the transport sends from, the bytes the CLI writes).
///
/// A placeholder carries a random 128-bit nonce, so no other value (a username) can be one; each
/// must appear exactly once, as a whole JSON string, or the text is refused.
package struct SecretJSONValues: Sendable {
    private var entries: [(placeholder: [UInt8], value: SecureBytes)] = []
    private let nonce: String

    /// - Throws: `AuthCoreError.Code.randomFailure` when no randomness is available.
    package init(random: any SecureRandomGenerator = SystemRandom()) throws(AuthCoreError) {
        nonce = try random.secureBytes(count: 16).withUnsafeBytes { Hex.encode($0) }
    }

    /// Whether no secret was added.
    package var isEmpty: Bool { entries.isEmpty }

    /// The text to put in the request value where `secret` goes.
    package mutating func placeholder(for secret: SecureBytes) -> String {
        let text = "authcore-secret-\(entries.count)-\(nonce)"
        entries.append((Array(text.utf8), secret))
        return text
    }

    /// `body` (the encoded text) with each placeholder's JSON string holding its secret instead.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a secret that is not UTF-8;
    ///   `AuthCoreError.Code.malformedRequest` when a placeholder is not in `body` exactly once.
    package func splice(into body: [UInt8]) throws(AuthCoreError) -> SecureBytes {
        var places: [(start: Int, end: Int, value: SecureBytes)] = []
        for entry in entries {
            guard entry.value.withUnsafeBytes({ isValidUTF8($0) }) else {
                throw AuthCoreError(.invalidParameter, "a secret to send or print is not UTF-8")
            }
            let found = Self.occurrences(of: [UInt8(ascii: "\"")] + entry.placeholder + [UInt8(ascii: "\"")], in: body)
            guard found.count == 1, let start = found.first else {
                throw AuthCoreError(.malformedRequest, "a secret's place in the JSON text is not found exactly once")
            }
            // Between the quotes: the quotes stay.
            places.append((start + 1, start + 1 + entry.placeholder.count, entry.value))
        }
        places.sort { $0.start < $1.start }
        var length = body.count
        for place in places { length += place.value.withUnsafeBytes(Self.escapedCount) - (place.end - place.start) }
        return SecureBytes(count: length) { output in
            var written = 0
            var copied = 0
            func copy(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: output[written..<(written + bytes.count)]).copyMemory(
                    from: bytes
                )
                written += bytes.count
            }
            body.withUnsafeBytes { source in
                for place in places {
                    copy(UnsafeRawBufferPointer(rebasing: source[copied..<place.start]))
                    place.value.withUnsafeBytes { secret in written = Self.escape(secret, into: output, at: written) }
                    copied = place.end
                }
                copy(UnsafeRawBufferPointer(rebasing: source[copied..<source.count]))
            }
            assert(written == output.count)
        }
    }

    /// The starts of every occurrence of `needle` in `haystack`.
    package static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard needle.count <= haystack.count else { return [] }
        return (0...(haystack.count - needle.count)).filter { start in
            haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// The length of `bytes` as JSON string content: `"` and `\` take two bytes, other control
    /// characters six (`\u00XX`), everything else one.
    package static func escapedCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.reduce(0) { count, byte in
            count + (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : byte < 0x20 ? 6 : 1)
        }
    }

    /// Writes `bytes` escaped at `offset` of `output`; returns the offset after them.
    package static func escape(
        _ bytes: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        at offset: Int
    ) -> Int {
        var at = offset
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output[at] = UInt8(ascii: "\\")
                output[at + 1] = byte
                at += 2
            case 0x00..<0x20:
                output[at] = UInt8(ascii: "\\")
                output[at + 1] = UInt8(ascii: "u")
                output[at + 2] = UInt8(ascii: "0")
                output[at + 3] = UInt8(ascii: "0")
                output[at + 4] = Hex.lowerDigit(byte >> 4)
                output[at + 5] = Hex.lowerDigit(byte & 15)
                at += 6
            default:
                output[at] = byte
                at += 1
            }
        }
        return at
    }
}
