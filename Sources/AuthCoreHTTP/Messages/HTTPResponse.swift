public import AuthCore

/// An HTTP response.
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]
    /// The body of a successful answer to a request with ``HTTPRequest/answerCarriesSecrets``, in
    /// wiping storage (``body`` is then empty); nil otherwise.
    public var secretBody: SecureBytes?

    /// A response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is in wiping storage (an answer that carries secrets).
    public init(status: Int, headers: [HTTPHeader] = [], secretBody: SecureBytes) {
        self.init(status: status, headers: headers)
        self.secretBody = secretBody
    }

    /// The body in wiping storage: ``secretBody``, or a wiping copy of ``body`` (from a transport
    /// that does not know ``HTTPRequest/answerCarriesSecrets``).
    package var bodyInWipingStorage: SecureBytes { secretBody ?? SecureBytes(body) }

    /// The number of body bytes, in ``secretBody`` or ``body``.
    public var bodyCount: Int { secretBody?.count ?? body.count }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Status, header names and body size: bodies carry tokens and secret keys.
    public var description: String {
        "HTTPResponse(\(status), headers: \(headers.map(\.name).joined(separator: ", ")), body \(bodyCount) bytes)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headers": headers, "bodyByteCount": bodyCount], displayStyle: .struct)
    }
}
