package import AuthCore

/// The secret members of a JSON answer (a secret key), taken out of the wiping buffer the answer
/// arrived in before anything else reads it, so no `String`, `Data` or decoder copy of the secret
/// is ever made: each secret string value is unescaped into ``SecureBytes``, and the rest of the
/// document, with each of those values replaced by `""`, goes on to `JSONDecoder`
/// (``ServiceJSON/decode(_:from:secretMembers:context:keys:)``).
///
/// The scan follows the grammar of RFC 8259 (§2 structure, §4 objects, §5 arrays, §6 numbers,
/// §7 strings) strictly enough to find members by their path: every string is checked for control
/// characters and its escapes, and the decoder then checks the redacted document whole. Member
/// names are compared unescaped and spelled as the decoder reads them. A secret member that
/// appears twice (which value would a reader take?) is refused, as is a secret that is not UTF-8. Nesting deeper than
/// ``maximumDepth`` is refused.
package struct SecretJSONMembers {
    /// The document with every secret member's value replaced by `""`: no secret bytes are left in it.
    package let redacted: [UInt8]
    /// The value at each path, unescaped, in the order the paths were given; nil where a path is
    /// absent or its value is not a string (the decoder then names the problem).
    package let values: [SecureBytes?]

    /// The deepest nesting of objects and arrays read.
    package static let maximumDepth = 128

    /// The members at `paths` (member names as written on the wire, outermost first; objects only,
    /// no array elements).
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` naming `context` when the document is not
    ///   JSON, nests too deep, has a secret member twice or a secret that is not UTF-8.
    ///
    /// With `keys` ``ServiceJSON/Keys/pascalCase`` names are compared as the decoder reads them
    /// (first letter lower-cased), so `secretKey` and `SecretKey` are the same member to both, and
    /// both spellings in one object are a duplicate.
    package init(
        parsing document: SecureBytes,
        paths: [[String]],
        context: String,
        keys: ServiceJSON.Keys = .pascalCase
    ) throws(AuthCoreError) {
        var scanner = Scanner(paths: paths, lowersFirstLetters: keys == .pascalCase)
        do throws(Scanner.Failure) {
            try document.withUnsafeBytes { (bytes) throws(Scanner.Failure) in try scanner.scanDocument(bytes) }
        } catch {
            throw AuthCoreError(.malformedResponse, "\(context): \(error.reason)")
        }
        redacted = scanner.redacted
        values = scanner.values
    }
}

extension SecretJSONMembers {
    /// A single pass over the document: structure, strings and their escapes, the member path.
    package struct Scanner {
        package struct Failure: Error {
            let reason: String
            package static let notJSON = Failure(reason: "the answer is not JSON")
        }

        /// The paths, spelled as the decoder reads names.
        let paths: [[String]]
        /// The paths as given (for messages).
        let givenPaths: [[String]]
        /// Whether the decoder lower-cases the first letter of each name (``ServiceJSON/Keys/pascalCase``).
        let lowersFirstLetters: Bool
        var values: [SecureBytes?]
        var redacted: [UInt8] = []
        /// The member names from the root to the value being read; nil for an array element
        /// (no path goes through one).
        var path: [String?] = []
        /// The document bytes before this offset have been copied to `redacted` (or left out).
        var copiedUpTo = 0
        var index = 0
        /// The path of an object whose member names are collected (``JSONMemberNames``), if any.
        var namesPath: [String]?
        /// That object's member names, unescaped, in document order (each once: a repeat is refused).
        var names: [[UInt8]] = []
        /// The same names as a set, for the repeat check (a body of thousands of short names must
        /// not cost a comparison with every earlier one).
        private var seenNames: Set<[UInt8]> = []
        /// Whether that object's string values are kept too (``JSONMemberNames/rootMembers(of:)``).
        var keepsStrings = false
        /// With ``keepsStrings``, each member's string value, unescaped (nil for a value that is not
        /// a string), in the order of ``names``.
        var strings: [[UInt8]?] = []

        package init(paths: [[String]], lowersFirstLetters: Bool) {
            self.lowersFirstLetters = lowersFirstLetters
            self.givenPaths = paths
            self.paths = paths.map { path in path.map { Self.spelling($0, lowersFirstLetters: lowersFirstLetters) } }
            self.values = Array(repeating: nil, count: paths.count)
        }

        /// A member name as the decoder reads it.
        package static func spelling(_ name: String, lowersFirstLetters: Bool) -> String {
            lowersFirstLetters ? ServiceJSON.camelCase(name) : name
        }

        package mutating func scanDocument(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
            redacted.reserveCapacity(bytes.count)
            // A UTF-8 byte order mark may open the document (RFC 8259 §8.1 lets a reader ignore it,
            // and JSONDecoder does): left out of the redacted copy.
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                index = 3
                copiedUpTo = 3
            }
            skipWhitespace(bytes)
            try scanValue(bytes, depth: 0)
            skipWhitespace(bytes)
            guard index == bytes.count else { throw .notJSON }
            redacted.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copiedUpTo..<bytes.count]))
        }

        private mutating func skipWhitespace(_ bytes: UnsafeRawBufferPointer) {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func expect(_ byte: UInt8, _ bytes: UnsafeRawBufferPointer) throws(Failure) {
            guard index < bytes.count, bytes[index] == byte else { throw .notJSON }
            index += 1
        }

        private mutating func scanValue(_ bytes: UnsafeRawBufferPointer, depth: Int) throws(Failure) {
            guard index < bytes.count else { throw .notJSON }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < SecretJSONMembers.maximumDepth else { throw Failure(reason: "the answer nests too deep") }
                try scanObject(bytes, depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < SecretJSONMembers.maximumDepth else { throw Failure(reason: "the answer nests too deep") }
                try scanArray(bytes, depth: depth + 1)
            case UInt8(ascii: "\""):
                if let slot = secretSlot() {
                    try takeSecret(bytes, slot: slot)
                } else {
                    var sink = DiscardingSink()
                    try scanString(bytes, into: &sink)
                }
            case UInt8(ascii: "t"): try scanLiteral("true", bytes)
            case UInt8(ascii: "f"): try scanLiteral("false", bytes)
            case UInt8(ascii: "n"): try scanLiteral("null", bytes)
            default: try scanNumber(bytes)
            }
        }

        private mutating func scanObject(_ bytes: UnsafeRawBufferPointer, depth: Int) throws(Failure) {
            guard !opensEmpty(closedBy: UInt8(ascii: "}"), bytes) else { return }
            let collecting =
                namesPath.map { wanted in wanted.count == path.count && zip(wanted, path).allSatisfy { $0 == $1 } }
                ?? false
            repeat {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .notJSON }
                var name = ArraySink()
                try scanString(bytes, into: &name)
                if collecting {
                    guard seenNames.insert(name.bytes).inserted else {
                        throw Failure(reason: "a member name appears twice")
                    }
                    names.append(name.bytes)
                }
                skipWhitespace(bytes)
                try expect(UInt8(ascii: ":"), bytes)
                skipWhitespace(bytes)
                path.append(
                    Self.spelling(String(decoding: name.bytes, as: UTF8.self), lowersFirstLetters: lowersFirstLetters)
                )
                if collecting, keepsStrings, index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    // A string value of the collected object, kept. No secret path is read with it:
                    // only JSONMemberNames.rootMembers keeps strings, and it gives no paths.
                    assert(paths.isEmpty, "a scan that keeps strings reads no secrets")
                    var value = ArraySink()
                    try scanString(bytes, into: &value)
                    strings.append(value.bytes)
                } else {
                    try scanValue(bytes, depth: depth)
                    if collecting, keepsStrings { strings.append(nil) }
                }
                path.removeLast()
            } while try !closes(UInt8(ascii: "}"), bytes)
        }

        private mutating func scanArray(_ bytes: UnsafeRawBufferPointer, depth: Int) throws(Failure) {
            guard !opensEmpty(closedBy: UInt8(ascii: "]"), bytes) else { return }
            path.append(nil)
            defer { path.removeLast() }
            repeat {
                try scanValue(bytes, depth: depth)
            } while try !closes(UInt8(ascii: "]"), bytes)
        }

        /// Past the opening byte: whether the container is empty (its closing byte consumed).
        private mutating func opensEmpty(closedBy close: UInt8, _ bytes: UnsafeRawBufferPointer) -> Bool {
            index += 1
            skipWhitespace(bytes)
            guard index < bytes.count, bytes[index] == close else { return false }
            index += 1
            return true
        }

        /// After a member or element: true at the container's closing byte (consumed), false after
        /// a comma (and the whitespace after it).
        private mutating func closes(_ close: UInt8, _ bytes: UnsafeRawBufferPointer) throws(Failure) -> Bool {
            skipWhitespace(bytes)
            guard index < bytes.count else { throw .notJSON }
            if bytes[index] == close {
                index += 1
                return true
            }
            try expect(UInt8(ascii: ","), bytes)
            skipWhitespace(bytes)
            return false
        }

        private mutating func scanLiteral(_ word: StaticString, _ bytes: UnsafeRawBufferPointer) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count,
                word.withUTF8Buffer({ literal in literal.indices.allSatisfy { bytes[index + $0] == literal[$0] } })
            else { throw .notJSON }
            index += count
        }

        /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        private mutating func scanNumber(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
            func digits(_ scanner: inout Scanner) -> Int {
                let start = scanner.index
                while scanner.index < bytes.count, (0x30...0x39).contains(bytes[scanner.index]) { scanner.index += 1 }
                return scanner.index - start
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw .notJSON }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits(&self) > 0 else { throw .notJSON }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw .notJSON }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { throw .notJSON }
            }
        }

        /// The index of the path the current member is at, if it is a secret's.
        private func secretSlot() -> Int? {
            paths.firstIndex { candidate in
                candidate.count == path.count && zip(candidate, path).allSatisfy { $0 == $1 }
            }
        }

        /// The secret string at `index`: unescaped into wiping storage, and left out of `redacted`
        /// (which gets `""` in its place).
        private mutating func takeSecret(_ bytes: UnsafeRawBufferPointer, slot: Int) throws(Failure) {
            guard values[slot] == nil else {
                throw Failure(reason: "\(givenPaths[slot].joined(separator: ".")) appears more than once")
            }
            let start = index
            redacted.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copiedUpTo..<start]))
            redacted.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")])
            // Unescaped, a string is never longer than as written (an escape is longer than what it stands for).
            var length = 0
            var failure: Failure?
            let value = SecureBytes(count: bytes.count - start) { output in
                var sink = SecretSink(output: output)
                do throws(Failure) { try scanString(bytes, into: &sink) } catch { failure = error }
                length = sink.count
            }
            if let failure { throw failure }
            let secret = value.prefix(length)
            guard secret.withUnsafeBytes({ isValidUTF8($0) }) else {
                throw Failure(reason: "\(givenPaths[slot].joined(separator: ".")) is not UTF-8")
            }
            values[slot] = secret
            copiedUpTo = index
        }

        /// RFC 8259 §7: a string from its opening quote to past its closing one; unescaped bytes go to `sink`.
        private mutating func scanString(
            _ bytes: UnsafeRawBufferPointer,
            into sink: inout some StringSink
        ) throws(Failure) {
            index += 1  // "
            while true {
                guard index < bytes.count else { throw .notJSON }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw .notJSON }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): sink.append(escape)
                    case UInt8(ascii: "b"): sink.append(0x08)
                    case UInt8(ascii: "f"): sink.append(0x0C)
                    case UInt8(ascii: "n"): sink.append(0x0A)
                    case UInt8(ascii: "r"): sink.append(0x0D)
                    case UInt8(ascii: "t"): sink.append(0x09)
                    case UInt8(ascii: "u"): try scanUnicodeEscape(bytes, into: &sink)
                    default: throw .notJSON
                    }
                case 0x00..<0x20:
                    throw .notJSON  // a control character must be escaped
                default:
                    sink.append(byte)
                }
            }
        }

        /// `\uXXXX` (after the `u`), with a surrogate pair as one code point; a lone surrogate is refused.
        private mutating func scanUnicodeEscape(
            _ bytes: UnsafeRawBufferPointer,
            into sink: inout some StringSink
        ) throws(Failure) {
            var scalar = try hexQuad(bytes)
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw .notJSON
                }
                index += 2
                let low = try hexQuad(bytes)
                guard (0xDC00..<0xE000).contains(low) else { throw .notJSON }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw .notJSON
            }
            // UTF-8 (RFC 3629 §3).
            switch scalar {
            case 0..<0x80:
                sink.append(UInt8(scalar))
            case 0x80..<0x800:
                sink.append(UInt8(0xC0 | (scalar >> 6)))
                sink.append(UInt8(0x80 | (scalar & 0x3F)))
            case 0x800..<0x10000:
                sink.append(UInt8(0xE0 | (scalar >> 12)))
                sink.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                sink.append(UInt8(0x80 | (scalar & 0x3F)))
            default:
                sink.append(UInt8(0xF0 | (scalar >> 18)))
                sink.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
                sink.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                sink.append(UInt8(0x80 | (scalar & 0x3F)))
            }
        }

        private mutating func hexQuad(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw .notJSON }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw .notJSON
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}

/// Where a scanned string's unescaped bytes go.
package protocol StringSink {
    mutating func append(_ byte: UInt8)
}

/// Into the wiping buffer of a secret (never longer than the string as written, so never full).
package struct SecretSink: StringSink {
    let output: UnsafeMutableRawBufferPointer
    var count = 0

    package mutating func append(_ byte: UInt8) {
        // invariant: an unescaped string is no longer than the rest of the document it was read from.
        precondition(count < output.count, "unescaped string longer than its source")
        output[count] = byte
        count += 1
    }
}

/// Into an array (member names: not secret).
package struct ArraySink: StringSink {
    var bytes: [UInt8] = []
    package mutating func append(_ byte: UInt8) { bytes.append(byte) }
}

/// Nowhere (a value that is not a secret: the decoder reads it from the redacted document).
package struct DiscardingSink: StringSink {
    package mutating func append(_ byte: UInt8) {}
}
