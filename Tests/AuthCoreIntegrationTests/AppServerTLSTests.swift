import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// The app server over TLS (MHD's, from PEM files), with a certificate chain the `openssl` command
/// made from a test CA (scripts/tls_server.py writes them; its own listeners are not used). The
/// client is the library's transport, which verifies the chain and the name.
@Suite("App server over TLS: a login over https; a client without the CA refuses it", .serialized)
final class AppServerTLSTests {
    let certificates: LoopbackScript
    let directory: URL
    let caFile: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-serve-tls-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificates = try LoopbackScript(script: "tls_server.py", arguments: ["--dir", directory.path])
        caFile = try #require(certificates.announcement["ca"] as? String)
    }

    deinit {
        certificates.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test(
        "srp login over https to 127.0.0.1 (an IP SAN), the key file read as a secret file; an untrusting client and plain http are refused"
    )
    func loginOverTLS() async throws {
        let keyFile = directory.appendingPathComponent("good.key").path
        _ = chmod(keyFile, 0o600)
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let password = SecureBytes(Array("over tls".utf8))
        let store = InMemoryHandshakeStore()
        let app = AppServer(
            logins: try SRPLoginService(
                configuration: configuration,
                verifiers: try StaticVerifierStore(
                    ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
                    configuration: configuration
                ),
                handshakes: store,
                serverSecret: SecureBytes([UInt8](repeating: 9, count: 32))
            ),
            sessions: try AppSessions(store: store, serverSecret: SecureBytes([UInt8](repeating: 9, count: 32)))
        )
        var listen = HTTPServer.Configuration()
        listen.tls = try HTTPServer.TLSIdentity(
            certificateFile: directory.appendingPathComponent("good.pem").path,
            privateKeyFile: keyFile
        )
        let server = try HTTPServer(configuration: listen) { request in await app.handle(request) }
        #expect(server.url.hasPrefix("https://127.0.0.1:"))

        var trusting = HTTP1Transport.Configuration()
        trusting.trustedCertificatesFile = caFile
        let client = try SRPLoginClient(
            server: try RequestURL(server.url),
            configuration: configuration,
            transport: try HTTP1Transport(configuration: trusting)
        )
        #expect(try await client.login(username: "alice", password: password).username == "alice")

        // The system's roots do not include the test CA.
        let untrusting = try SRPLoginClient(server: try RequestURL(server.url), configuration: configuration)
        do {
            _ = try await untrusting.login(username: "alice", password: password)
            Issue.record("a chain to an unknown CA was accepted")
        } catch {
            #expect(error.code == .transportFailure, "\(error)")
        }
        // Plain http to the TLS port gets no answer a client could take for one.
        let plain = try SRPLoginClient(
            server: try RequestURL("http://127.0.0.1:\(server.port)"),
            configuration: configuration
        )
        await #expect(throws: AuthCoreError.self) { try await plain.login(username: "alice", password: password) }
        await server.stop()
    }

    @Test(
        "dual stack: a TLS server on \"::\" answers over IPv4 (127.0.0.1) and IPv6 ([::1]), and sees each peer's own address"
    )
    func dualStack() async throws {
        let keyFile = directory.appendingPathComponent("good.key").path
        _ = chmod(keyFile, 0o600)
        var listen = HTTPServer.Configuration()
        listen.host = "::"
        listen.tls = try HTTPServer.TLSIdentity(
            certificateFile: directory.appendingPathComponent("good.pem").path,
            privateKeyFile: keyFile
        )
        let server = try HTTPServer(configuration: listen) { request in
            HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array((request.clientAddress?.description ?? "none").utf8)
            )
        }
        var trusting = HTTP1Transport.Configuration()
        trusting.trustedCertificatesFile = caFile
        let transport = try HTTP1Transport(configuration: trusting)
        // Only loopback addresses are sent to, though the server listens on every address.
        let overIPv4 = try await transport.send(
            HTTPRequest(method: "GET", url: try RequestURL("https://127.0.0.1:\(server.port)/"))
        )
        #expect(overIPv4.status == 200 && String(decoding: overIPv4.body.plainBytes, as: UTF8.self) == "127.0.0.1")
        let overIPv6 = try await transport.send(
            HTTPRequest(method: "GET", url: try RequestURL("https://[::1]:\(server.port)/"))
        )
        #expect(
            overIPv6.status == 200 && String(decoding: overIPv6.body.plainBytes, as: UTF8.self) == "0:0:0:0:0:0:0:1"
        )
        await server.stop()
    }

    @Test("a key file others may read is refused, as every secret file is")
    func looseKeyFile() throws {
        let keyFile = directory.appendingPathComponent("wrong.key").path
        _ = chmod(keyFile, 0o644)
        do {
            _ = try HTTPServer.TLSIdentity(
                certificateFile: directory.appendingPathComponent("wrong.pem").path,
                privateKeyFile: keyFile
            )
            Issue.record("a world-readable key file was accepted")
        } catch {
            #expect(error.code == .invalidParameter, "\(error)")
        }
    }
}
