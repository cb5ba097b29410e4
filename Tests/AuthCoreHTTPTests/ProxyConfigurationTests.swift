import AuthCore
import Foundation
import Testing

@testable import AuthCoreHTTP

/// Proxy URLs and `NO_PROXY` lists as curl reads them (curl's `CURLOPT_NOPROXY` and environment
/// documentation), and the environment's precedence.
@Suite("Proxies: URLs, NO_PROXY rules, the environment, and credentials never shown")
struct ProxyConfigurationTests {
    func url(_ text: String) throws -> RequestURL { try RequestURL(text) }

    @Test("a proxy URL: scheme optional, curl's default port 1080, user info percent-decoded into Basic credentials")
    func proxyURLs() throws {
        let plain = try HTTPProxy(url: "proxy.internal:3128")
        #expect(plain.host == "proxy.internal" && plain.port == 3128 && !plain.hasCredentials)
        #expect(try HTTPProxy(url: "http://PROXY.internal/").port == 1080)
        #expect(try HTTPProxy(url: "http://[::1]:8080").host == "[::1]")
        let secret = try HTTPProxy(url: "http://al%69ce:p%40ss%3Aw0rd@127.0.0.1:3128")
        // Independent of the parser: Foundation's Base64 of the decoded pair (RFC 7617 §2).
        let expected = "Basic " + Data("alice:p@ss:w0rd".utf8).base64EncodedString()
        #expect(secret.authorization == SecureBytes(Array(expected.utf8)))
        // An `@` left unencoded in the password: the last `@` ends the user info.
        #expect(
            try HTTPProxy(url: "http://bob:a@b@127.0.0.1:1").authorization
                == SecureBytes(Array(("Basic " + Data("bob:a@b".utf8).base64EncodedString()).utf8))
        )
        #expect(
            try HTTPProxy(url: "http://carol@127.0.0.1:1").authorization
                == SecureBytes(Array(("Basic " + Data("carol:".utf8).base64EncodedString()).utf8))
        )
        let built = try HTTPProxy(
            host: "127.0.0.1",
            port: 3128,
            username: "alice",
            password: SecureBytes(Array("p@ss:w0rd".utf8))
        )
        #expect(built == secret)
    }

    @Test(
        "malformed proxy URLs are refused without quoting them",
        arguments: [
            "", "https://proxy:443", "socks5://proxy:1080", "http://proxy:3128/path", "http://proxy:99999",
            "http://pro xy:1", "http://:1",
            "http://user:Pw7Secret@", "http://proxy:port", "http://proxy:1?q", "http://proxy:1#f",
            "http://a%3Ab:Pw7Secret@proxy:1",
        ]
    )
    func malformedProxyURLs(text: String) {
        do {
            _ = try HTTPProxy(url: text)
            Issue.record("accepted '\(text)'")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(error.reason.hasPrefix("proxy "), "\(error.reason)")
            for piece in ["Pw7Secret", "proxy:", "pro xy", "socks5"] {
                #expect(!error.reason.contains(piece), "\(error.reason)")
            }
        }
    }

    @Test("a proxy built from parts: the port range, the host, and a user name without ':' are checked")
    func proxyFromParts() {
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try HTTPProxy(host: "127.0.0.1", port: 70000) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try HTTPProxy(host: "127.0.0.1/x", port: 80) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try HTTPProxy(host: "proxy?", port: 80) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try HTTPProxy(host: "127.0.0.1", port: 3128, username: "a:b")
        }
    }

    @Test("credentials appear in no description, mirror or dump")
    func credentialsNeverShown() throws {
        let password = "Sup3rS3cret!"
        let proxy = try HTTPProxy(url: "http://alice:\(password)@127.0.0.1:3128")
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(ProxyConfiguration(https: proxy, http: proxy))
        var dumped = ""
        dump(configuration, to: &dumped)
        let base64 = Data("alice:\(password)".utf8).base64EncodedString()
        for text in [
            "\(proxy)", String(reflecting: proxy), "\(configuration)", String(reflecting: configuration), dumped,
        ] {
            #expect(!text.contains(password) && !text.contains(base64) && !text.contains("alice"), "\(text)")
        }
        #expect("\(proxy)" == "http://127.0.0.1:3128")
    }

    @Test("NO_PROXY: names match themselves and names under them, a leading dot the same, case-insensitively")
    func noProxyNames() throws {
        let rules = NoProxyRules("example.com, .internal.test ,LOCALHOST, *.wild.test")
        #expect(rules.bypasses(host: "example.com", port: 443))
        #expect(rules.bypasses(host: "api.example.com", port: 443))
        #expect(rules.bypasses(host: "example.com.", port: 443))
        #expect(!rules.bypasses(host: "notexample.com", port: 443))
        #expect(!rules.bypasses(host: "example.com.evil", port: 443))
        #expect(rules.bypasses(host: "internal.test", port: 80))
        #expect(rules.bypasses(host: "a.b.internal.test", port: 80))
        #expect(rules.bypasses(host: "localhost", port: 1))
        #expect(!rules.bypasses(host: "127.0.0.1", port: 1), "a name never matches an address")
        #expect(rules.bypasses(host: "a.wild.test", port: 1) && rules.bypasses(host: "wild.test", port: 1))
        #expect(rules.ignoredEntries.isEmpty)
    }

    @Test("NO_PROXY: addresses, CIDR networks, IPv6 without brackets, ports, and *")
    func noProxyAddresses() throws {
        let rules = NoProxyRules("10.0.0.0/8,192.168.1.7,::1,fd00::/8,internal.example:8443,[fe80::1]:9000")
        #expect(rules.bypasses(host: "10.200.3.4", port: 443))
        #expect(!rules.bypasses(host: "11.0.0.1", port: 443))
        #expect(rules.bypasses(host: "192.168.1.7", port: 80))
        #expect(!rules.bypasses(host: "192.168.1.8", port: 80))
        #expect(rules.bypasses(host: "[::1]", port: 80))
        #expect(rules.bypasses(host: "[fd12:3456::1]", port: 80))
        #expect(!rules.bypasses(host: "[fe00::1]", port: 80))
        #expect(rules.bypasses(host: "internal.example", port: 8443))
        #expect(!rules.bypasses(host: "internal.example", port: 443))
        #expect(rules.bypasses(host: "[fe80::1]", port: 9000))
        #expect(!rules.bypasses(host: "[fe80::1]", port: 9001))
        #expect(!rules.bypasses(host: "10.0.0.1.example", port: 443))
        let odd = NoProxyRules("172.16.0.0/12")
        #expect(odd.bypasses(host: "172.31.255.255", port: 1))
        #expect(!odd.bypasses(host: "172.32.0.0", port: 1))
        #expect(NoProxyRules(" * ").bypasses(host: "anything.example", port: 1))
        #expect(!NoProxyRules("").bypasses(host: "anything.example", port: 1))
        // `*` is a wildcard only as the whole list (curl): inside one it is an entry nobody can match.
        let starInList = NoProxyRules("example.com,*")
        #expect(!starInList.bypasses(host: "anything.example", port: 1) && starInList.ignoredEntries == ["*"])
    }

    @Test(
        "NO_PROXY entries that are not names, addresses or networks are ignored, as curl ignores them; the rest still apply"
    )
    func malformedNoProxy() {
        let malformed = [
            "10.0.0.0/33", "::1/129", "host:0", "host:65536", "bad host", "a/b", "[::1", "ex*ample", "<local>",
            "caf\u{E9}.example",
        ]
        let rules = NoProxyRules((malformed + ["good.example"]).joined(separator: ","))
        #expect(rules.ignoredEntries == malformed)
        #expect(rules.bypasses(host: "good.example", port: 443))
        #expect(!rules.bypasses(host: "10.0.0.1", port: 443) && !rules.bypasses(host: "host", port: 1))
    }

    @Test(
        "the environment: lower case first, ALL_PROXY for a scheme without its own, empty is unset, errors name the variable"
    )
    func environment() throws {
        let configuration = try ProxyConfiguration.fromEnvironment([
            "https_proxy": "http://127.0.0.1:1", "HTTPS_PROXY": "http://127.0.0.1:2",
            "HTTP_PROXY": "http://127.0.0.1:3", "NO_PROXY": "internal.example",
            "ALL_PROXY": "socks5://127.0.0.1:4",
        ])
        #expect(configuration.https?.port == 1)
        #expect(configuration.http?.port == 3)
        #expect(configuration.proxy(for: try url("https://example.com/"))?.port == 1)
        #expect(configuration.proxy(for: try url("http://example.com/"))?.port == 3)
        #expect(configuration.proxy(for: try url("https://api.internal.example:8443/")) == nil)
        let all = try ProxyConfiguration.fromEnvironment(["ALL_PROXY": "127.0.0.1:9", "https_proxy": ""])
        #expect(all.https?.port == 9 && all.http?.port == 9)
        #expect(try ProxyConfiguration.fromEnvironment([:]) == .direct)
        #expect(
            try ProxyConfiguration.fromEnvironment(["NO_PROXY": "<local>"]) == .direct,
            "no proxy, so NO_PROXY is not read"
        )
        do {
            _ = try ProxyConfiguration.fromEnvironment(["HTTPS_PROXY": "https://user:hunter2@proxy:1"])
            Issue.record("an https:// proxy was accepted")
        } catch {
            #expect(
                error.code == .invalidParameter && error.reason.hasPrefix("HTTPS_PROXY:")
                    && !error.reason.contains("hunter2"),
                "\(error.reason)"
            )
        }
    }

    @Test("httpoxy: in a CGI program (REQUEST_METHOD set) HTTP_PROXY in capitals is a request header, not a setting")
    func httpoxy() throws {
        let cgi = try ProxyConfiguration.fromEnvironment([
            "REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker.example:8080",
        ])
        #expect(cgi.http == nil)
        let cgiLower = try ProxyConfiguration.fromEnvironment([
            "REQUEST_METHOD": "GET", "http_proxy": "http://127.0.0.1:3128",
        ])
        #expect(cgiLower.http?.port == 3128)
        #expect(try ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://127.0.0.1:3128"]).http?.port == 3128)
    }

    @Test("loopback hosts never go through a proxy unless the configuration says so")
    func loopbackGoesDirect() throws {
        let configuration = try ProxyConfiguration.fromEnvironment([
            "https_proxy": "http://127.0.0.1:1", "http_proxy": "http://127.0.0.1:1",
        ])
        for target in [
            "http://127.0.0.1:8080/", "https://localhost/", "http://api.localhost/", "https://[::1]:9000/",
            "http://127.255.0.9/",
        ] {
            #expect(configuration.proxy(for: try url(target)) == nil, "\(target)")
        }
        #expect(configuration.proxy(for: try url("https://example.com/")) != nil)
        var opted = configuration
        opted.proxiesLoopback = true
        #expect(opted.proxy(for: try url("https://localhost/")) != nil)
    }

    @Test("a malformed proxy environment fails every request of the default transport, rather than bypass the proxy")
    func malformedEnvironmentFailsClosed() async throws {
        let transport = try HTTP1Transport(
            configuration: HTTP1Transport.Configuration(),
            environment: ["HTTPS_PROXY": "https://user:hunter2@proxy:1"]
        )
        let request = HTTPRequest(method: "GET", url: try url("https://127.0.0.1:1/"))
        do {
            _ = try await transport.send(request)
            Issue.record("sent without its proxy")
        } catch {
            #expect(
                error.code == .invalidParameter && error.reason.hasPrefix("HTTPS_PROXY:")
                    && !error.reason.contains("hunter2"),
                "\(error.reason)"
            )
        }
        // A configured selection ignores the environment.
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        let direct = try HTTP1Transport(
            configuration: configuration,
            environment: ["HTTPS_PROXY": "https://user:hunter2@proxy:1"]
        )
        await #expect(throws: AuthCoreError(.transportFailure, "")) { try await direct.send(request) }
    }

    @Test("a request cannot set Proxy-Authorization itself (the transport owns it)")
    func proxyAuthorizationIsTheTransports() async throws {
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        let transport = try HTTP1Transport(configuration: configuration)
        let request = HTTPRequest(
            method: "GET",
            url: try url("http://127.0.0.1:1/"),
            headers: [HTTPHeader("Proxy-Authorization", "Basic eDp5")]
        )
        await #expect(throws: AuthCoreError(.malformedRequest, "")) { try await transport.send(request) }
    }
}
