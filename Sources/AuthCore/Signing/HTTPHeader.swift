/// One HTTP header field as given (name case preserved; repeated names allowed).
public struct HTTPHeader: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// A header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether `count` lower-case name bytes at `name` are a credential's name — `authorization`,
    /// `proxy-authorization`, a session token (`x-amz-`, `x-oss-`, `x-acs-security-token`),
    /// `x-amz-target-token`, `cookie`, `set-cookie` — whose value is printed as `<redacted>` and
    /// whose copies a signer wipes. The one list of those names; a switch on the length first (the
    /// canonical-header table asks this of every field it signs).
    @inline(__always)
    static func isCredentialName(lowercased name: UnsafePointer<UInt8>, count: Int) -> Bool {
        switch count {
        case 6: asciiEqual(name, count, "cookie")
        case 10: asciiEqual(name, count, "set-cookie")
        case 13: asciiEqual(name, count, "authorization")
        case 18: asciiEqual(name, count, "x-amz-target-token")
        case 19: asciiEqual(name, count, "proxy-authorization")
        case 20:
            asciiEqual(name, count, "x-amz-security-token") || asciiEqual(name, count, "x-oss-security-token")
                || asciiEqual(name, count, "x-acs-security-token")
        default: false
        }
    }

    /// Whether the value is a credential (`Authorization`, a session token, a cookie): the name's
    /// bytes lower-cased in ASCII only (a Unicode lower-casing maps U+212A KELVIN SIGN to `k`, and a
    /// name no server reads as `cookie` would be redacted, or the reverse).
    public var holdsCredential: Bool {
        var lowered = Array(name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        return lowered.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return false }
            return Self.isCredentialName(lowercased: base, count: bytes.count)
        }
    }

    /// `name: value`, with the value of a credential header shown as `<redacted>`.
    public var description: String { "\(name): \(holdsCredential ? "<redacted>" : value)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": holdsCredential ? "<redacted>" : value], displayStyle: .struct)
    }

    /// Checks the field for characters that cannot appear in HTTP/1.1 (RFC 9110 §5.1, §5.5).
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for an empty or non-token name, or a value
    ///   containing CR, LF or NUL.
    package func validate() throws(AuthCoreError) {
        var nameOK = !name.isEmpty
        var valueOK = true
        var name = self.name
        var value = self.value
        name.withUTF8 { bytes in
            for byte in bytes where !ASCIISet.token.contains(byte) { nameOK = false }
        }
        value.withUTF8 { bytes in
            for byte in bytes where byte == 0x0D || byte == 0x0A || byte == 0x00 { valueOK = false }
        }
        guard nameOK else { throw AuthCoreError(.malformedRequest, "header name '\(name)' is not an HTTP token") }
        guard valueOK else { throw AuthCoreError(.malformedRequest, "header '\(name)' has CR, LF or NUL in its value") }
    }
}

extension HTTPHeader {
    /// Whether the name equals `name`, ignoring ASCII case.
    package func hasName(_ name: StaticString) -> Bool {
        equalIgnoringASCIICase(self.name.utf8, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// The UTF-8 byte counts of all names and of all values (one pass; elements are read in place).
    @inline(__always)
    static func utf8Counts(_ headers: [HTTPHeader]) -> (names: Int, values: Int, both: Int) {
        headers.withUnsafeBufferPointer { buffer in
            var names = 0
            var values = 0
            for index in buffer.indices {
                names &+= buffer[index].name.utf8.count
                values &+= buffer[index].value.utf8.count
            }
            return (names, values, names &+ values)
        }
    }
}

extension Array where Element == HTTPHeader {
    /// The value of the first field whose name equals `name` ignoring ASCII case, compared byte by
    /// byte (no lower-cased copies).
    func firstValue(namedIgnoringCase name: StaticString) -> String? {
        first(where: { $0.hasName(name) })?.value
    }

    /// The fields without those named like any of `others` (ignoring ASCII case; HTTP field names
    /// are ASCII tokens): what a signer's own headers replace.
    package func removingFields(namedLike others: [HTTPHeader]) -> [HTTPHeader] {
        filter { field in !others.contains { equalIgnoringASCIICase($0.name.utf8, field.name.utf8) } }
    }

    /// The value of the first field named `name` (ASCII case-insensitive, byte by byte: HTTP field
    /// names are ASCII tokens, and a Unicode case mapping would match names no server matches), or nil.
    public func first(named name: String) -> String? {
        first(where: { equalIgnoringASCIICase($0.name.utf8, name.utf8) })?.value
    }
}
