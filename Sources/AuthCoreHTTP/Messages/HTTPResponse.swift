public import AuthCore

/// An HTTP response: what a transport received, or what the server answers.
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [HTTPHeader]
    /// The body: ``HTTPBody/bytes(_:)``, or ``HTTPBody/secret(_:)`` for a successful answer to a
    /// request with ``HTTPRequest/answerCarriesSecrets``.
    public var body: HTTPBody

    /// A response.
    public init(status: Int, headers: [HTTPHeader] = [], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `body`'s bytes.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(body))
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Status, header names and body size: bodies carry tokens and secret keys.
    public var description: String {
        "HTTPResponse(\(status), headers: \(headers.map(\.name).joined(separator: ", ")), body: \(body))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headers": headers, "body": body.description], displayStyle: .struct)
    }
}
