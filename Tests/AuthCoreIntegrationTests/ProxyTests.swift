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
    /// A name only squid resolves (to 127.0.0.1, from its own hosts file): loopback addresses never go
    /// through a proxy, so the CLI's requests, which read the environment, name the origin so.
    static let alias = "origin.authcore.test"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        squid = try LoopbackScript(
            script: "squid_proxy.py",
            arguments: [
                "--dir", directory.appendingPathComponent("squid").path, "--user", user, "--alias", Self.alias,
            ],
            environment: ["SQUID_TEST_PASSWORD": password]
        )
        squidPort = try #require(squid.announcement["port"] as? Int)
        accessLog = try #require(squid.announcement["accessLog"] as? String)
        let tlsDirectory = directory.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: tlsDirectory, withIntermediateDirectories: true)
        tls = try LoopbackScript(
            script: "tls_server.py",
            arguments: ["--dir", tlsDirectory.path, "--name", Self.alias]
        )
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

    /// A transport through `proxies`, loopback included (the origins here are all on loopback).
    func transport(_ proxies: ProxyConfiguration, keepingConnections: Bool = true) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.trustedCertificatesFile = caFile
        var proxies = proxies
        proxies.proxiesLoopback = true
        configuration.proxies = .configured(proxies)
        if !keepingConnections { configuration.maximumIdleConnectionsPerHost = 0 }
        return try HTTP1Transport(configuration: configuration)
    }

    /// squid's access log once it holds a line containing `text` (it writes a transaction when it
    /// ends; the wait is bounded), or what it holds after 10 s.
    func accessLog(containing text: String) async throws -> String {
        var log = ""
        for _ in 0..<100 {
            log = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
            if log.contains(text) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Then until it stops changing (other transactions that ended at the same time), bounded.
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(250))
            let later = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
            if later == log { break }
            log = later
        }
        return log
    }

    @Test(
        "https through squid: one CONNECT tunnel with Basic credentials for three requests, TLS end to end, no credential at the origin"
    )
    func httpsThroughTunnel() async throws {
        let proxy = try HTTPProxy(url: proxyURL(password: password))
        do {
            let transport = try transport(ProxyConfiguration(https: proxy))
            for _ in 0..<2 {
                let response = try await transport.send(
                    HTTPRequest(method: "GET", url: try RequestURL("https://127.0.0.1:\(tlsPort)/ok"))
                )
                #expect(response.status == 200)
                #expect(
                    String(decoding: response.body.plainBytes, as: UTF8.self)
                        == #"{"ok": true, "host": "127.0.0.1:\#(tlsPort)"}"#
                )
            }
            // What reached the origin: its own Host, and nothing meant for the proxy.
            let echoed = try await transport.send(
                HTTPRequest(method: "GET", url: try RequestURL("https://127.0.0.1:\(tlsPort)/headers"))
            )
            let fields = try #require(
                try JSONSerialization.jsonObject(with: Data(echoed.body.plainBytes)) as? [[String]]
            )
            #expect(fields.contains(["Host", "127.0.0.1:\(tlsPort)"]))
            #expect(!fields.contains { $0.first?.lowercased().hasPrefix("proxy") == true }, "\(fields)")
        }  // the transport and its pool end here: the tunnel closes, and squid logs it
        let log = try await accessLog(containing: "CONNECT 127.0.0.1:\(tlsPort) \(user)")
        let tunnels = log.split(separator: "\n").filter { $0.contains("CONNECT 127.0.0.1:\(tlsPort) \(user)") }
        #expect(tunnels.count == 1, "one tunnel, reused by the three requests: \(log)")
        // The tunnel carries TLS, so squid never saw the requests' paths.
        #expect(!log.contains("/ok") && !log.contains("/headers"))
    }

    @Test("plain http through squid in absolute form: a SigV4-signed GET that rclone verifies")
    func plainHTTPThroughProxy() async throws {
        let seed = try RcloneSeedObject()
        let transport = try transport(
            ProxyConfiguration(http: try HTTPProxy(url: proxyURL(password: password))),
            keepingConnections: false
        )
        let response = try await seed.get(
            try RequestURL(seed.endpoint + seed.path),
            through: SignedRequestSender(transport: transport)
        )
        #expect(response.status == 200, "\(String(decoding: response.body.plainBytes, as: UTF8.self))")
        #expect(response.body.plainBytes == RcloneSeedObject.content)
        let log = try await accessLog(containing: "GET \(seed.endpoint)\(seed.path) \(user)")
        #expect(log.contains("GET \(seed.endpoint)\(seed.path) \(user)"), "squid's log: \(log)")
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
            expectNoSecret(
                error,
                [wrong, password, proxyURL(password: wrong), Data("\(user):\(wrong)".utf8).base64EncodedString()]
            )
        }
        let anonymous = try self.transport(
            ProxyConfiguration(https: try HTTPProxy(url: "http://127.0.0.1:\(squidPort)"))
        )
        do {
            _ = try await anonymous.send(request)
            Issue.record("squid let a request without credentials through")
        } catch {
            #expect(
                error.code == .notPermitted && error.httpStatus == 407 && error.reason.contains("requires credentials"),
                "\(error)"
            )
        }
        expectNoSecret(transport.configuration, [wrong, Data("\(user):\(wrong)".utf8).base64EncodedString()])
    }

    @Test("NO_PROXY: a matching host goes direct (the proxy named is dead), any other goes to it")
    func noProxyBypass() async throws {
        // A proxy nobody listens on: a request that used it would fail.
        let dead = try HTTPProxy(url: "http://127.0.0.1:\(try closedLoopbackPort())")
        for (rules, direct, proxied) in [
            ("localhost", "localhost", "127.0.0.1"), ("127.0.0.0/8", "127.0.0.1", "localhost"),
            ("localhost:\(tlsPort)", "localhost", "127.0.0.1"),
        ] {
            let transport = try transport(ProxyConfiguration(https: dead, bypass: NoProxyRules(rules)))
            let response = try await transport.send(
                HTTPRequest(method: "GET", url: try RequestURL("https://\(direct):\(tlsPort)/ok"))
            )
            #expect(response.status == 200, "\(rules): \(direct)")
            await #expect(throws: AuthCoreError(.transportFailure, ""), "\(rules): \(proxied) went direct") {
                try await transport.send(
                    HTTPRequest(method: "GET", url: try RequestURL("https://\(proxied):\(tlsPort)/ok"))
                )
            }
        }
    }

    @Test("the CLI reads HTTPS_PROXY and trusts SSL_CERT_FILE's CA: a tunnel through squid")
    func cliHTTPSThroughProxy() async throws {
        let environment: [String: String?] = [
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "AWS_SESSION_TOKEN": nil,
            "HTTPS_PROXY": proxyURL(password: password), "NO_PROXY": nil, "no_proxy": nil, "https_proxy": nil,
            "SSL_CERT_FILE": caFile,
            "AWS_CA_BUNDLE": nil,
        ]
        let result = try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "https://\(Self.alias):\(tlsPort)/ok"],
            environment: environment
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"ok": true, "host": "\#(Self.alias):\#(tlsPort)"}"#)
        let log = try await accessLog(containing: "CONNECT \(Self.alias):\(tlsPort) \(user)")
        #expect(log.contains("CONNECT \(Self.alias):\(tlsPort) \(user)"), "squid's log: \(log)")
        // A loopback address goes direct whatever the environment says (the proxy would reach its own loopback).
        let direct = try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "https://127.0.0.1:\(tlsPort)/ok"],
            environment: environment
        )
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(!(try await accessLog(containing: "never")).contains("CONNECT 127.0.0.1:\(tlsPort)"))
    }

    @Test(
        "the AWS commands trust only AWS_CA_BUNDLE's certificates when it is set (as the AWS CLI does); a bundle that cannot be read is a usage error"
    )
    func cliAWSCABundle() async throws {
        let url = "https://127.0.0.1:\(tlsPort)/ok"
        let base: [String: String?] = [
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "AWS_SESSION_TOKEN": nil,
            "HTTPS_PROXY": nil, "https_proxy": nil, "ALL_PROXY": nil, "all_proxy": nil,
        ]
        func run(_ overrides: [String: String?]) throws -> ProcessResult {
            try authcore(
                ["sigv4", "send", "--region", "us-east-1", "--service", "s3", url],
                environment: base.merging(overrides) { $1 }
            )
        }
        // The private CA only through AWS_CA_BUNDLE (the system store does not have it).
        let bundled = try run(["AWS_CA_BUNDLE": caFile, "SSL_CERT_FILE": nil])
        #expect(bundled.status == 0, "\(bundled.stderr)")
        #expect(bundled.stdout.contains(#""ok": true"#))
        // The bundle replaces the system store: SSL_CERT_FILE's CA is then not trusted.
        let replaced = try run(["AWS_CA_BUNDLE": "/etc/ssl/certs/ca-certificates.crt", "SSL_CERT_FILE": caFile])
        #expect(replaced.status == 1)
        #expect(replaced.stderr.contains("certificate"), "\(replaced.stderr)")
        // Without it, the system store with SSL_CERT_FILE.
        let system = try run(["AWS_CA_BUNDLE": nil, "SSL_CERT_FILE": caFile])
        #expect(system.status == 0, "\(system.stderr)")
        let missing = try run(["AWS_CA_BUNDLE": "/nonexistent/bundle.pem", "SSL_CERT_FILE": caFile])
        #expect(missing.status == 2)
        #expect(
            missing.stderr.hasPrefix("error: AWS_CA_BUNDLE: trusted certificates file cannot be loaded"),
            "\(missing.stderr)"
        )
    }

    /// A loopback port nothing listens on (bound, then closed).
    func closedLoopbackPort() throws -> Int {
        let (descriptor, port) = try #require(loopbackListener(backlog: nil))
        close(descriptor)
        return port
    }
}
