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
        var bytes = Array(text.utf8)[...]
        guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw fail("is empty or has spaces or control characters") }
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
            var pair = SecureBytes(PercentEncoding.decode(Array(bytes[..<at])))
            if let colon = bytes[..<at].firstIndex(of: UInt8(ascii: ":")) {
                // user and password decoded apart, so a `%3A` in the user stays in the user.
                pair = SecureBytes(PercentEncoding.decode(Array(bytes[..<colon])))
                pair.append(contentsOf: [UInt8(ascii: ":")])
                pair.append(contentsOf: PercentEncoding.decode(Array(bytes[(colon + 1)..<at])))
            } else {
                pair.append(contentsOf: [UInt8(ascii: ":")])
            }
            var header = SecureBytes(Array("Basic ".utf8))
            pair.withUnsafeBytes { header.append(contentsOf: Array(Base64.encode($0).utf8)) }
            credentials = header
            bytes = bytes[(at + 1)...]
        }
        // The authority read by the request URL parser: one rule for hosts and ports.
        let authority: RequestURL
        do { authority = try RequestURL("http://" + String(decoding: bytes, as: UTF8.self)) } catch {
            throw fail("has an invalid host or port")
        }
        host = authority.host
        port = authority.port ?? Self.defaultPort
        authorization = credentials
    }

    /// A proxy at `host` and `port`, with optional Basic credentials.
    public init(host: String, port: Int, username: String? = nil, password: SecureBytes? = nil) throws(AuthCoreError) {
        let url: RequestURL
        do { url = try RequestURL("http://\(host):\(port)") } catch { throw AuthCoreError(.invalidParameter, "proxy host or port is invalid") }
        self.host = url.host
        self.port = port
        guard let username else {
            authorization = nil
            return
        }
        var pair = SecureBytes(Array(username.utf8) + [UInt8(ascii: ":")])
        if let password { password.withUnsafeBytes { pair.append(contentsOf: $0) } }
        var header = SecureBytes(Array("Basic ".utf8))
        pair.withUnsafeBytes { header.append(contentsOf: Array(Base64.encode($0).utf8)) }
        authorization = header
    }

    /// Whether the proxy has credentials.
    public var hasCredentials: Bool { authorization != nil }

    /// `host:port`, as a `CONNECT` target and a `Host` value name it.
    var authority: String { "\(host):\(port)" }

    /// `http://host:port`, without the credentials.
    public var description: String { "http://\(authority)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["proxy": description, "hasCredentials": hasCredentials], displayStyle: .struct) }

    public static func == (lhs: HTTPProxy, rhs: HTTPProxy) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.authorization == rhs.authorization
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
    }
}

/// Which proxy, if any, a request goes through: one for `https`, one for `http`, and the hosts that
/// bypass both.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `https` requests.
    public var https: HTTPProxy?
    /// The proxy for plain `http` requests.
    public var http: HTTPProxy?
    /// The hosts reached directly.
    public var bypass: NoProxyRules

    /// A configuration; `bypass` defaults to none.
    public init(https: HTTPProxy? = nil, http: HTTPProxy? = nil, bypass: NoProxyRules = NoProxyRules()) {
        self.https = https
        self.http = http
        self.bypass = bypass
    }

    /// No proxy at all.
    public static let direct = ProxyConfiguration()

    /// The proxies the environment names, as curl reads it: `https_proxy` (else `HTTPS_PROXY`) for
    /// https; `http_proxy` (else `HTTP_PROXY`) for http; `all_proxy` (else `ALL_PROXY`) for either
    /// when its own is not set; `no_proxy` (else `NO_PROXY`) for the bypass list. An empty value is
    /// unset.
    ///
    /// Unlike curl, `HTTP_PROXY` in capitals is read (the issue of CGI programs, where a request's
    /// `Proxy:` header becomes that variable, does not arise for a client library).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` naming the variable whose value is malformed
    ///   (never its value).
    // bytes-lint: the process environment, looked up by fixed ASCII variable names.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthCoreError) -> ProxyConfiguration {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names { if let value = environment[name], !value.isEmpty { return (name, value) } }
            return nil
        }
        func proxy(_ names: String...) throws(AuthCoreError) -> HTTPProxy? {
            for name in names {
                guard let text = environment[name], !text.isEmpty else { continue }
                do { return try HTTPProxy(url: text) } catch { throw AuthCoreError(.invalidParameter, "\(name): \(error.reason)") }
            }
            return nil
        }
        let all = try proxy("all_proxy", "ALL_PROXY")
        var configuration = ProxyConfiguration()
        configuration.https = try proxy("https_proxy", "HTTPS_PROXY") ?? all
        configuration.http = try proxy("http_proxy", "HTTP_PROXY") ?? all
        if let (name, text) = value("no_proxy", "NO_PROXY") {
            do { configuration.bypass = try NoProxyRules(text) } catch { throw AuthCoreError(.invalidParameter, "\(name): \(error.reason)") }
        }
        return configuration
    }

    /// The proxy for `url`, or nil to connect directly.
    public func proxy(for url: RequestURL) -> HTTPProxy? {
        guard let proxy = url.scheme == "https" ? https : http else { return nil }
        return bypass.bypasses(host: url.host, port: url.port ?? (url.scheme == "https" ? 443 : 80)) ? nil : proxy
    }
}
