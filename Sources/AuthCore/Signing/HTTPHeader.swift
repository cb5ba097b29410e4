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
    /// `x-amz-target-token`, `cookie`, `set-cookie`, the EC2 and ECS metadata session tokens — whose value is printed
    /// as `<redacted>` and
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
        case 24: asciiEqual(name, count, "x-aws-ec2-metadata-token")
        case 27: asciiEqual(name, count, "x-aliyun-ecs-metadata-token")
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

    /// Checks the field by HTTP's one rule, the package's only one for a field that is sent or
    /// received: the name a token (RFC 9110 §5.1, §5.6.2) and the value ``isFieldValue(_:)``.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for an empty or non-token name, or a value
    ///   that is not RFC 9110 field content (the message says which, never the value).
    package func validate() throws(AuthCoreError) {
        // On the strings' bytes in place (native strings): a tight loop, not a walk of the views.
        guard Self.isFieldName(name) else {
            throw AuthCoreError(
                .malformedRequest,
                "header name '\(name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } ? name : "?")' is not an HTTP token"
            )
        }
        guard Self.isFieldValue(value) else {
            throw AuthCoreError(
                .malformedRequest,
                "header '\(name)' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)"
            )
        }
    }

    /// ``isFieldName(_:)-(Collection<UInt8>)`` of a string's bytes, read in place (native strings).
    @inline(__always)
    package static func isFieldName(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { isFieldName($0) } ?? isFieldName(text.utf8)
    }

    /// ``isFieldValue(_:)-(Collection<UInt8>)`` of a string's bytes, read in place (native strings).
    @inlinable @inline(__always)
    package static func isFieldValue(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { isFieldValue($0) } ?? isFieldValue(text.utf8)
    }

    /// Whether `bytes` are a field name: a token, `1*tchar` (RFC 9110 §5.6.2).
    package static func isFieldName(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy({ ASCIISet.token.contains($0) })
    }

    /// Whether `bytes` can be a field value (RFC 9110 §5.5): visible ASCII (`VCHAR`), `obs-text`
    /// (bytes 0x80–0xFF: UTF-8 passes, read as opaque bytes), spaces and tabs — no other control
    /// byte (CR, LF and NUL least of all: they would end the line or the C string) and no DEL.
    /// Spaces and tabs at the ends are `OWS` (RFC 9112 §5), which a recipient strips: allowed here,
    /// and trimmed by the signers whose canonical forms trim them (SigV4, ACS3). Empty is allowed.
    @inlinable
    package static func isFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy(isFieldValueByte)
    }

    /// One byte of a field value (``isFieldValue(_:)``).
    @inlinable @inline(__always)
    package static func isFieldValueByte(_ byte: UInt8) -> Bool { (byte >= 0x20 || byte == 0x09) && byte != 0x7F }
}

extension HTTPHeader {
    /// Whether the name equals `name`, ignoring ASCII case.
    @inlinable
    package func hasName(_ name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return self.name.utf8.withContiguousStorageIfAvailable { equalIgnoringASCIICase($0, expected) }
            ?? equalIgnoringASCIICase(self.name.utf8, expected)
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
