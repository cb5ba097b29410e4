import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Connection reuse, counted at the peer: `scripts/tcp_counter.py` relays to the real peer and counts
/// the TCP connections (and TLS handshakes) it accepts. The transport's own bookkeeping is not asked.
@Suite("Keep-alive: connections counted at the peer (ministack, rclone over TLS)", .serialized)
final class ConnectionReuseTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A counting relay in front of `target` (`http://127.0.0.1:PORT`), terminating TLS when asked.
    final class Relay {
        let script: LoopbackScript
        let countFile: String
        let port: Int
        let ca: String?

        init(target: String, in directory: URL, tls: Bool) throws {
            let authority = try #require(target.split(separator: "/").last.map(String.init))
            countFile = directory.appendingPathComponent("counts-\(UUID().uuidString).json").path
            var arguments = ["--target", authority, "--count-file", countFile]
            if tls { arguments += ["--tls-dir", directory.appendingPathComponent("tls-\(UUID().uuidString)").path] }
            script = try LoopbackScript(script: "tcp_counter.py", arguments: arguments)
            port = try #require(script.announcement["port"] as? Int)
            ca = script.announcement["ca"] as? String
        }

        deinit { script.stop() }

        /// What the relay has accepted so far: connections, TLS handshakes, and resumed ones.
        func counts() throws -> (connections: Int, handshakes: Int, resumed: Int) {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: countFile)))
                    as? [String: Int]
            )
            return (object["connections"] ?? -1, object["handshakes"] ?? -1, object["resumed"] ?? -1)
        }
    }

    func transport(keepingConnections: Bool, trusting ca: String? = nil) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        configuration.trustedCertificatesFile = ca
        if !keepingConnections { configuration.maximumIdleConnectionsPerHost = 0 }
        return try HTTP1Transport(configuration: configuration)
    }

    @Test("a Cognito SRP sign-in and GetUser: three requests over one connection (three without keep-alive)")
    func cognitoSignInOnOneConnection() async throws {
        let pool = try MinistackPool.make()
        for keeping in [true, false] {
            let relay = try Relay(target: pool.endpoint, in: directory, tls: false)
            let transport = try transport(keepingConnections: keeping)
            let configuration = try CognitoUserPoolConfiguration(
                region: pool.region,
                userPoolId: pool.poolId,
                clientId: pool.clientId,
                endpoint: "http://127.0.0.1:\(relay.port)"
            )
            let result = try await CognitoSignIn(configuration: configuration, transport: transport).signIn(
                username: "alice",
                password: try pool.password("alice")
            )
            let tokens = try #require(result.tokens)
            let user = try await CognitoIdentityProviderAPI(configuration: configuration, transport: transport).getUser(
                accessToken: tokens.accessToken
            )
            #expect(user.username == "alice")
            #expect(try relay.counts().connections == (keeping ? 1 : 3), "keep-alive \(keeping)")
        }
    }

    @Test(
        "200 SigV4-signed GETs to rclone over TLS: one connection and one handshake in sequence, at most a handful four at a time"
    )
    func signedRequestsOverTLS() async throws {
        let seed = try RcloneSeedObject()
        let relay = try Relay(target: seed.endpoint, in: directory, tls: true)
        let url = try RequestURL("https://127.0.0.1:\(relay.port)\(seed.path)")
        @Sendable func get(_ sender: SignedRequestSender) async throws -> HTTPResponse {
            try await seed.get(url, through: sender)
        }
        let sender = SignedRequestSender(transport: try transport(keepingConnections: true, trusting: relay.ca))
        for _ in 0..<100 {
            let response = try await get(sender)
            #expect(
                response.status == 200 && response.body.plainBytes == RcloneSeedObject.content,
                "\(String(decoding: response.body.plainBytes, as: UTF8.self))"
            )
        }
        let sequential = try relay.counts()
        #expect(sequential.connections == 1 && sequential.handshakes == 1 && sequential.resumed == 0, "\(sequential)")
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var statuses: [Int] = []
                    for _ in 0..<25 { statuses.append(try await get(sender).status) }
                    return statuses
                }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
        let concurrent = try relay.counts()
        #expect((1...8).contains(concurrent.connections), "\(concurrent)")

        // The control: without keep-alive every request is a connection and a handshake of its own;
        // each after the first resumes the TLS session the previous one received (the server says so).
        let control = try Relay(target: seed.endpoint, in: directory, tls: true)
        let closing = SignedRequestSender(transport: try transport(keepingConnections: false, trusting: control.ca))
        let controlURL = try RequestURL("https://127.0.0.1:\(control.port)\(seed.path)")
        for _ in 0..<10 { #expect(try await seed.get(controlURL, through: closing).status == 200) }
        let counted = try control.counts()
        #expect(counted.connections == 10 && counted.handshakes == 10 && counted.resumed == 9, "\(counted)")
    }
}
