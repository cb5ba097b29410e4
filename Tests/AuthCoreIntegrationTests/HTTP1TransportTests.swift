import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The default transport over real TLS: `scripts/tls_server.py` (Python's `ssl`, OpenSSL) serves a
/// certificate chain made by the `openssl` command from a test CA. The server checks nothing; these
/// tests prove what the client accepts (a chain to a trusted root that names the host) and refuses.
@Suite("HTTP/1.1 transport over TLS: verified chain and name, framing and caps", .serialized)
final class HTTP1TransportTests {
    let server: LoopbackScript
    let port: Int
    let wrongNamePort: Int
    let caFile: String
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try LoopbackScript(script: "tls_server.py", arguments: ["--dir", directory.path])
        port = try #require(server.announcement["port"] as? Int)
        wrongNamePort = try #require(server.announcement["wrongNamePort"] as? Int)
        caFile = try #require(server.announcement["ca"] as? String)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func trusting(totalTimeout: Duration = .seconds(300)) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.trustedCertificatesFile = caFile
        configuration.totalTimeout = totalTimeout
        return try HTTP1Transport(configuration: configuration)
    }

    func get(
        _ url: String,
        _ transport: HTTP1Transport,
        cap: Int = NetworkPolicy.defaultMaximumResponseBytes,
        redirects: RedirectPolicy = .refuse
    )
        async throws(AuthCoreError) -> HTTPResponse
    {
        try await transport.send(
            HTTPRequest(method: "GET", url: try RequestURL(url), redirects: redirects, maximumResponseBytes: cap)
        )
    }

    /// Expects `body` to fail with `code` and a reason containing `text`.
    func expectFailure(
        _ code: AuthCoreError.Code,
        containing text: String = "",
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws(AuthCoreError) -> HTTPResponse
    ) async {
        do {
            let response = try await body()
            Issue.record(
                "\(what) was accepted: \(response.status), \(response.body.count) bytes",
                sourceLocation: sourceLocation
            )
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            if !text.isEmpty { #expect(error.reason.contains(text), "\(error.reason)", sourceLocation: sourceLocation) }
        }
    }

    @Test("a chain to the trusted CA that names the host is accepted, by name and by IP address SAN")
    func verifiedChain() async throws {
        let transport = try trusting()
        for host in ["localhost", "127.0.0.1"] {
            let response = try await get("https://\(host):\(port)/ok", transport)
            #expect(response.status == 200)
            #expect(
                String(decoding: response.body.plainBytes, as: UTF8.self)
                    == #"{"ok": true, "host": "\#(host):\#(port)"}"#
            )
            #expect(response.headers.first(named: "content-type") == "application/json")
        }
    }

    @Test("the system store does not trust the test CA: the handshake fails, nothing is sent")
    func untrustedChain() async throws {
        await expectFailure(.transportFailure, containing: "certificate not accepted", "an untrusted certificate") {
            () async throws(AuthCoreError) in try await get("https://localhost:\(port)/ok", HTTP1Transport())
        }
    }

    @Test("a trusted certificate for another name is refused (RFC 6125 name check)")
    func wrongName() async throws {
        let transport = try trusting()
        for host in ["localhost", "127.0.0.1"] {
            await expectFailure(
                .transportFailure,
                containing: "certificate not accepted",
                "a certificate for other.example at \(host)"
            ) { () async throws(AuthCoreError) in try await get("https://\(host):\(wrongNamePort)/ok", transport) }
        }
    }

    @Test("chunked bodies with extensions and trailers decode over TLS; an endless one stops at the cap")
    func framingOverTLS() async throws {
        let transport = try trusting()
        let chunked = try await get("https://localhost:\(port)/chunked", transport)
        #expect(String(decoding: chunked.body.plainBytes, as: UTF8.self) == "hello world")
        await expectFailure(.inputTooLarge, containing: "exceeds the 1048576-byte limit", "an endless body") {
            () async throws(AuthCoreError) in
            try await get("https://localhost:\(port)/endless", transport, cap: 1 << 20)
        }
    }

    @Test(
        "over TLS, a body framed only by the close is refused when the peer closes without close_notify (a cut is undetectable)"
    )
    func unframedBodyOverTLS() async throws {
        let transport = try trusting()
        await expectFailure(.transportFailure, containing: "ended early", "an unframed body without close_notify") {
            () async throws(AuthCoreError) in try await get("https://localhost:\(port)/unframed", transport)
        }
    }

    @Test("a peer that trickles a byte every 0.2 s inside one TLS record read still ends at the total limit")
    func totalLimitOverTLS() async throws {
        let transport = try trusting(totalTimeout: .seconds(1))
        let start = ContinuousClock.now
        await expectFailure(.timedOut, "a trickled body") { () async throws(AuthCoreError) in
            try await get("https://localhost:\(port)/trickle", transport)
        }
        #expect(ContinuousClock.now - start < .seconds(10), "ended at the limit, not after the 200 s the body takes")
    }

    @Test("cancelling the calling task ends a trickling exchange at once")
    func cancellation() async throws {
        let transport = try trusting()
        let request = HTTPRequest(method: "GET", url: try RequestURL("https://localhost:\(port)/trickle"))
        let task = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled call completed")
        } catch let error as AuthCoreError {
            #expect(error.code == .cancelled, "\(error)")
        } catch {
            Issue.record("not an AuthCoreError: \(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("a same-origin redirect is followed only when the request opts in")
    func redirects() async throws {
        let transport = try trusting()
        let refused = try await get("https://localhost:\(port)/redirect", transport)
        #expect(refused.status == 302)
        let followed = try await get(
            "https://localhost:\(port)/redirect",
            transport,
            redirects: .followSameOrigin(maximum: 1)
        )
        #expect(followed.status == 200)
        #expect(String(decoding: followed.body.plainBytes, as: UTF8.self).contains(#""ok": true"#))
    }

    @Test("a trusted-certificates file that does not exist is an invalid parameter")
    func missingTrustFile() {
        var configuration = HTTP1Transport.Configuration()
        configuration.trustedCertificatesFile = directory.appendingPathComponent("missing.pem").path
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try HTTP1Transport(configuration: configuration) }
    }

    @Test("request fields the transport owns, and fields with CR or LF, are refused before connecting")
    func requestHeadChecks() async throws {
        let transport = try trusting()
        let url = try RequestURL("https://localhost:\(port)/ok")
        for headers in [
            [HTTPHeader("Connection", "keep-alive")], [HTTPHeader("Transfer-Encoding", "chunked")],
            [HTTPHeader("X-A", "a\r\nX-B: b")],
            [HTTPHeader("Content-Length", "5")],
        ] {
            await #expect(throws: AuthCoreError(.malformedRequest, "")) {
                try await transport.send(HTTPRequest(method: "GET", url: url, headers: headers))
            }
        }
        await #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try await transport.send(HTTPRequest(method: "GE T", url: url))
        }
    }
}
