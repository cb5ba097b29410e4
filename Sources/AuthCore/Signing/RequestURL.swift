/// An absolute `http`/`https` URL split into the parts a signer needs, without Foundation.
///
/// The path and query are kept exactly as written (no decoding, no re-encoding): SigV4 signs the
/// request-line path, and S3 signs it verbatim.
public struct RequestURL: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or address (IPv6 literals keep their brackets).
    public let host: String
    /// The explicit port, if any.
    public let port: Int?
    /// The path (`/` when the URL has none).
    public let path: String
    /// The raw query without `?` (empty when absent).
    public let query: String

    /// Parses `scheme://host[:port][/path][?query]` (a `#fragment` is dropped; user info is refused).
    ///
    /// - Throws: ``AuthCoreError/Code/malformedInput`` for anything else.
    public init(_ text: String) throws(AuthCoreError) {
        func fail(_ why: String) -> AuthCoreError { AuthCoreError(.malformedInput, "URL \(why)") }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw fail("contains spaces or control characters") }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw fail("needs a scheme (http:// or https://)")
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { throw fail("scheme must be http or https") }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let target = rest[authorityEnd...]
        guard !authority.isEmpty, !authority.contains("@") else { throw fail("needs a host (and no user info)") }
        var host = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("has an unterminated IPv6 literal") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw fail("has an invalid port") }
                port = p
            } else if !after.isEmpty {
                throw fail("has an invalid host")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else {
                throw fail("has an invalid port")
            }
            port = p
        }
        guard !host.isEmpty else { throw fail("needs a host") }
        // The host is signed (`Host`) and is where the transport connects, so it must read the same
        // to every URL parser: ASCII letters, digits, `-`, `.` and `_` (a non-ASCII name in its
        // punycode `xn--` form), or an IPv6 literal of hex digits, `:` and `.` in brackets.
        let bracketed = host.hasPrefix("[")
        guard host.utf8.allSatisfy({ byte in
            bracketed ? (Self.ipv6Bytes.contains(byte) || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")) : Self.hostBytes.contains(byte)
        }), !bracketed || (host.utf8.count > 2 && host.hasSuffix("]"))
        else { throw fail("has a host with characters other than ASCII letters, digits, '-', '.' and '_' (use the punycode form of a non-ASCII name)") }
        var path = target
        var query = Substring("")
        if let q = target.firstIndex(of: "?") {
            path = target[..<q]
            query = target[target.index(after: q)...]
        }
        self.scheme = scheme
        self.host = String(decoding: host.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        self.port = port
        self.path = path.isEmpty ? "/" : String(path)
        self.query = String(query)
    }

    private static let hostBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._".utf8)
    private static let ipv6Bytes = Set("0123456789abcdefABCDEF:.".utf8)

    /// The `Host` header value: host, plus `:port` unless it is the scheme's default.
    public var hostHeader: String {
        guard let port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else { return host }
        return "\(host):\(port)"
    }

    /// `scheme://host[:port]`.
    public var origin: String { "\(scheme)://\(hostHeader)" }

    /// The request-line target: path plus `?query` when there is one.
    public var target: String { query.isEmpty ? path : "\(path)?\(query)" }

    /// The whole URL, exactly as parsed (what a transport sends).
    public var absoluteString: String { origin + target }

    /// Query parameters whose values are credentials (presigned URLs carry the session token),
    /// lower case.
    static let credentialParameters: Set<String> = ["x-amz-security-token", "security-token", "x-oss-security-token"]

    /// `query` with the value of each session-token parameter (``credentialParameters``, any case)
    /// shown as `<redacted>`: the one redaction of a query, for URLs and the CLI's printed canonical
    /// requests.
    package static func redactingCredentials(query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { piece -> String in
            guard let equals = piece.firstIndex(of: "="), credentialParameters.contains(piece[..<equals].lowercased()) else {
                return String(piece)
            }
            return "\(piece[..<equals])=<redacted>"
        }.joined(separator: "&")
    }

    /// The URL with the value of a session-token query parameter shown as `<redacted>`.
    public var description: String {
        guard !query.isEmpty else { return origin + path }
        return origin + path + "?" + Self.redactingCredentials(query: query[...])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": description], displayStyle: .struct) }
}
