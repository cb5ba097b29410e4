import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The default transport through a real proxy: squid (`scripts/squid_proxy.py`: Debian's squid on a
/// free loopback port, Basic credentials required, its access log read back), in front of the TLS
/// stand-in (`scripts/tls_server.py`, a test CA) and `rclone serve s3` (which checks SigV4).
@Suite("Proxies: CONNECT tunnels and absolute-form requests through squid, 407, NO_PROXY", .serialized)
final class ProxyTests {
    let squid: LoopbackScript
    let tls: LoopbackScript
    let squidPort: Int
    let accessLog: String
    let tlsPort: Int
    let caFile: String
    let directory: URL
    /// A password with characters the proxy URL must percent-encode.
    let password = "p@ss:w0rd/\(UUID().uuidString.prefix(8))"
    let user = "authcore"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        squid = try LoopbackScript(
            script: "squid_proxy.py", arguments: ["--dir", directory.appendingPathComponent("squid").path, "--user", user, "--password", password])
        squidPort = try #require(squid.announcement["port"] as? Int)
        accessLog = try #require(squid.announcement["accessLog"] as? String)
        let tlsDirectory = directory.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: tlsDirectory, withIntermediateDirectories: true)
        tls = try LoopbackScript(script: "tls_server.py", arguments: ["--dir", tlsDirectory.path])
        tlsPort = try #require(tls.announcement["port"] as? Int)
        caFile = try #require(tls.announcement["ca"] as? String)
    }

    deinit {
        squid.stop()
        tls.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The proxy URL with the credentials percent-encoded (`@`, `:` and `/` in the password).
    func proxyURL(password: String) -> String {
        let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
        return "http://\(user):\(encoded)@127.0.0.1:\(squidPort)"
    }

    func transport(_ proxies: ProxyConfiguration) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.trustedCertificatesFile = caFile
        configuration.proxies = .configured(proxies)
        return try HTTP1Transport(configuration: configuration)
    }

    /// squid's access log once it holds a line containing `text` (it writes a transaction when it
    /// ends; the wait is bounded), or what it holds after 10 s.
    func accessLog(containing text: String) async throws -> String {
        var log = ""
        for _ in 0..<100 {
            log = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
            if log.contains(text) { return log }
            try await Task.sleep(for: .milliseconds(100))
        }
        return log
    }

    @Test("https through squid: a CONNECT tunnel with Basic credentials, TLS verified end to end with the origin")
    func httpsThroughTunnel() async throws {
        let proxy = try HTTPProxy(url: proxyURL(password: password))
        let transport = try transport(ProxyConfiguration(https: proxy))
        let response = try await transport.send(HTTPRequest(method: "GET", url: try RequestURL("https://127.0.0.1:\(tlsPort)/ok")))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok": true, "host": "127.0.0.1:\#(tlsPort)"}"#)
        let log = try await accessLog(containing: "CONNECT 127.0.0.1:\(tlsPort) \(user)")
        #expect(log.contains("CONNECT 127.0.0.1:\(tlsPort) \(user)"), "squid's log: \(log)")
        // The tunnel carries TLS, so squid never saw the request's path.
        #expect(!log.contains("/ok"))
    }

    @Test("a wrong proxy password is squid's 407 as a typed error that shows no credential; none at all asks for them")
    func wrongPassword() async throws {
        let wrong = "wr0ng-\(UUID().uuidString.prefix(8))"
        let transport = try transport(ProxyConfiguration(https: try HTTPProxy(url: proxyURL(password: wrong))))
        let request = HTTPRequest(method: "GET", url: try RequestURL("https://127.0.0.1:\(tlsPort)/ok"))
        do {
            _ = try await transport.send(request)
            Issue.record("squid let a wrong password through")
        } catch {
            #expect(error.code == .notPermitted && error.httpStatus == 407, "\(error)")
            #expect(error.reason.contains("refused its credentials"), "\(error.reason)")
            expectNoSecret(error, [wrong, password, Data("\(user):\(wrong)".utf8).base64EncodedString()])
        }
        let anonymous = try self.transport(ProxyConfiguration(https: try HTTPProxy(url: "http://127.0.0.1:\(squidPort)")))
        do {
            _ = try await anonymous.send(request)
            Issue.record("squid let a request without credentials through")
        } catch {
            #expect(error.code == .notPermitted && error.httpStatus == 407 && error.reason.contains("requires credentials"), "\(error)")
        }
        expectNoSecret(transport.configuration, [wrong, Data("\(user):\(wrong)".utf8).base64EncodedString()])
    }

    @Test("NO_PROXY: a matching host goes direct (the proxy named is dead), any other goes to it")
    func noProxyBypass() async throws {
        // A proxy nobody listens on: a request that used it would fail.
        let dead = try HTTPProxy(url: "http://127.0.0.1:\(try closedLoopbackPort())")
        for (rules, direct, proxied) in [
            ("localhost", "localhost", "127.0.0.1"), ("127.0.0.0/8", "127.0.0.1", "localhost"), ("localhost:\(tlsPort)", "localhost", "127.0.0.1"),
        ] {
            let transport = try transport(ProxyConfiguration(https: dead, bypass: try NoProxyRules(rules)))
            let response = try await transport.send(HTTPRequest(method: "GET", url: try RequestURL("https://\(direct):\(tlsPort)/ok")))
            #expect(response.status == 200, "\(rules): \(direct)")
            await #expect(throws: AuthCoreError(.transportFailure, ""), "\(rules): \(proxied) went direct") {
                try await transport.send(HTTPRequest(method: "GET", url: try RequestURL("https://\(proxied):\(tlsPort)/ok")))
            }
        }
    }

    @Test("the CLI reads HTTP_PROXY: a signed GET to rclone in absolute form through squid, verified by rclone")
    func cliPlainHTTPThroughProxy() async throws {
        let endpoint = try peerEnvironment("AUTHCORE_RCLONE_URL")
        let bucket = try peerEnvironment("AUTHCORE_RCLONE_BUCKET")
        let key = try peerEnvironment("AUTHCORE_RCLONE_SEED_KEY")
        let environment: [String: String?] = [
            "AWS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_RCLONE_ACCESS_KEY_ID"),
            "AWS_SECRET_ACCESS_KEY": try peerEnvironment("AUTHCORE_RCLONE_SECRET_ACCESS_KEY"), "AWS_SESSION_TOKEN": nil,
            "HTTP_PROXY": proxyURL(password: password), "NO_PROXY": nil, "no_proxy": nil, "http_proxy": nil,
        ]
        let path = "/\(bucket)/\(key)"
        let result = try authcore(["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", endpoint + path], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello from rclone\n")
        let log = try await accessLog(containing: "GET \(endpoint)\(path) \(user)")
        #expect(log.contains("GET \(endpoint)\(path) \(user)"), "squid's log: \(log)")
        #expect(!result.stderr.contains(password))
    }

    @Test("the CLI reads HTTPS_PROXY and trusts SSL_CERT_FILE's CA: a tunnel through squid")
    func cliHTTPSThroughProxy() async throws {
        let environment: [String: String?] = [
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "AWS_SESSION_TOKEN": nil,
            "HTTPS_PROXY": proxyURL(password: password), "NO_PROXY": nil, "no_proxy": nil, "https_proxy": nil, "SSL_CERT_FILE": caFile,
        ]
        let result = try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "https://localhost:\(tlsPort)/ok"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"ok": true, "host": "localhost:\#(tlsPort)"}"#)
        let log = try await accessLog(containing: "CONNECT localhost:\(tlsPort) \(user)")
        #expect(log.contains("CONNECT localhost:\(tlsPort) \(user)"), "squid's log: \(log)")
    }

    /// A loopback port nothing listens on (bound, then closed).
    func closedLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
