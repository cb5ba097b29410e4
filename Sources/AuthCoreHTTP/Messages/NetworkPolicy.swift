public import AuthCore

/// The network policy every client in the package follows (design.md, "Network policy"):
///
/// - `https` only, except to loopback hosts, unless the caller opts in with `allowInsecureHTTP`;
/// - signed requests never follow redirects; unsigned ones follow none unless the app opts in
///   (``RedirectPolicy/followSameOrigin(maximum:)``), and then never across origins;
/// - response bodies are capped while they are received (``HTTPRequest/maximumResponseBytes``), and a
///   larger `Content-Length` is refused before reading;
/// - clock skew is learned only from a recognised skew answer, bounded (`ClockSkewTracker`).
public enum NetworkPolicy {
    /// The default cap on a response body: 64 MiB.
    public static let defaultMaximumResponseBytes = 64 << 20
    /// The cap on a JSON or XML control-plane answer (Cognito, identity, STS, token vending): 1 MiB.
    public static let controlPlaneMaximumResponseBytes = 1 << 20

    /// Whether `host` is a loopback host: `localhost` (and names under `.localhost`, RFC 6761 §6.3),
    /// an IPv4 address in 127.0.0.0/8, or `[::1]`. Read on bytes, ASCII case-insensitive.
    public static func isLoopback(host: String) -> Bool {
        if isLocalhostName(host) || host.utf8.elementsEqual("[::1]".utf8) { return true }
        let parts = Array(host.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].elementsEqual("127".utf8) else { return false }
        // Dotted decimal only, no leading zeros: `127.0.0.09` is no address to the C library (a
        // leading 0 is octal there), so it would be looked up in DNS.
        return parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                && (part.count == 1 || part.first != UInt8(ascii: "0"))
                && part.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }

    /// Whether `host` is `localhost` or a name under `.localhost` (ASCII case-insensitive): names that
    /// are loopback by definition (RFC 6761 §6.3), which a transport connects to 127.0.0.1 and ::1
    /// without asking DNS (a resolver could answer anything for them).
    public static func isLocalhostName(_ host: String) -> Bool {
        let bytes = Array(host.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        let name = Array("localhost".utf8)
        return bytes == name
            || (bytes.count > name.count + 1 && bytes.suffix(name.count + 1).elementsEqual([UInt8(ascii: ".")] + name))
    }

    /// Refuses plain `http` to a host that is not loopback, unless `allowInsecureHTTP`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` naming the origin.
    public static func requireSecureTransport(_ url: RequestURL, allowInsecureHTTP: Bool) throws(AuthCoreError) {
        guard url.scheme == "http", !allowInsecureHTTP, !isLoopback(host: url.host) else { return }
        throw AuthCoreError(
            .invalidParameter,
            "\(url.origin): plain http is refused for hosts other than loopback (use https, or opt in with allowInsecureHTTP)"
        )
    }

    /// A service endpoint from a caller's text (or the default), checked against the policy.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed URL or plain http
    ///   to a host that is not loopback without `allowInsecureHTTP`.
    public static func endpoint(
        _ text: String?,
        default defaultURL: String,
        allowInsecureHTTP: Bool
    ) throws(AuthCoreError) -> RequestURL {
        let url: RequestURL
        do { url = try RequestURL(text ?? defaultURL) } catch {
            throw AuthCoreError(.invalidParameter, "endpoint: \(error.reason)")
        }
        try requireSecureTransport(url, allowInsecureHTTP: allowInsecureHTTP)
        return url
    }

    /// Whether two URLs have the same origin (scheme, host and effective port; RFC 6454 §4).
    public static func sameOrigin(_ a: RequestURL, _ b: RequestURL) -> Bool {
        func port(_ url: RequestURL) -> Int { url.port ?? (url.scheme == "https" ? 443 : 80) }
        return a.scheme == b.scheme && a.host == b.host && port(a) == port(b)
    }
}

/// What a transport does with a 3xx answer.
public enum RedirectPolicy: Sendable, Equatable {
    /// Never follow: the 3xx answer is returned as it is (the default, and the only policy for
    /// signed requests: a redirect would carry `Authorization` and tokens to another place).
    case refuse
    /// Follow at most `maximum` redirects, each to the same origin as the request; a redirect to
    /// another origin is not followed (its 3xx answer is returned).
    case followSameOrigin(maximum: Int)
}
