public import AuthCore

/// One request as ``HTTPServer`` hands it to its handler: complete, its body within the server's
/// limit.
public struct HTTPServerRequest: Sendable, CustomStringConvertible {
    /// The method (`GET`, `POST`, …).
    public let method: String
    /// The path, without the query, percent-decoded by MHD (up to a decoded NUL, if any).
    public let path: String
    /// The query's parameters in order, percent-decoded by MHD (`?a=1&b` gives `a`=`1`, `b`=``).
    public let queryParameters: [(key: String, value: String)]
    /// The header fields in the order received (names as sent; compare them with `hasName`).
    public let headers: [HTTPHeader]
    /// The body.
    public let body: [UInt8]
    /// The address the connection came from (nil for a request made in this process).
    public let clientAddress: ClientAddress?
    /// The request's id (`X-Request-Id`: the client's when usable, else the server's), echoed in
    /// the answer and written in the access log.
    public let requestId: String
    /// Where a handler records what the access log should say (the user, once known).
    public let notes: RequestNotes

    /// A request (the server builds these; tests may too). Without a `requestId`, one is made.
    public init(
        method: String,
        path: String,
        queryParameters: [(key: String, value: String)] = [],
        headers: [HTTPHeader] = [],
        body: [UInt8] = [],
        clientAddress: ClientAddress? = nil,
        requestId: String? = nil,
        notes: RequestNotes = RequestNotes()
    ) {
        self.method = method
        self.path = path
        self.queryParameters = queryParameters
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
        self.requestId = requestId ?? RequestIdentifiers.make()
        self.notes = notes
    }

    /// The method and path only: headers and body may carry credentials.
    public var description: String { "HTTPServerRequest(\(method) \(path), \(body.count) body bytes)" }

    /// The token of an `Authorization: Bearer <token>` field (RFC 6750 §2.1), nil without one.
    public var bearerToken: String? {
        guard let value = headers.first(named: "Authorization") else { return nil }
        let bytes = Array(value.utf8)
        guard bytes.count > 7, equalIgnoringASCIICase(bytes[0..<6], "bearer".utf8), bytes[6] == 0x20 else { return nil }
        return String(decoding: bytes[7...], as: UTF8.self)
    }
}
