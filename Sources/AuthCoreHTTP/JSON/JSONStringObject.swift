/// A type whose JSON form is an object of string members, read from the byte scan
/// (``JSONMemberNames/rootMembers(of:)``) without `JSONDecoder`: the app server's login requests,
/// each about 15 µs cheaper so.
///
/// Only the plainest documents are read this way (``JSONStringObject/init(document:members:)``):
/// a UTF-8 object whose every member is a string. Anything else — a member `null`, a number, a
/// nested value, a member missing — goes to `JSONDecoder` as before, so its acceptance and its
/// messages decide every case but the plain one. A differential test holds each conforming type to
/// the decoder's result.
///
/// Member names are compared as bytes, where `JSONDecoder` compares Swift strings (canonical
/// equivalence): the same for names without `K`, `;` and `` ` `` (the only ASCII characters another
/// character decomposes to: U+212A, U+037E, U+1FEF). A conforming type's names must avoid them.
package protocol JSONStringObjectReadable {
    /// The value from `object`'s members, or nil when one it needs is missing (the decoder then
    /// names it).
    init?(stringMembers object: JSONStringObject)
}

/// A JSON object whose members are all strings, as the scan read them.
package struct JSONStringObject {
    private let members: [(name: [UInt8], string: [UInt8]?)]

    /// The object `members` were scanned from, when `document` is such a plain one: valid UTF-8,
    /// its root an object (after an optional byte order mark and whitespace), every member's value
    /// a string. Nil otherwise.
    package init?(document: [UInt8], members: [(name: [UInt8], string: [UInt8]?)]) {
        guard members.allSatisfy({ $0.string != nil }) else { return nil }
        let opening = document.starts(with: [0xEF, 0xBB, 0xBF]) ? document.dropFirst(3) : document[...]
        guard opening.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{"),
            document.withUnsafeBytes({ isValidUTF8($0) })
        else { return nil }
        self.members = members
    }

    /// The string value of the member named `name` (compared as bytes), nil when there is none.
    package func string(_ name: StaticString) -> String? {
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard let member = members.first(where: { $0.name.elementsEqual(wanted) }), let bytes = member.string else {
            return nil
        }
        // The document is UTF-8 and the scan turns escapes into UTF-8 (a lone surrogate is refused).
        return String(decoding: bytes, as: UTF8.self)
    }
}
