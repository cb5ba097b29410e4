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
    /// Read on UTF-8 bytes: every delimiter (`:`, `/`, `?`, `#`, `@`, `[`, `]`) is an ASCII byte,
    /// found as a byte, so a delimiter joined to its neighbour in one grapheme cluster (a combining
    /// mark after `?`, U+0600 before `#`) still delimits, as it does for every other URL reader.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedInput`` for anything else.
    public init(_ text: String) throws(AuthCoreError) {
        func fail(_ why: String) -> AuthCoreError { AuthCoreError(.malformedInput, "URL \(why)") }
        let bytes = Array(text.utf8)
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw fail("contains spaces or control characters")
        }
        func string(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            throw fail("needs a scheme (http:// or https://)")
        }
        let scheme = string(bytes[..<colon].lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }[...])
        guard scheme == "http" || scheme == "https" else { throw fail("scheme must be http or https") }
        var rest = bytes[(colon + 3)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        let authorityEnd =
            rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let target = rest[authorityEnd...]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else {
            throw fail("needs a host (and no user info)")
        }
        var host = authority
        var port: Int?
        func number(_ digits: ArraySlice<UInt8>) -> Int? {
            guard (1...5).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            return (1...65535).contains(value) ? value : nil
        }
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw fail("has an unterminated IPv6 literal")
            }
            host = authority[...close]
            let after = authority[(close + 1)...]
            if after.first == UInt8(ascii: ":") {
                guard let p = number(after.dropFirst()) else { throw fail("has an invalid port") }
                port = p
            } else if !after.isEmpty {
                throw fail("has an invalid host")
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            guard let p = number(authority[(colon + 1)...]) else { throw fail("has an invalid port") }
            port = p
        }
        guard !host.isEmpty else { throw fail("needs a host") }
        // The host is signed (`Host`) and is where the transport connects, so it must read the same
        // to every URL parser: ASCII letters, digits, `-`, `.` and `_` (a non-ASCII name in its
        // punycode `xn--` form), or an IPv6 literal of hex digits, `:` and `.` in brackets.
        let bracketed = host.first == UInt8(ascii: "[")
        guard
            host.allSatisfy({ byte in
                bracketed
                    ? (Self.ipv6Bytes.contains(byte) || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]"))
                    : Self.hostBytes.contains(byte)
            }), !bracketed || (host.count > 2 && host.last == UInt8(ascii: "]"))
        else {
            throw fail(
                "has a host with characters other than ASCII letters, digits, '-', '.' and '_' (use the punycode form of a non-ASCII name)"
            )
        }
        let split = RequestTarget(bytes: target)
        self.scheme = scheme
        self.host = string(host.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }[...])
        self.port = port
        self.path = split.path.isEmpty ? "/" : split.path
        self.query = split.query
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
    public var target: String { requestTarget.description }

    /// The path and query, already split (what the signers' requests take).
    public var requestTarget: RequestTarget { RequestTarget(path: path, query: query) }

    /// The whole URL, exactly as parsed (what a transport sends).
    public var absoluteString: String { origin + target }

    /// Query parameters whose values are credentials (presigned URLs carry the session token),
    /// lower case.
    static let credentialParameters = ["x-amz-security-token", "security-token", "x-oss-security-token"]

    /// `query` with the value of each session-token parameter (``credentialParameters``, ASCII
    /// case-insensitive) shown as `<redacted>`: the one redaction of a query, for URLs and the CLI's
    /// printed canonical requests. Split at `&` and `=` bytes, as a server splits it.
    package static func redactingCredentials(query: Substring) -> String {
        Array(query.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { piece -> String in
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")),
                credentialParameters.contains(where: { equalIgnoringASCIICase(piece[..<equals], $0.utf8) })
            else { return String(decoding: piece, as: UTF8.self) }
            return String(decoding: piece[...equals], as: UTF8.self) + "<redacted>"
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
