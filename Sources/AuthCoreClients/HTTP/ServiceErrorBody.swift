import AuthCore
import Foundation

/// The error code and message of a failed AWS/OSS response body, as the service wrote them.
public struct ServiceErrorBody: Sendable, Equatable {
    /// The service's error type (`SignatureDoesNotMatch`, `NotAuthorizedException`).
    public var code: String?
    /// The service's message.
    public var message: String?

    /// Parses XML (`<Error><Code>…</Code><Message>…</Message>`, also inside `<ErrorResponse>`) and
    /// JSON (`{"__type": "…#Name", "message": "…"}`, `{"Error": {"Code", "Message"}}`,
    /// `{"code","message"}`) bodies; the `x-amzn-ErrorType` header wins for JSON APIs. A type like
    /// `com.amazonaws.x#Name:http://…` is reduced to `Name`.
    public init(response: HTTPResponse) {
        let body = Array(response.body.prefix(NetworkPolicy.controlPlaneMaximumResponseBytes))
        let text = String(decoding: body, as: UTF8.self)
        if let header = response.headers.first(named: "x-amzn-ErrorType") { code = Self.shortType(header) }
        if text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "<") {
            // XML (S3, STS, OSS); an answer that does not parse (an HTML page from a proxy) has no code.
            if let document = try? XMLReader(parsing: body, context: "error body") {
                code = code ?? (document.first(named: "Code") ?? document.first(named: "code"))?.text
                message = (document.first(named: "Message") ?? document.first(named: "message"))?.text
            }
        } else if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
            let nested = object["Error"] as? [String: Any]
            let type = object["__type"] as? String ?? object["code"] as? String ?? object["Code"] as? String
                ?? nested?["Code"] as? String
            code = code ?? type.map(Self.shortType)
            message = object["message"] as? String ?? object["Message"] as? String ?? nested?["Message"] as? String
        }
    }

    static func shortType(_ type: String) -> String {
        var name = Substring(type)
        if let colon = name.firstIndex(of: ":") { name = name[..<colon] }
        if let hash = name.lastIndex(of: "#") { name = name[name.index(after: hash)...] }
        return String(name)
    }

    /// `Code: message` with placeholders for missing parts.
    public var summary: String { "\(code ?? "(no error code)"): \(message ?? "(no message)")" }
}
