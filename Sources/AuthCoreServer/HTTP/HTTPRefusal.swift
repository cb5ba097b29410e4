public import AuthCore
public import AuthCoreHTTP

/// A request the server refuses: the status it is answered with, a short code and a message for the
/// client. Every refusal is a 4xx or 5xx answer with `{"code":…,"message":…}` JSON
/// (`AppServerWire.ErrorAnswer`); messages never hold a secret.
public struct HTTPRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (400…599).
    public let status: Int
    /// A short, stable code (`MalformedRequest`, `Unauthorized`, …).
    public let code: String
    /// What was wrong, for the client.
    public let message: String
    /// Fields the answer carries besides the body's (`Allow` on a 405, `Retry-After` on a 429).
    public let headers: [HTTPHeader]

    /// A refusal.
    public init(status: Int, code: String, message: String, headers: [HTTPHeader] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// `400 MalformedRequest`: the request's body or fields are not what the endpoint reads.
    public static func malformed(_ message: String) -> HTTPRefusal {
        HTTPRefusal(status: 400, code: "MalformedRequest", message: message)
    }

    /// The answer: the status and `{"code":…,"message":…}`.
    public var response: HTTPResponse {
        var answer = JSONAnswer.response(AppServerWire.ErrorAnswer(code: code, message: message), status: status)
        answer.headers += headers
        return answer
    }

    public var description: String { "HTTPRefusal(\(status) \(code): \(message))" }
}
