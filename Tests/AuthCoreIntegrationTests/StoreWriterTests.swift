import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// The app server against someone who can write to its Redis: sessions and records are sealed, so
/// what they write does not open, and what they move does not open in its new place. Writes go
/// straight into redis-server with `redis-cli`, as an attacker with the store's password would.
@Suite("A store writer against sealed sessions and records, on a real redis-server", .serialized)
final class StoreWriterTests {
    let redis: RedisServerProcess
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let password = SecureBytes(Array("correct horse battery staple".utf8))
    let ossKey = try! Credentials(
        accessKeyId: "LTAI5tStoreWriterKey",
        secretAccessKey: "store-writer-secret-0123456789"
    )  // test constant

    init() throws { redis = try RedisServerProcess() }
    deinit { redis.stop() }

    /// `redis-cli -x SET key <stdin>`: the value's bytes as given (NUL bytes included).
    func rawSet(_ key: String, _ value: [UInt8]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(redis.port), "-x", "SET", key]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(value))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    func store() -> RedisHandshakeStore {
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = redis.port
        return RedisHandshakeStore(configuration: configuration)
    }

    @Test(
        "SET authcore:session:<sha256(T)> <expiry>victim, then Bearer T at /oss/sign: 401 (it was 200 when sessions were not sealed); a real session still signs"
    )
    func forgedSession() async throws {
        let store = store()
        let keys = try ServerKeys(serverSecret: SecureBytes([UInt8](repeating: 0x61, count: 32)))
        let users = try StaticVerifierStore(
            ["victim": try configuration.makeVerifier(username: Array("victim".utf8), password: password)],
            configuration: configuration
        )
        let app = AppServer(
            logins: SRPLoginService(configuration: configuration, verifiers: users, handshakes: store, keys: keys),
            sessions: try AppSessions(store: store, keys: keys),
            ossSigning: try PerUserOSSSigning(
                credentials: ossKey,
                template: OSSSigningPolicy(
                    buckets: ["photos"],
                    keyPrefixes: ["users/${username}/"],
                    regions: ["cn-hangzhou"]
                )
            )
        )
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in await app.handle(request) }
        let now = SystemClock().now()
        let pending = try OSSDetachedSigner(version: .v4, region: "cn-hangzhou", accessKeyId: ossKey.accessKeyId)
            .prepare(
                OSSRequest(
                    method: "GET",
                    target: "/users/victim/a.jpg",
                    headers: [HTTPHeader("Host", "photos.oss")],
                    bucket: "photos",
                    key: "users/victim/a.jpg"
                ),
                at: now
            )
        let body = Array(try JSONEncoder().encode(OSSSignatureRequest(pending)))
        func sign(_ token: String) async throws -> Int {
            try await HTTP1Transport().send(
                HTTPRequest(
                    method: "POST",
                    url: try RequestURL(server.url + "/oss/sign"),
                    headers: [
                        HTTPHeader("Authorization", "Bearer " + token), HTTPHeader("Content-Type", "application/json"),
                    ],
                    body: body
                )
            ).status
        }
        // The forged entry, in the layout sessions had before they were sealed.
        let token = Base64.encode(
            try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) },
            alphabet: .urlSafe,
            padding: false
        )
        let expiry = (now.secondsSince1970 + 3600) * 1000
        try rawSet(
            "authcore:session:" + SHA256.hash(string: token).hexLowercased,
            withUnsafeBytes(of: expiry.bigEndian) { Array($0) } + Array("victim".utf8)
        )
        #expect(try await sign(token) == 401)
        // The victim's real session, moved under the attacker's token: 401 as well.
        let real = try await SRPLoginClient(server: try RequestURL(server.url), configuration: configuration).login(
            username: "victim",
            password: password
        )
        let realToken = real.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(try await sign(realToken) == 200)
        let sealed = try #require(
            try await store.value("authcore:session:" + SHA256.hash(string: realToken).hexLowercased)
        )
        let attacker = Base64.encode(
            try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) },
            alphabet: .urlSafe,
            padding: false
        )
        try rawSet("authcore:session:" + SHA256.hash(string: attacker).hexLowercased, sealed)
        #expect(try await sign(attacker) == 401)
        // Revoking through the endpoint ends it on the server (every instance shares the store).
        let revoked = try await HTTP1Transport().send(
            HTTPRequest(
                method: "POST",
                url: try RequestURL(server.url + "/session/revoke"),
                headers: [real.authorizationHeader]
            )
        )
        #expect(revoked.status == 200)
        #expect(try await sign(realToken) == 401)
        await server.stop(grace: .milliseconds(100))
    }

    @Test(
        "the store's new operations on Redis: MGET reads values and counters; counter() keeps a counter alive; advance() creates and extends"
    )
    func storeOperations() async throws {
        let store = store()
        #expect(try await store.insert([1, 2, 0, 3], forKey: "t:value", lifetime: .seconds(60)))
        #expect(try await store.advance("t:gen", keepingFor: .seconds(60)) == 1)
        #expect(try await store.advance("t:gen", keepingFor: .seconds(60)) == 2)
        #expect(try await store.values(["t:value", "t:missing", "t:gen"]) == [[1, 2, 0, 3], nil, Array("2".utf8)])
        #expect(try await store.counter("t:gen", keepingFor: .seconds(600)) == 2)
        #expect(try await store.counter("t:none", keepingFor: .seconds(600)) == 0)
        // The lifetime was extended to 600 s (GT never shortens it back).
        #expect(try await store.counter("t:gen", keepingFor: .seconds(1)) == 2)
        let ttl = try await store.command(["PTTL", "t:gen"].map { Array($0.utf8) })
        guard case .integer(let milliseconds) = ttl else {
            Issue.record("PTTL answered \(ttl)")
            return
        }
        #expect(milliseconds > 500_000)
        // decrement takes one back and removes the counter at 0; nothing for an absent one.
        #expect(try await store.increment("t:fail", window: .seconds(60)) == 1)
        #expect(try await store.increment("t:fail", window: .seconds(60)) == 2)
        try await store.decrement("t:fail")
        #expect(try await store.count("t:fail") == 1)
        try await store.decrement("t:fail")
        #expect(try await store.values(["t:fail"]) == [nil])
        try await store.decrement("t:absent")
        #expect(try await store.values(["t:absent"]) == [nil])
        // A value that is not a counter is refused, not read as one.
        #expect(try await store.insert(Array("x".utf8), forKey: "t:text", lifetime: .seconds(60)))
        await #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try await store.counter("t:text", keepingFor: .seconds(60))
        }
    }
}
