import AuthCore

/// The error code and message of a failed AWS/OSS response body, as the service wrote them.
public struct ServiceErrorBody: Sendable, Equatable {
    /// The service's error type (`SignatureDoesNotMatch`, `NotAuthorizedException`).
    public var code: String?
    /// The service's message.
    public var message: String?
    /// The id the body gives the call (`RequestId`, as Alibaba Cloud's JSON errors and the XML ones
    /// write it), when it is printable ASCII of at most 128 characters (it goes into logs).
    public var requestId: String?

    /// Parses XML (`<Error><Code>…</Code><Message>…</Message>`, also inside `<ErrorResponse>`) and
    /// JSON (`{"__type": "…#Name", "message": "…"}`, `{"Error": {"Code", "Message"}}`,
    /// `{"code","message"}`) bodies; the `x-amzn-ErrorType` header wins for JSON APIs. A type like
    /// `com.amazonaws.x#Name:http://…` is reduced to `Name`.
    public init(response: HTTPResponse) {
        let body = Array(response.body.plainBytes.prefix(NetworkPolicy.controlPlaneMaximumResponseBytes))
        let text = String(decoding: body, as: UTF8.self)
        if let header = response.headers.first(named: "x-amzn-ErrorType") { code = Self.shortType(header) }
        if text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "<") {
            // XML (S3, STS, OSS); an answer that does not parse (an HTML page from a proxy) has no code.
            if let document = try? XMLReader(parsing: body, context: "error body") {
                code = code ?? (document.first(named: "Code") ?? document.first(named: "code"))?.text
                message = ((document.first(named: "Message") ?? document.first(named: "message"))?.text).map(
                    Self.withoutEchoedRequest
                )
                requestId = (document.first(named: "RequestId")?.text).flatMap(Self.loggableIdentifier)
            }
        } else if let json = try? ServiceJSON.decode(
            JSONForm.self,
            from: body,
            context: "error body",
            keys: .asDeclared
        ) {
            code = code ?? json.type.map(Self.shortType)
            message = json.message.map(Self.withoutEchoedRequest)
            requestId = json.requestId.flatMap(Self.loggableIdentifier)
        }
    }

    /// The JSON error shapes: `__type`/`code`/`Code` and `message`/`Message`, or both inside `Error`.
    /// A field of another type is ignored, not an error (the body only explains a failure).
    struct JSONForm: Decodable {
        let type: String?
        let message: String?
        let requestId: String?

        enum Keys: String, CodingKey {
            case type = "__type", code, capitalCode = "Code", message, capitalMessage = "Message", error = "Error",
                requestId = "RequestId"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            func text(_ key: Keys, in container: KeyedDecodingContainer<Keys>) -> String? {
                (try? container.decodeIfPresent(String.self, forKey: key)) ?? nil
            }
            let nested = try? container.nestedContainer(keyedBy: Keys.self, forKey: .error)
            type =
                text(.type, in: container) ?? text(.code, in: container) ?? text(.capitalCode, in: container)
                ?? nested.flatMap { text(.capitalCode, in: $0) }
            message =
                text(.message, in: container) ?? text(.capitalMessage, in: container)
                ?? nested.flatMap { text(.capitalMessage, in: $0) }
            requestId = text(.requestId, in: container)
        }
    }

    /// `id` when it is printable ASCII of 1–128 characters (request ids go into logs), else nil.
    static func loggableIdentifier(_ id: String) -> String? {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? id : nil
    }

    /// A service's message without the request material some services echo into it — AWS's "The
    /// Canonical String for this request should have been …" and "The String-to-Sign should have been
    /// …", Alibaba Cloud's "server string to sign is: …" — which holds the session token (and the
    /// signed headers' values): the message is cut where such a part begins, and at 512 bytes. It goes
    /// into errors' reasons, which are printed and logged.
    static func withoutEchoedRequest(_ message: String) -> String {
        let bytes = Array(message.utf8)
        var end = Swift.min(bytes.count, 512)
        for marker in [
            "The Canonical String for this request", "The String-to-Sign should have been", "server string to sign is",
            "StringToSign",
        ] {
            let needle = Array(marker.utf8)
            guard needle.count <= end else { continue }
            for start in 0...(end - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
                end = start
                break
            }
        }
        var kept = bytes[..<end]
        while let last = kept.last,
            last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 || last == UInt8(ascii: ":")
        { kept = kept.dropLast() }
        return String(decoding: kept, as: UTF8.self) + (end < bytes.count ? " (request material cut)" : "")
    }

    /// `aws.protocol#Code:detail` → `Code` (the service's error type; cut at `:` and `#` bytes).
    static func shortType(_ type: String) -> String {
        let name = type.cutOnce(atFirst: UInt8(ascii: ":"))?.before ?? type
        return name.cutOnce(atLast: UInt8(ascii: "#"))?.after ?? name
    }

    /// `Code: message` with placeholders for missing parts.
    public var summary: String { "\(code ?? "(no error code)"): \(message ?? "(no message)")" }
}
