import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The transport's side of a proxy, byte for byte, against a scripted loopback proxy: the heads it
/// sends (CONNECT, absolute form) and what it makes of each answer. The origins are names that are
/// never resolved: everything goes to the proxy on 127.0.0.1.
@Suite("Proxy tunnels: the heads sent and every kind of answer", .serialized)
struct ProxyTunnelTests {
    let credentials = "Basic " + Data("alice:s3cret".utf8).base64EncodedString()

    func transport(_ port: Int, connectTimeout: Duration = .seconds(10)) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        let proxy = try HTTPProxy(url: "http://alice:s3cret@127.0.0.1:\(port)")
        configuration.proxies = .configured(ProxyConfiguration(https: proxy, http: proxy))
        configuration.connectTimeout = connectTimeout
        configuration.maximumIdleConnectionsPerHost = 0
        return try HTTP1Transport(configuration: configuration)
    }

    /// Serves one scripted answer on a thread of its own; returns the request head it read.
    func scripted(_ answer: String, trickle: Duration? = nil) throws -> (port: Int, head: @Sendable () async -> String)
    {
        let listener = try OneShotListener()
        let head = Locked<String?>(nil)
        Thread.detachNewThread {
            let received = listener.serveOnce(answer, trickle: trickle)
            head.withLock { $0 = received }
        }
        return (
            listener.port,
            {
                // bounded: 10 s
                for _ in 0..<1000 where head.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(10)) }
                return head.withLock { $0 } ?? ""
            }
        )
    }

    func failure(_ request: HTTPRequest, _ transport: HTTP1Transport) async -> AuthCoreError? {
        do {
            let response = try await transport.send(request)
            Issue.record("answered \(response.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "CONNECT names the origin's authority, carries the Basic credentials once, and nothing else; after 1xx and 200 TLS starts"
    )
    func connectHead() async throws {
        let (port, head) = try scripted("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 Connection established\r\n\r\n")
        let error = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example:8443/secret/path?token=x")),
            try transport(port)
        )
        // The tunnel was accepted: what failed is the TLS handshake with a "proxy" that then closed.
        #expect(
            error?.code == .transportFailure && error?.reason.contains("tunnel") == false,
            "\(String(describing: error))"
        )
        #expect(
            await head()
                == "CONNECT origin.example:8443 HTTP/1.1\r\nHost: origin.example:8443\r\nProxy-Authorization: \(credentials)\r\n\r\n"
        )
    }

    @Test("a plaintext answer after the 200 is not taken for the origin's: TLS refuses it")
    func plaintextAfterTunnel() async throws {
        let (port, _) = try scripted("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let error = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example/")),
            try transport(port)
        )
        #expect(
            error?.code == .transportFailure && error?.reason.contains("TLS") == true,
            "\(String(describing: error))"
        )
    }

    @Test("a 407 is notPermitted with its status, whatever its body's framing; no credential in the error")
    func proxyAuthenticationRequired() async throws {
        let (port, _) = try scripted(
            "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 99999999999999\r\n\r\n"
        )
        let error = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example/")),
            try transport(port)
        )
        #expect(error?.code == .notPermitted && error?.httpStatus == 407, "\(String(describing: error))")
        #expect(error.map { !"\($0)".contains("s3cret") && !"\($0)".contains(credentials) } == true)
    }

    @Test("other refusals name their status; a head that is not HTTP is malformed")
    func refusals() async throws {
        let (port, _) = try scripted("HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\nzzzz")
        let refused = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example/")),
            try transport(port)
        )
        #expect(
            refused?.code == .transportFailure
                && refused?.reason.contains("refused the tunnel to origin.example:443 (403)") == true,
            "\(String(describing: refused))"
        )
        let (garbagePort, _) = try scripted("SSH-2.0-OpenSSH\r\n\r\n")
        let garbage = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example/")),
            try transport(garbagePort)
        )
        #expect(
            garbage?.code == .transportFailure && garbage?.reason.contains("not valid HTTP/1.1") == true,
            "\(String(describing: garbage))"
        )
    }

    @Test("a proxy that trickles its answer is cut off at the connect limit")
    func tricklingProxy() async throws {
        let (port, _) = try scripted(
            "HTTP/1.1 200 Connection established\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n",
            trickle: .milliseconds(100)
        )
        let error = await failure(
            HTTPRequest(method: "GET", url: try RequestURL("https://origin.example/")),
            try transport(port, connectTimeout: .seconds(1))
        )
        #expect(error?.code == .timedOut, "\(String(describing: error))")
    }

    @Test("plain http goes in absolute form with one Proxy-Authorization line; a 407 there is notPermitted too")
    func absoluteForm() async throws {
        let (port, head) = try scripted("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        let request = HTTPRequest(
            method: "GET",
            url: try RequestURL("http://origin.example/p?q=1"),
            allowsInsecureHTTP: true
        )
        let response = try await transport(port).send(request)
        #expect(response.status == 200 && response.body.plainBytes == Array("ok".utf8))
        #expect(
            await head()
                == "GET http://origin.example/p?q=1 HTTP/1.1\r\nHost: origin.example\r\nConnection: close\r\nProxy-Authorization: \(credentials)\r\n\r\n"
        )
        let (refusing, _) = try scripted("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
        let error = await failure(request, try transport(refusing))
        #expect(error?.code == .notPermitted && error?.httpStatus == 407, "\(String(describing: error))")
        // Through a proxy, a Host other than the URL's would let the proxy check one host and the origin serve another.
        var lying = request
        lying.headers = [HTTPHeader("Host", "other.example")]
        await #expect(throws: AuthCoreError(.malformedRequest, "")) { try await transport(port).send(lying) }
        await #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try await transport(port).send(
                HTTPRequest(method: "CONNECT", url: try RequestURL("https://origin.example/"))
            )
        }
    }
}
