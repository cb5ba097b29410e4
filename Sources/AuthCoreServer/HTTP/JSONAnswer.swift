import AuthCore
package import AuthCoreHTTP
import Foundation

/// The server's one JSON style, both ways: request bodies decoded into `Decodable` types with member
/// names as declared (`ServiceJSON`, `.asDeclared`), answers encoded from `Encodable` ones with the
/// package's one encoder set-up (keys sorted; the login answers write the same bytes themselves,
/// `JSONObjectWritable`), `Content-Type: application/json` and
/// `Cache-Control: no-store` (answers carry tokens, RFC 9111 §5.2.2.5).
package enum JSONAnswer {
    /// `value` as a JSON answer with `status` (`500 InternalError` in the unreachable case that it
    /// cannot be encoded).
    package static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        // The login answers write themselves (the same bytes, without JSONEncoder's cost).
        let encoded =
            (value as? any JSONObjectWritable).map { JSONObjectWriter.write($0) }
            ?? (try? ServiceJSON.encoder(keys: .asDeclared).encode(value)).map { Array($0) }
        return HTTPResponse(
            status: encoded == nil ? 500 : status,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Cache-Control", "no-store")],
            body: encoded ?? Array(#"{"code":"InternalError","message":"the answer cannot be encoded"}"#.utf8)
        )
    }

    /// The body of a request as a `T`; an empty body reads as `{}`. An object that names a member
    /// twice is refused (a reader in front of the server could take the other one); a type that is
    /// `AppServerWire.ClosedMembers` may have no member but its own. A `JSONStringObjectReadable`
    /// type in a plain body (an object of strings) is read from the byte scan, not the decoder
    /// (`plainObjectsScanned`: false only to compare the two).
    ///
    /// - Throws: ``HTTPRefusal`` `400 MalformedRequest` naming the member that is missing or of the
    ///   wrong type (never its value), saying the body is not a JSON object or repeats a member, or
    ///   (closed members) with the type's `shape`.
    package static func decode<T: Decodable>(
        _ type: T.Type,
        from body: [UInt8],
        plainObjectsScanned: Bool = true
    ) throws(HTTPRefusal) -> T {
        let closed = T.self as? any AppServerWire.ClosedMembers.Type
        // The login requests, when plain (an object of strings), are read from the scan.
        let readable = plainObjectsScanned ? T.self as? any JSONStringObjectReadable.Type : nil
        if !body.isEmpty {
            let members: [(name: [UInt8], string: [UInt8]?)]
            do {
                members =
                    try readable == nil
                    ? JSONMemberNames.rootNames(of: body).map { ($0, nil) } : JSONMemberNames.rootMembers(of: body)
            } catch { throw .malformed(closed?.shape ?? "the body is not JSON, or names a member twice") }
            if let closed,
                !members.allSatisfy({ member in closed.members.contains { $0.utf8.elementsEqual(member.name) } })
            {
                throw .malformed(closed.shape)
            }
            if let readable, let object = JSONStringObject(document: body, members: members),
                let value = readable.init(stringMembers: object) as? T
            {
                return value
            }
        }
        do { return try ServiceJSON.decode(T.self, from: body, context: "the body", keys: .asDeclared) } catch {
            if let closed { throw .malformed(closed.shape) }
            throw .malformed(
                error.reason.replacingOccurrences(of: ": the answer is", with: " is").replacingOccurrences(
                    of: "missing the answer",
                    with: "is null"
                )
            )
        }
    }

    /// Whether a `Content-Type` value names `application/json` (RFC 9110 §8.3.1: type and subtype
    /// case-insensitive, parameters such as `charset` allowed), read on bytes.
    package static func isJSON(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let mediaType = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isSpace)
        let trimmed = mediaType.reversed().drop(while: isSpace).reversed()
        return equalIgnoringASCIICase(trimmed, "application/json".utf8)
    }
}
