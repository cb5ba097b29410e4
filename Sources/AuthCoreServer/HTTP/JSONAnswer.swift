import AuthCore
package import AuthCoreHTTP
import Foundation

/// The server's one JSON style, both ways: request bodies decoded into `Decodable` types with member
/// names as declared (`ServiceJSON`, `.asDeclared`), answers encoded from `Encodable` ones with the
/// package's one encoder set-up (keys sorted), `Content-Type: application/json` and
/// `Cache-Control: no-store` (answers carry tokens, RFC 9111 §5.2.2.5).
package enum JSONAnswer {
    /// `value` as a JSON answer with `status`.
    package static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let body =
            (try? ServiceJSON.encoder(keys: .asDeclared).encode(value)).map { Array($0) }
            ?? Array(#"{"code":"InternalError","message":"the answer cannot be encoded"}"#.utf8)
        return HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Cache-Control", "no-store")], body: body)
    }

    /// The body of a request as a `T`; an empty body reads as `{}`. A type that is
    /// `AppServerWire.ClosedMembers` may have no other member.
    ///
    /// - Throws: ``HTTPRefusal`` `400 MalformedRequest` naming the member that is missing or of the
    ///   wrong type (never its value), saying the body is not a JSON object, or (closed members)
    ///   with the type's `shape`.
    package static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(HTTPRefusal) -> T {
        if let closed = T.self as? any AppServerWire.ClosedMembers.Type {
            if !body.isEmpty {
                guard let object = try? JSONObject(parsing: body, context: "the body"),
                    object.keys.allSatisfy({ key in closed.members.contains { $0.utf8.elementsEqual(key.utf8) } })
                else { throw .malformed(closed.shape) }
            }
            do { return try ServiceJSON.decode(T.self, from: body, context: "the body", keys: .asDeclared) } catch { throw .malformed(closed.shape) }
        }
        do { return try ServiceJSON.decode(T.self, from: body, context: "the body", keys: .asDeclared) } catch {
            throw .malformed(error.reason.replacingOccurrences(of: ": the answer is", with: " is"))
        }
    }
}
