public import AuthCore

/// An HTTP proxy: where ``HTTP1Transport`` connects instead of the origin, and the credentials it
/// shows there.
///
/// An `https` request goes through a `CONNECT` tunnel (RFC 9110 §9.3.6): the proxy sees the host
/// and port, never the request, and TLS is end to end with the origin. A plain `http` request is
/// sent to the proxy in absolute form (RFC 9112 §3.2.2). Credentials from the URL's user info go in
/// `Proxy-Authorization: Basic` (RFC 7617), kept in wiping storage; they never appear in a
/// description, an error or a log.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The proxy's host (an IPv6 literal keeps its brackets), lower case.
    public let host: String
    /// The proxy's port.
    public let port: Int
    /// `Basic <base64(user:password)>`, or nil without credentials.
    let authorization: SecureBytes?

    /// The port a proxy URL without one means: 1080, as curl reads `HTTPS_PROXY`.
    public static let defaultPort = 1080

    /// Parses a proxy URL as curl reads `HTTPS_PROXY`: `[http://][user[:password]@]host[:port][/]`.
    /// User and password are percent-decoded (`%40` for `@`).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed URL, a path, or a scheme other
    ///   than `http` (TLS to the proxy itself, and SOCKS, are not supported); the message never
    ///   quotes the URL, which may hold a password.
    public init(url text: String) throws(AuthCoreError) {
        func fail(_ why: String) -> AuthCoreError { AuthCoreError(.invalidParameter, "proxy URL \(why)") }
        var credentials: SecureBytes?
        let authority: RequestURL
        do {
            // The text holds the password: its bytes are read from wiping storage and every copy
            // made of them is wiped.
            var whole = SecureBytes(text.utf8)
            (authority, credentials) = try whole.withUnsafeMutableBytes { (raw) throws(AuthCoreError) in
                let all = UnsafeBufferPointer(raw.bindMemory(to: UInt8.self))
                var bytes = all[...]
                guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                    throw fail("is empty or has spaces or control characters")
                }
                if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
                    guard equalIgnoringASCIICase(bytes[..<colon], "http".utf8) else {
                        throw fail("must use http:// (TLS to the proxy and SOCKS are not supported)")
                    }
                    bytes = bytes[(colon + 3)...]
                }
                if let slash = bytes.firstIndex(of: UInt8(ascii: "/")) {
                    guard bytes[(slash + 1)...].isEmpty else { throw fail("has a path") }
                    bytes = bytes[..<slash]
                }
                var credentials: SecureBytes?
                if let at = bytes.lastIndex(of: UInt8(ascii: "@")) {
                    let userInfo = bytes[..<at]
                    let colon = userInfo.firstIndex(of: UInt8(ascii: ":"))
                    let user = Self.percentDecoded(userInfo[..<(colon ?? at)])
                    let password = colon.map { Self.percentDecoded(userInfo[($0 + 1)...]) } ?? SecureBytes()
                    credentials = try Self.basicAuthorization(user: user, password: password)
                    bytes = bytes[(at + 1)...]
                }
                guard !bytes.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
                    throw fail("has a query or fragment")
                }
                // The authority read by the request URL parser: one rule for hosts and ports.
                let authority: RequestURL
                do { authority = try RequestURL("http://" + String(decoding: bytes, as: UTF8.self)) } catch {
                    throw fail("has an invalid host or port")
                }
                return (authority, credentials)
            }
        }
        host = authority.host
        port = authority.port ?? Self.defaultPort
        authorization = credentials
    }

    /// A proxy at `host` and `port`, with optional Basic credentials.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a host that is not a name or address, a
    ///   port outside 1…65535, or a user name with a `:` (Basic credentials cannot carry one, RFC 7617 §2).
    public init(host: String, port: Int, username: String? = nil, password: SecureBytes? = nil) throws(AuthCoreError) {
        let url: RequestURL
        do { url = try RequestURL("http://\(host):\(port)") } catch {
            throw AuthCoreError(.invalidParameter, "proxy host or port is invalid")
        }
        guard (1...65535).contains(port), url.port == port, url.path == "/", url.query.isEmpty else {
            throw AuthCoreError(.invalidParameter, "proxy host or port is invalid")
        }
        self.host = url.host
        self.port = port
        authorization = try username.map { (name) throws(AuthCoreError) in
            try Self.basicAuthorization(user: SecureBytes(name.utf8), password: password ?? SecureBytes())
        }
    }

    /// `Basic <base64(user:password)>` in wiping storage (RFC 7617 §2), encoded in constant time.
    private static func basicAuthorization(
        user: SecureBytes,
        password: SecureBytes
    ) throws(AuthCoreError) -> SecureBytes {
        guard !user.withUnsafeBytes({ $0.contains(UInt8(ascii: ":")) }) else {
            throw AuthCoreError(.invalidParameter, "proxy user name has a ':', which Basic credentials cannot carry")
        }
        var pair = user
        pair.append(contentsOf: [UInt8(ascii: ":")])
        password.withUnsafeBytes { pair.append(contentsOf: $0) }
        var header = SecureBytes(Array("Basic ".utf8))
        Base64.encodeSecret(pair).withUnsafeBytes { header.append(contentsOf: $0) }
        return header
    }

    /// `%XX` escapes decoded into wiping storage (an escape that is not two hex digits stays as it is).
    private static func percentDecoded(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> SecureBytes {
        var out = SecureBytes()
        var index = bytes.startIndex
        func digit(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: 0xFF
            }
        }
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), bytes.endIndex - index >= 3 {
                let high = digit(bytes[index + 1])
                let low = digit(bytes[index + 2])
                if high != 0xFF && low != 0xFF {
                    out.append(contentsOf: [high << 4 | low])
                    index += 3
                    continue
                }
            }
            out.append(contentsOf: [bytes[index]])
            index += 1
        }
        return out
    }

    /// Whether the proxy has credentials.
    public var hasCredentials: Bool { authorization != nil }

    /// `host:port`, as a `CONNECT` target and a `Host` value name it.
    var authority: String { "\(host):\(port)" }

    /// `http://host:port`, without the credentials.
    public var description: String { "http://\(authority)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["proxy": description, "hasCredentials": hasCredentials], displayStyle: .struct)
    }

    public static func == (lhs: HTTPProxy, rhs: HTTPProxy) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.authorization == rhs.authorization
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
    }
}

/// Which proxy, if any, a request goes through: one for `https`, one for `http`, and the hosts that
/// bypass both. Loopback hosts (``NetworkPolicy/isLoopback(host:)``) never go through a proxy unless
/// ``proxiesLoopback`` says so: a proxy would reach its own loopback, not this machine's, and plain
/// http is allowed to loopback only because it never leaves the machine.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `https` requests.
    public var https: HTTPProxy?
    /// The proxy for plain `http` requests.
    public var http: HTTPProxy?
    /// The hosts reached directly.
    public var bypass: NoProxyRules
    /// Whether loopback hosts go through the proxy too (off; never set from the environment).
    public var proxiesLoopback = false

    /// A configuration; `bypass` defaults to none.
    public init(https: HTTPProxy? = nil, http: HTTPProxy? = nil, bypass: NoProxyRules = NoProxyRules()) {
        self.https = https
        self.http = http
        self.bypass = bypass
    }

    /// No proxy at all.
    public static let direct = ProxyConfiguration()

    /// The proxies the environment names, as curl reads it: `https_proxy` (else `HTTPS_PROXY`) for
    /// https; `http_proxy` for http; `all_proxy` (else `ALL_PROXY`) for a scheme whose own variable
    /// is unset; `no_proxy` (else `NO_PROXY`) for the bypass list, read only when a proxy applies. An
    /// empty value is unset.
    ///
    /// `HTTP_PROXY` in capitals is read too, except in a CGI program (`REQUEST_METHOD` set), where
    /// a request's `Proxy:` header arrives as that variable (httpoxy, CVE-2016-5385).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` naming the variable whose proxy URL is
    ///   malformed (never its value): a request is not sent around a proxy the environment asks for.
    // bytes-lint: the process environment, looked up by fixed ASCII variable names.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthCoreError) -> ProxyConfiguration {
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func proxy(_ names: [String]) throws(AuthCoreError) -> HTTPProxy? {
            for name in names {
                guard let text = set(name) else { continue }
                do { return try HTTPProxy(url: text) } catch {
                    throw AuthCoreError(.invalidParameter, "\(name): \(error.reason)")
                }
            }
            return nil
        }
        let cgi = set("REQUEST_METHOD") != nil
        let httpsNames = ["https_proxy", "HTTPS_PROXY"]
        let httpNames = cgi ? ["http_proxy"] : ["http_proxy", "HTTP_PROXY"]
        let allNames = ["all_proxy", "ALL_PROXY"]
        var configuration = ProxyConfiguration()
        configuration.https = try proxy(httpsNames.contains(where: { set($0) != nil }) ? httpsNames : allNames)
        configuration.http = try proxy(httpNames.contains(where: { set($0) != nil }) ? httpNames : allNames)
        if configuration.https != nil || configuration.http != nil, let list = set("no_proxy") ?? set("NO_PROXY") {
            configuration.bypass = NoProxyRules(list)
        }
        return configuration
    }

    /// The proxy for `url`, or nil to connect directly.
    public func proxy(for url: RequestURL) -> HTTPProxy? {
        guard let proxy = url.scheme == "https" ? https : http else { return nil }
        if !proxiesLoopback && NetworkPolicy.isLoopback(host: url.host) { return nil }
        return bypass.bypasses(host: url.host, port: url.port ?? (url.scheme == "https" ? 443 : 80)) ? nil : proxy
    }
}
