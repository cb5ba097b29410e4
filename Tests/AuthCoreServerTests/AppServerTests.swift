import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// The app server's endpoints over a real libmicrohttpd listener on loopback, in this process, with
/// the in-memory store (the Redis store and two `authcore serve` processes are the integration
/// suite's). The client side is `SRPLoginClient` over the library's HTTP/1.1 transport.
@Suite("App server over HTTP: login, sessions, every bad request a JSON 4xx")
final class AppServerTests {
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let password = SecureBytes(Array("correct horse battery staple".utf8))
    // test constant
    let ossKey = try! Credentials(accessKeyId: "LTAI5tTestKeyForSigning", secretAccessKey: "test-oss-secret-0123456789")
    let server: HTTPServer
    let app: AppServer
    let store = InMemoryHandshakeStore()
    let client: SRPLoginClient

    init() throws {
        let users = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
            configuration: configuration
        )
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 3
        let logins = try SRPLoginService(
            configuration: configuration,
            policy: policy,
            verifiers: users,
            handshakes: store,
            serverSecret: SecureBytes([UInt8](repeating: 7, count: 32))
        )
        let authority = try PerUserOSSSigning(
            credentials: ossKey,
            template: OSSSigningPolicy(
                buckets: ["photos"],
                keyPrefixes: ["users/${username}/"],
                regions: ["cn-hangzhou"]
            )
        )
        let app = AppServer(
            logins: logins,
            sessions: try AppSessions(store: store, serverSecret: SecureBytes([UInt8](repeating: 7, count: 32))),
            ossSigning: authority
        )
        self.app = app
        var listen = HTTPServer.Configuration()
        listen.maximumBodyBytes = 8192
        server = try HTTPServer(configuration: listen) { request in await app.handle(request) }
        client = try SRPLoginClient(server: try RequestURL(server.url), configuration: configuration)
    }

    // No deinit: a dropped HTTPServer stops itself once nothing runs (HTTPServerLifecycleTests);
    // blocking a deinit on an async stop() would hold a thread of the two-thread pool.

    func send(
        _ method: String,
        _ path: String,
        headers: [HTTPHeader] = [],
        body: String = ""
    ) async throws -> (status: Int, json: JSONObject?) {
        // A body is sent as JSON unless the case names its own Content-Type.
        let typed =
            body.isEmpty || headers.first(named: "Content-Type") != nil
            ? headers : headers + [HTTPHeader("Content-Type", "application/json")]
        let response = try await HTTP1Transport().send(
            HTTPRequest(method: method, url: try RequestURL(server.url + path), headers: typed, body: Array(body.utf8))
        )
        #expect(response.headers.first(named: "Content-Type") == "application/json", "\(method) \(path)")
        return (response.status, try? JSONObject(parsing: response.body.plainBytes, context: "answer"))
    }

    /// The error code (`ErrorCode` in the OSS sample's shape of `distribute-token.json`).
    func code(_ answer: (status: Int, json: JSONObject?)) -> String? {
        (try? answer.json?.string("code")) ?? (try? answer.json?.string("ErrorCode"))
    }

    @Test(
        "a login over HTTP gives a session token that opens /oss/sign; the server's M2 is checked; the same login id is refused the second time"
    )
    func loginAndSession() async throws {
        let pending = try await client.begin(username: "alice", password: password)
        let result = try await client.finish(pending)
        #expect(result.username == "alice")
        #expect(result.sessionToken.count == 43)
        #expect(result.sessionKey.count == 32)
        #expect((result.deviceToken?.count ?? 0) > 40, "a device token for the next logins")
        // The next login shows it (and succeeds); a tampered one is ignored, not an error.
        #expect(
            try await client.login(username: "alice", password: password, deviceToken: result.deviceToken).username
                == "alice"
        )
        #expect(
            try await client.login(
                username: "alice",
                password: password,
                deviceToken: SecureBytes(Array("forged".utf8))
            ).username == "alice"
        )
        #expect(
            !String(describing: result).contains(
                result.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            )
        )
        // The server's session says alice.
        let token = result.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(try await app.sessions.username(for: token) == "alice")

        // Replaying the finished login id.
        do {
            _ = try await client.finish(pending)
            Issue.record("a finished login id was accepted again")
        } catch {
            #expect(error.serviceErrorType == "LoginExpired", "\(error)")
            #expect(error.httpStatus == 400)
        }

        // The token signs inside the policy, and the signature is the authority's own.
        let signer = try URLSignatureProvider(
            url: try RequestURL(server.url + "/oss/sign"),
            headers: [result.authorizationHeader]
        )
        let pendingSignature = try OSSDetachedSigner(
            version: .v4,
            region: "cn-hangzhou",
            accessKeyId: ossKey.accessKeyId
        ).prepare(
            OSSRequest(
                method: "GET",
                target: "/users/alice/cat.jpg",
                headers: [HTTPHeader("Host", "photos.oss")],
                bucket: "photos",
                key: "users/alice/cat.jpg"
            ),
            at: SystemClock().now()
        )
        let request = OSSSignatureRequest(pendingSignature)
        let signed = try await signer.signature(for: request)
        let expected = try OSSSigningAuthority(
            credentials: ossKey,
            policy: OSSSigningPolicy(buckets: ["photos"], keyPrefixes: ["users/"], regions: ["cn-hangzhou"])
        ).sign(
            request,
            at: SystemClock().now()
        )
        #expect(signed.signature == expected.signature)
        #expect(signed.accessKeyId == ossKey.accessKeyId)

        // Outside the policy: 403 with the authority's reason.
        let outside = try OSSDetachedSigner(version: .v4, region: "cn-hangzhou", accessKeyId: ossKey.accessKeyId)
            .prepare(
                OSSRequest(
                    method: "GET",
                    target: "/users/bob/cat.jpg",
                    headers: [HTTPHeader("Host", "photos.oss")],
                    bucket: "photos",
                    key: "users/bob/cat.jpg"
                ),
                at: SystemClock().now()
            )
        do {
            _ = try await signer.signature(for: OSSSignatureRequest(outside))
            Issue.record("a key outside the policy was signed")
        } catch {
            #expect(error.httpStatus == 403, "\(error)")
            #expect(error.serviceErrorType == "NotPermitted")
        }

        // A revoked token no longer opens anything.
        try await app.sessions.revoke(token)
        let revoked = try await send("POST", "/oss/sign", headers: [result.authorizationHeader], body: "{}")
        #expect(revoked.status == 401)
        #expect(code(revoked) == "Unauthorized")
    }

    @Test("a wrong password and an unknown user get the same 401; the third failure locks alice out with 429 on begin")
    func failuresAndLockout() async throws {
        for user in ["alice", "mallory"] {
            do {
                _ = try await client.login(username: user, password: SecureBytes(Array("wrong".utf8)))
                Issue.record("\(user) logged in with a wrong password")
            } catch {
                #expect(error.httpStatus == 401, "\(error)")
                #expect(error.serviceErrorType == "ProofMismatch")
            }
        }
        for _ in 0..<2 { _ = try? await client.login(username: "alice", password: SecureBytes(Array("wrong".utf8))) }
        do {
            _ = try await client.login(username: "alice", password: password)
            Issue.record("a locked-out user logged in")
        } catch {
            #expect(error.httpStatus == 429, "\(error)")
            #expect(error.serviceErrorType == "TooManyFailures")
        }
    }

    @Test("every malformed request is a JSON 4xx naming the problem, and the server keeps answering")
    func badRequests() async throws {
        let n = Hex.encode(configuration.group.modulus.minimalBigEndianBytes)
        let cases: [(String, String, [HTTPHeader], String, Int, String)] = [
            ("GET", "/nowhere", [], "", 404, "NotFound"),
            ("GET", "/srp/begin", [], "", 405, "MethodNotAllowed"),
            ("POST", "/distribute-token.json", [], "", 405, "MethodNotAllowed"),
            ("HEAD", "/distribute-token.json", [], "", 405, ""),
            ("POST", "/srp/begin", [], "", 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], "not json", 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], "[1,2]", 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"A":"02"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"username":5,"A":"02"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"username":"alice","A":"xyz"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"username":"alice","A":"00"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"username":"alice","A":"\#(n)"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], #"{"username":"","A":"02"}"#, 400, "MalformedRequest"),
            (
                "POST", "/srp/begin", [], #"{"username":"alice","A":"\#(String(repeating: "ab", count: 2100))"}"#, 400,
                "MalformedRequest"
            ),
            (
                "POST", "/srp/finish", [], #"{"loginId":"0123456789abcdef0123456789abcdef","M1":"00"}"#, 400,
                "LoginExpired"
            ),
            ("POST", "/srp/finish", [], #"{"loginId":"../../etc","M1":"00"}"#, 400, "LoginExpired"),
            ("POST", "/srp/finish", [], #"{"loginId":"0123456789abcdef0123456789abcdef"}"#, 400, "MalformedRequest"),
            ("POST", "/oss/sign", [], "{}", 401, "Unauthorized"),
            ("POST", "/oss/sign", [HTTPHeader("Authorization", "Bearer short")], "{}", 401, "Unauthorized"),
            ("POST", "/oss/sign", [HTTPHeader("Authorization", "Basic YWxpY2U6cHc=")], "{}", 401, "Unauthorized"),
            (
                "POST", "/oss/sign", [HTTPHeader("Authorization", "Bearer " + String(repeating: "A", count: 43))], "{}",
                401, "Unauthorized"
            ),
            ("POST", "/cognito/developer-identity", [], "", 401, "Unauthorized"),
            (
                "POST", "/srp/begin", [HTTPHeader("Content-Type", "text/plain")], #"{"username":"alice","A":"02"}"#,
                415, "UnsupportedMediaType"
            ),
            (
                "POST", "/srp/begin", [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                "username=alice", 415, "UnsupportedMediaType"
            ),
            ("POST", "/srp/begin", [], #"{"username":"alice","username":"bob","A":"02"}"#, 400, "MalformedRequest"),
            ("POST", "/srp/begin", [], String(repeating: " ", count: 9000), 413, "RequestTooLarge"),
        ]
        for (method, path, headers, body, status, expected) in cases {
            let answer = try await send(method, path, headers: headers, body: body)
            #expect(answer.status == status, "\(method) \(path) \(body.prefix(60))")
            // HEAD: no body
            if method != "HEAD" { #expect(code(answer) == expected, "\(method) \(path) \(body.prefix(60))") }
        }
        // Without a session: 401 whether or not the endpoint is configured (nothing of the
        // configuration shows); with one, this server's missing STS set-up is a 404.
        let anonymous = try await send("GET", "/distribute-token.json")
        #expect(anonymous.status == 401)
        #expect(try anonymous.json?.string("ErrorCode") == "Unauthorized")
        #expect(try anonymous.json?.integer("StatusCode", in: 0...999) == 401)
        let session = try await client.login(username: "alice", password: password)
        let bearer = [
            HTTPHeader(
                "Authorization",
                "Bearer " + session.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            )
        ]
        let token = try await send("GET", "/distribute-token.json", headers: bearer)
        #expect(token.status == 404)
        #expect(try token.json?.string("ErrorCode") == "NotConfigured")
        #expect(try token.json?.integer("StatusCode", in: 0...999) == 404)
        let wrongMethod = try await send("POST", "/distribute-token.json", headers: bearer)
        #expect(wrongMethod.status == 405)
        #expect(try wrongMethod.json?.string("ErrorCode") == "MethodNotAllowed")
        let developer = try await send("POST", "/cognito/developer-identity", headers: bearer)
        #expect(developer.status == 404)
        #expect(code(developer) == "NotConfigured")
        // Still serving logins.
        #expect(try await client.login(username: "alice", password: password).username == "alice")
    }

    @Test(
        "a chunked body past the limit closes the connection; an over-long head is refused by MHD; the server keeps serving"
    )
    func oversizedStreams() async throws {
        let chunked = try await rawExchange(
            "POST /srp/begin HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "400\r\n" + String(repeating: "a", count: 1024) + "\r\n", count: 16)
        )
        #expect(!chunked.hasPrefix("HTTP/1.1 200"), "\(chunked.prefix(80))")
        let head = try await rawExchange(
            "GET /srp/begin HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 40_000))\r\n\r\n"
        )
        #expect(head.isEmpty || head.hasPrefix("HTTP/1.1 4"), "\(head.prefix(80))")
        #expect(try await client.login(username: "alice", password: password).username == "alice")
    }

    /// Writes `text` on a fresh connection and reads what comes back until the server closes (at
    /// most 64 KiB, 10 s).
    func rawExchange(_ text: String) async throws -> String { try await RawSocket.exchange(port: server.port, text) }

    @Test("plain http is refused on an address that is not loopback; a busy port is a transportFailure")
    func listenChecks() throws {
        var configuration = HTTPServer.Configuration()
        configuration.host = "0.0.0.0"
        #expect(throws: AuthCoreError.self) {
            _ = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 200) }
        }
        configuration.host = "localhost"
        #expect(throws: AuthCoreError.self) {
            _ = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 200) }
        }
        configuration.host = "127.0.0.1"
        configuration.port = server.port
        do {
            _ = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 200) }
            Issue.record("a second server took a port in use")
        } catch {
            #expect(error.code == .transportFailure)
        }
    }
}

@Suite("App sessions and the server's configuration file")
struct AppSessionsAndConfigurationTests {
    @Test("a token lasts its lifetime and no longer, is 43 URL-safe characters, and the store keeps only its hash")
    func sessionLifetime() async throws {
        let clock = ManualClock(Timestamp(year: 2026, month: 12, day: 2)!)
        let store = InMemoryHandshakeStore(clock: clock)
        let sessions = try AppSessions(
            store: store,
            keys: try ServerKeys(serverSecret: SecureBytes([UInt8](repeating: 1, count: 32))),
            lifetime: .seconds(60),
            clock: clock
        )
        let session = try await sessions.issue(for: "alice")
        let token = session.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(token.utf8.count == 43)
        #expect(
            token.utf8.allSatisfy {
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            }
        )
        #expect(try await store.value("authcore:session:" + token) == nil)
        #expect(try await store.value("authcore:session:" + SHA256.hash(string: token).hexLowercased) != nil)
        #expect(!String(describing: session).contains(token))
        #expect(!String(reflecting: session).contains(token))
        clock.advance(seconds: 59)
        #expect(try await sessions.username(for: token) == "alice")
        clock.advance(seconds: 1)
        await #expect(throws: AuthCoreError.self) { try await sessions.username(for: token) }
        #expect(throws: AuthCoreError.self) {
            try AppSessions(
                store: store,
                serverSecret: SecureBytes([UInt8](repeating: 1, count: 32)),
                lifetime: .seconds(0)
            )
        }
    }

    @Test("role session names: a username STS accepts is kept, any other becomes h. and 40 hex digits")
    func roleSessionNames() {
        #expect(DistributeTokenVendor.roleSessionName(for: "alice@example.com") == "alice@example.com")
        #expect(
            DistributeTokenVendor.roleSessionName(for: "a") == "h." + SHA256.hash(string: "a").hexLowercased.prefix(40)
        )
        #expect(
            DistributeTokenVendor.roleSessionName(for: "h.abc") == "h."
                + SHA256.hash(string: "h.abc").hexLowercased.prefix(40)
        )
        #expect(DistributeTokenVendor.roleSessionName(for: "ünïcode").utf8.count == 42)
        #expect(DistributeTokenVendor.roleSessionName(for: String(repeating: "x", count: 65)).hasPrefix("h."))
    }

    @Test("the configuration file: defaults, relative paths from its directory, and each mistake named")
    func configurationFile() throws {
        let minimal = try AppServerConfiguration(
            json: Array(#"{"srp":{"verifiersFile":"users.json"}}"#.utf8),
            directory: "/etc/app"
        )
        #expect(minimal.verifiersFile == "/etc/app/users.json")
        #expect(minimal.srp.group.byteCount == 384)
        #expect(minimal.redis == nil)
        #expect(minimal.listen.host == "127.0.0.1")
        #expect(minimal.sessionLifetime == .seconds(3600))
        let full = try AppServerConfiguration(
            json: Array(
                #"""
                {"listen":{"host":"127.0.0.1","port":8080,"threads":4},"store":{"redis":{"port":6390,"timeoutMilliseconds":250}},
                 "srp":{"group":2048,"hash":"sha512","verifiersFile":"/u.json","handshakeLifetimeSeconds":5,"maximumFailures":2,"failureWindowSeconds":30},
                 "sessionLifetimeSeconds":120,"distributeToken":{"roleArn":"acs:ram::1:role/app","durationSeconds":900,"signatureStyle":"acs3","sharedAcrossUsers":true},
                 "ossSigning":{"buckets":["b"],"keyPrefixes":["p/${username}/"]},
                 "developerIdentity":{"region":"us-east-1","identityPoolId":"us-east-1:x","providerName":"login.app","tokenDuration":600}}
                """#.utf8
            )
        )
        #expect(full.listen.port == 8080)
        #expect(full.redis?.port == 6390)
        #expect(full.redis?.timeout == .milliseconds(250))
        #expect(full.srp.hash == .sha512)
        #expect(full.policy.maximumFailures == 2)
        #expect(full.distributeToken?.role.durationSeconds == 900)
        #expect(full.distributeToken?.style == .acs3)
        #expect(full.ossSigning?.template.buckets == ["b"])
        #expect(full.developerIdentity?.tokenDuration == 600)
        // The abuse limits and per-user options.
        let limits = try AppServerConfiguration(
            json: Array(
                #"""
                {"srp":{"verifiersFile":"u","maximumFailuresPerUser":7,"deviceTokenLifetimeSeconds":3600},
                 "listen":{"requestTimeoutSeconds":4,"idleTimeoutSeconds":9,"maximumConnections":100,"maximumConnectionsPerAddress":3},
                 "rateLimits":{"perAddress":{"requestsPerSecond":2,"burst":6},"perNetwork":null},
                 "ossSigning":{"buckets":["b"],"keyPrefixes":["shared/"],"sharedAcrossUsers":true}}
                """#.utf8
            )
        )
        #expect(limits.policy.maximumFailuresPerUser == 7)
        #expect(limits.policy.deviceTokenLifetime == .seconds(3600))
        #expect(limits.listen.requestTimeout == .seconds(4))
        #expect(limits.listen.idleTimeout == .seconds(9))
        #expect(limits.listen.maximumConnections == 100 && limits.listen.maximumConnectionsPerAddress == 3)
        #expect(limits.rateLimits.perAddress == RateLimit(requestsPerSecond: 2, burst: 6))
        #expect(limits.rateLimits.perNetwork == nil)
        #expect(limits.ossSigning?.sharedAcrossUsers == true)
        let defaults = try AppServerConfiguration(
            json: Array(#"{"srp":{"verifiersFile":"u"},"rateLimits":{"perNetwork":{"ipv4PrefixLength":16}}}"#.utf8)
        )
        #expect(defaults.rateLimits.perAddress == AddressRateLimits().perAddress)
        #expect(defaults.rateLimits.perNetwork == AddressRateLimits().perNetwork)
        #expect(defaults.rateLimits.ipv4NetworkPrefixLength == 16)
        #expect(defaults.listen.requestTimeout == .seconds(10) && defaults.listen.maximumConnectionsPerAddress == 32)
        let mistakes: [(String, String)] = [
            ("[]", "not a JSON object"),
            ("{}", "srp is required"),
            (#"{"srp":{}}"#, "srp.verifiersFile is required"),
            (#"{"srp":{"verifiersFile":"u","group":1000}}"#, "srp.group"),
            (#"{"srp":{"verifiersFile":"u","hash":"md5"}}"#, "srp.group or srp.hash"),
            (#"{"srp":{"verifiersFile":"u"},"listen":{"prot":1}}"#, "unknown option listen.prot"),
            (
                #"{"srp":{"verifiersFile":"u"},"listen":{"port":70000}}"#,
                "listen.port must be a whole number in 0...65535"
            ),
            (#"{"srp":{"verifiersFile":"u"},"listen":{"certificateFile":"c"}}"#, "go together"),
            (#"{"srp":{"verifiersFile":"u"},"sessionLifetimeSeconds":1e300}"#, "sessionLifetimeSeconds"),
            (#"{"srp":{"verifiersFile":"u"},"distributeToken":{}}"#, "distributeToken.roleArn is required"),
            (
                #"{"srp":{"verifiersFile":"u"},"distributeToken":{"roleArn":"r","durationSeconds":10}}"#,
                "durationSeconds"
            ),
            (#"{"srp":{"verifiersFile":"u"},"ossSigning":{"buckets":["b"]}}"#, "buckets and keyPrefixes are required"),
            (
                #"{"srp":{"verifiersFile":"u"},"developerIdentity":{"region":"r"}}"#,
                "needs region, identityPoolId and providerName"
            ),
            (#"{"srp":{"verifiersFile":"u"},"secret":"x"}"#, "unknown option secret"),
            (
                #"{"srp":{"verifiersFile":"u"},"ossSigning":{"buckets":["b"],"keyPrefixes":["users/"]}}"#,
                "must contain ${username}"
            ),
            (
                #"{"srp":{"verifiersFile":"u"},"ossSigning":{"buckets":["b"],"keyPrefixes":["users/${username}"]}}"#,
                "must be followed by '/'"
            ),
            (#"{"srp":{"verifiersFile":"u"},"distributeToken":{"roleArn":"r"}}"#, "without a policy"),
            (
                #"{"srp":{"verifiersFile":"u"},"ossSigning":{"buckets":["b"],"keyPrefixes":["p/"],"sharedAcrossUsers":"yes"}}"#,
                "sharedAcrossUsers must be true or false"
            ),
            (
                #"{"srp":{"verifiersFile":"u"},"rateLimits":{"perAddress":{"requestsPerSecond":0}}}"#,
                "requestsPerSecond must be a whole number"
            ),
            (#"{"srp":{"verifiersFile":"u"},"rateLimits":{"perHost":{}}}"#, "unknown option rateLimits.perHost"),
            (#"{"srp":{"verifiersFile":"u"},"listen":{"requestTimeoutSeconds":0}}"#, "requestTimeoutSeconds"),
        ]
        for (text, expected) in mistakes {
            do {
                _ = try AppServerConfiguration(json: Array(text.utf8), source: "c.json")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.code == .malformedInput, "\(text)")
                #expect(error.reason.contains(expected), "\(text): \(error.reason)")
                #expect(error.reason.hasPrefix("c.json"), "\(error.reason)")
            }
        }
    }
}

/// The HTTP server's own guarantees: every suspended connection is answered once, whatever the
/// handler does, and the daemon never stops with one suspended.
/// `GET http://127.0.0.1:port/path` over the library's transport.
func plainGet(_ port: Int, _ path: String) async throws(AuthCoreError) -> HTTPResponse {
    try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(port)\(path)")))
}

@Suite("HTTP server: time limits, stopping, dropping", .serialized)
final class HTTPServerLifecycleTests {
    /// How many `/slow` requests have reached the handler.
    let arrived = Locked(0)

    /// Waits (at most 10 s) until a `/slow` request is in the handler.
    func waitForArrival() async throws {
        for _ in 0..<1000 where arrived.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(arrived.withLock { $0 } == 1)
    }

    /// A handler that takes `seconds` whatever its cancellation says (work in a detached task).
    func slow(_ seconds: Double) -> HTTPServer.Handler {
        let arrived = arrived
        return { request in
            if request.path == "/slow" {
                arrived.withLock { $0 += 1 }
                await Task.detached { try? await Task.sleep(for: .seconds(seconds)) }.value
            }
            return HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array("done \(request.path)".utf8)
            )
        }
    }

    @Test("a handler past its time limit is answered 503 at the limit; the server goes on serving")
    func handlerTimeLimit() async throws {
        var configuration = HTTPServer.Configuration()
        // Two seconds: the quick request after the slow one must finish within the same limit on a
        // machine whose two cooperative threads other suites may hold for a while.
        configuration.handlerTimeout = .seconds(2)
        // The handler takes 60 s; the limit answers long before (no timing is asserted: the order is).
        let server = try HTTPServer(configuration: configuration, handler: slow(60))
        let late = try await plainGet(server.port, "/slow")
        #expect(late.status == 503)
        #expect(String(decoding: late.body.plainBytes, as: UTF8.self).contains("Timeout"))
        #expect(try await plainGet(server.port, "/fast").status == 200)
        await server.stop(grace: .milliseconds(100))
    }

    @Test("stop() answers a handler that ignores cancellation with 503 after its grace, and returns")
    func stopWithStuckHandler() async throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: slow(60))
        let port = server.port
        let pending = Task { try await plainGet(port, "/slow") }
        try await waitForArrival()
        await server.stop(grace: .milliseconds(300))  // returns: the 60 s handler is not waited for
        let answer = try await pending.value
        #expect(answer.status == 503)
        #expect(String(decoding: answer.body.plainBytes, as: UTF8.self).contains("ShuttingDown"))
        do {
            _ = try await plainGet(port, "/fast")
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.code == .transportFailure, "\(error)")
        }
    }

    @Test("a server dropped without stop() lets its running handler answer, then stops listening")
    func droppedWhileRunning() async throws {
        var server: HTTPServer? = try HTTPServer(configuration: HTTPServer.Configuration(), handler: slow(1))
        let port = try #require(server?.port)
        let pending = Task { try await plainGet(port, "/slow") }
        try await waitForArrival()
        server = nil
        #expect(server == nil)
        let answer = try await pending.value
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body.plainBytes, as: UTF8.self) == "done /slow")
        try await Task.sleep(for: .milliseconds(200))
        do {
            _ = try await plainGet(port, "/fast")
            Issue.record("a dropped server still answers")
        } catch {
            #expect(error.code == .transportFailure, "\(error)")
        }
    }
}

@Suite("HTTP1Transport with secret bodies: sent from wiping storage, a successful answer delivered in it")
struct SecretBodyTransportTests {
    @Test(
        "a secret body is what is sent; answerCarriesSecrets delivers a 2xx body as a secret and leaves an error's as bytes"
    )
    func secretBodies() async throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in
            // Echoes the body it received; /refuse answers 400 with it.
            HTTPResponse(
                status: request.path == "/refuse" ? 400 : 200,
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: request.body
            )
        }
        let sent = Array(#"{"PASSWORD":"p\"w"}"#.utf8)
        func request(_ path: String, carries: Bool) throws -> HTTPRequest {
            var request = HTTPRequest(
                method: "POST",
                url: try RequestURL("http://127.0.0.1:\(server.port)\(path)"),
                body: .secret(SecureBytes(sent))
            )
            request.answerCarriesSecrets = carries
            return request
        }
        func secretOf(_ body: HTTPBody) -> SecureBytes? {
            if case .secret(let secret) = body { return secret }
            return nil
        }
        let secret = try await HTTP1Transport().send(try request("/echo", carries: true))
        #expect(secret.status == 200 && secret.body.plainBytes.isEmpty)
        #expect(secretOf(secret.body) == SecureBytes(sent))
        #expect(secret.body.count == sent.count && secret.body.inWipingStorage == SecureBytes(sent))
        let refused = try await HTTP1Transport().send(try request("/refuse", carries: true))
        #expect(refused.status == 400 && secretOf(refused.body) == nil && refused.body.plainBytes == sent)
        let plain = try await HTTP1Transport().send(try request("/echo", carries: false))
        #expect(secretOf(plain.body) == nil && plain.body.plainBytes == sent)
        #expect(String(describing: try request("/echo", carries: true)).contains("body: \(sent.count) secret bytes"))
        #expect(!String(describing: try request("/echo", carries: true)).contains("PASSWORD"))
        await server.stop(grace: .milliseconds(100))
    }
}
