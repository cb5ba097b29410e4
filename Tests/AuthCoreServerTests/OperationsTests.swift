import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation
import Testing

/// The server's operations: health and readiness, request ids, the access and audit log, IPv6, and
/// the graceful drain.
@Suite("App server operations: healthz/readyz, X-Request-Id, access and audit lines, IPv6, drain", .serialized)
final class OperationsTests {
    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant
    let password = SecureBytes(Array("operations password".utf8))
    let secret = SecureBytes([UInt8](repeating: 5, count: 32))

    func app(store: any HandshakeStore = InMemoryHandshakeStore(), auditLog: JSONLineLog? = nil) throws -> AppServer {
        let users = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
            configuration: configuration
        )
        let logins = try SRPLoginService(
            configuration: configuration,
            verifiers: users,
            handshakes: store,
            serverSecret: secret
        )
        return AppServer(
            logins: logins,
            sessions: try AppSessions(store: store, serverSecret: secret),
            auditLog: auditLog
        )
    }

    static func get(_ url: String, headers: [HTTPHeader] = []) async throws -> HTTPResponse {
        try await HTTP1Transport().send(HTTPRequest(method: "GET", url: try RequestURL(url), headers: headers))
    }

    /// A pipe whose read end collects everything written to its write end (a thread reads it).
    final class CollectedPipe: @unchecked Sendable {
        let pipe = Pipe()
        private let lock = NSLock()
        private var data = Data()

        init() {
            let reader = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    data.append(chunk)
                    lock.unlock()
                }
            }
        }

        var descriptor: Int32 { pipe.fileHandleForWriting.fileDescriptor }

        /// The lines written so far, parsed as JSON objects.
        func objects() -> [[String: Any]] {
            lock.lock()
            defer { lock.unlock() }
            return data.split(separator: UInt8(ascii: "\n")).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
            }
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test(
        "GET /healthz is 200 alive; GET /readyz is 200 with a store that answers and 503 NotReady with one that does not"
    )
    func healthAndReadiness() async throws {
        let ready = try app()
        let alive = await ready.handle(HTTPServerRequest(method: "GET", path: "/healthz"))
        #expect(alive.status == 200 && String(decoding: alive.body.plainBytes, as: UTF8.self) == #"{"status":"alive"}"#)
        let readiness = await ready.handle(HTTPServerRequest(method: "GET", path: "/readyz"))
        #expect(
            readiness.status == 200
                && String(decoding: readiness.body.plainBytes, as: UTF8.self) == #"{"status":"ready"}"#
        )
        #expect(await ready.handle(HTTPServerRequest(method: "POST", path: "/healthz")).status == 405)

        // Redis on a loopback port nobody listens on: not ready (the process is still alive).
        var redis = RedisHandshakeStore.Configuration()
        redis.port = try closedLoopbackPort()
        redis.timeout = .milliseconds(300)
        let notReady = try app(store: RedisHandshakeStore(configuration: redis))
        let refused = await notReady.handle(HTTPServerRequest(method: "GET", path: "/readyz"))
        #expect(refused.status == 503)
        #expect(String(decoding: refused.body.plainBytes, as: UTF8.self).contains(#""code":"NotReady""#))
        #expect(await notReady.handle(HTTPServerRequest(method: "GET", path: "/healthz")).status == 200)
    }

    @Test(
        "X-Request-Id: a usable client id is echoed, an absent or unusable one is replaced by a fresh id; every record carries it"
    )
    func requestIdentifiers() async throws {
        let records = Locked<[AccessRecord]>([])
        let server = try HTTPServer(
            configuration: HTTPServer.Configuration(),
            requestLog: { record in records.withLock { $0.append(record) } }
        ) { request in
            HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array(request.requestId.utf8)
            )
        }
        let kept = try await Self.get(server.url + "/a", headers: [HTTPHeader("X-Request-Id", "trace-42.a:b/c+d=")])
        #expect(kept.headers.first(named: "X-Request-Id") == "trace-42.a:b/c+d=")
        #expect(kept.body.plainBytes == Array("trace-42.a:b/c+d=".utf8))
        let made = try await Self.get(server.url + "/b")
        let first = try #require(made.headers.first(named: "X-Request-Id"))
        #expect(first.utf8.count >= 14 && made.body.plainBytes == Array(first.utf8))
        let replaced = try await Self.get(server.url + "/c", headers: [HTTPHeader("X-Request-Id", "has space")])
        let second = try #require(replaced.headers.first(named: "X-Request-Id"))
        #expect(second != "has space" && second != first)
        let long = try await Self.get(
            server.url + "/d",
            headers: [HTTPHeader("X-Request-Id", String(repeating: "a", count: 129))]
        )
        #expect(long.headers.first(named: "X-Request-Id")?.utf8.count != 129)
        // An early answer (the body is too long: refused from the head) carries an id too.
        let early = try await HTTP1Transport().send(
            HTTPRequest(
                method: "POST",
                url: try RequestURL(server.url + "/e"),
                body: [UInt8](repeating: 0x41, count: 70_000)
            )
        )
        #expect(early.status == 413 && early.headers.first(named: "X-Request-Id") != nil)
        await server.stop(grace: .milliseconds(200))
        let logged = records.withLock { $0 }
        #expect(logged.map(\.path) == ["/a", "/b", "/c", "/d", "/e"])
        #expect(logged.map(\.status) == [200, 200, 200, 200, 413])
        #expect(
            logged[0].requestId == "trace-42.a:b/c+d=" && logged[1].requestId == first && logged[2].requestId == second
        )
        #expect(
            logged.allSatisfy {
                $0.method == ($0.path == "/e" ? "POST" : "GET") && $0.peer?.description == "127.0.0.1"
                    && $0.duration >= .zero
            }
        )
    }

    @Test("keep-alive: two SRP logins (four requests) from one client arrive over one connection")
    func persistentConnections() async throws {
        let app = try self.app()
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in await app.handle(request) }
        // A POST reuses a connection idle for at most the transport's freshness (2 s by default): on a
        // busy machine the client's SRP math alone can take longer, so this test gives it a minute.
        var transportConfiguration = HTTP1Transport.Configuration()
        transportConfiguration.unrepeatableRequestFreshness = .seconds(60)
        let client = try SRPLoginClient(
            server: try RequestURL(server.url),
            configuration: configuration,
            transport: try HTTP1Transport(configuration: transportConfiguration)
        )
        for _ in 0..<2 { #expect(try await client.login(username: "alice", password: password).username == "alice") }
        #expect(server.acceptedConnectionCount == 1)
        await server.stop(grace: .milliseconds(200))
    }

    @Test("the access log names the user once known and never a token; failed logins and a lockout get audit lines")
    func accessAndAuditLines() async throws {
        let output = CollectedPipe()
        let log = JSONLineLog(descriptor: output.descriptor)
        var policy = SRPLoginPolicy()
        policy.maximumFailures = 2
        let store = InMemoryHandshakeStore()
        let users = try StaticVerifierStore(
            ["alice": try configuration.makeVerifier(username: Array("alice".utf8), password: password)],
            configuration: configuration
        )
        let app = AppServer(
            logins: try SRPLoginService(
                configuration: configuration,
                policy: policy,
                verifiers: users,
                handshakes: store,
                serverSecret: secret
            ),
            sessions: try AppSessions(store: store, serverSecret: secret),
            auditLog: log
        )
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), requestLog: log.access) { request in
            await app.handle(request)
        }
        let client = try SRPLoginClient(server: try RequestURL(server.url), configuration: configuration)
        let session = try await client.login(username: "alice", password: password)
        let token = session.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let revoked = try await HTTP1Transport().send(
            HTTPRequest(
                method: "POST",
                url: try RequestURL(server.url + "/session/revoke"),
                headers: [session.authorizationHeader, HTTPHeader("Content-Type", "application/json")],
                body: Array("{}".utf8)
            )
        )
        #expect(revoked.status == 200)
        for _ in 0..<2 { _ = try? await client.login(username: "alice", password: SecureBytes(Array("wrong".utf8))) }
        _ = try? await client.login(username: "alice", password: password)  // locked out
        await server.stop(grace: .milliseconds(200))
        log.flush()
        try await Task.sleep(for: .milliseconds(100))  // the reader thread takes what was written

        let lines = output.objects()
        let access = lines.filter { $0["audit"] == nil }
        #expect(
            access.map { $0["path"] as? String } == [
                "/srp/begin", "/srp/finish", "/session/revoke", "/srp/begin", "/srp/finish", "/srp/begin",
                "/srp/finish", "/srp/begin",
            ]
        )
        #expect(access.map { $0["status"] as? Int } == [200, 200, 200, 200, 401, 200, 401, 429])
        #expect(
            access[1]["user"] as? String == "alice" && access[2]["user"] as? String == "alice"
                && access[4]["user"] as? String == "alice"
        )
        #expect(access[0]["user"] == nil, "begin names no user: the claim is not yet checked")
        for line in access {
            #expect(
                line["time"] is String && line["method"] is String && line["durationMs"] is Double
                    && line["requestId"] is String
            )
            #expect(line["peer"] as? String == "127.0.0.1")
        }
        let audits = lines.filter { $0["audit"] != nil }
        #expect(audits.map { $0["audit"] as? String } == ["login-failed", "login-failed", "lockout"])
        #expect(
            audits.allSatisfy {
                $0["user"] as? String == "alice" && $0["peer"] as? String == "127.0.0.1" && $0["requestId"] is String
            }
        )
        #expect(!output.text.contains(token), "the session token is never logged")
        #expect(!output.text.contains("operations password") && !output.text.contains("wrong\""))
    }

    @Test(
        "IPv6: a server on ::1 answers http://[::1]:port and sees the peer as ::1; an IPv6 address that is not loopback needs TLS"
    )
    func ipv6() async throws {
        var listen = HTTPServer.Configuration()
        listen.host = "::1"
        let records = Locked<[AccessRecord]>([])
        let server = try HTTPServer(
            configuration: listen,
            requestLog: { record in records.withLock { $0.append(record) } }
        ) { request in
            HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array((request.clientAddress?.description ?? "none").utf8)
            )
        }
        #expect(server.url == "http://[::1]:\(server.port)")
        let answer = try await Self.get(server.url + "/v6")
        #expect(answer.status == 200 && String(decoding: answer.body.plainBytes, as: UTF8.self) == "0:0:0:0:0:0:0:1")
        await server.stop(grace: .milliseconds(200))
        #expect(records.withLock { $0.first?.peer?.bytes } == [UInt8](repeating: 0, count: 15) + [1])
        for host in ["::", "fe80::1", "2001:db8::1"] {
            listen.host = host
            #expect(throws: AuthCoreError.self, "\(host)") {
                _ = try HTTPServer(configuration: listen) { _ in HTTPResponse(status: 200) }
            }
        }
    }

    @Test(
        "the drain: a request in flight when stop() begins finishes (not cancelled); one past the drain deadline is answered 503"
    )
    func gracefulDrain() async throws {
        let arrived = Locked(0)
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in
            arrived.withLock { $0 += 1 }
            let milliseconds = request.path == "/short" ? 300 : 30_000
            // Cancellable work: a handler cancelled by the stop would answer "cancelled".
            do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch {
                return HTTPResponse(
                    status: 200,
                    headers: [HTTPHeader("Content-Type", "text/plain")],
                    body: Array("cancelled".utf8)
                )
            }
            return HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array("finished".utf8)
            )
        }
        let url = server.url
        let short = Task { try await OperationsTests.get(url + "/short") }
        let long = Task { try await OperationsTests.get(url + "/long") }
        for _ in 0..<1000 where arrived.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(arrived.withLock { $0 } == 2)
        let stopping = Task { await server.stop(grace: .seconds(2)) }
        try await Task.sleep(for: .milliseconds(150))
        // While draining, a new connection is not served (the accept policy refuses it: it is
        // closed as soon as it is accepted).
        do {
            _ = try await OperationsTests.get(url + "/new")
            Issue.record("a new connection was served while draining")
        } catch {
            #expect((error as? AuthCoreError)?.code == .transportFailure, "\(error)")
        }
        await stopping.value
        let finished = try await short.value
        #expect(finished.status == 200 && String(decoding: finished.body.plainBytes, as: UTF8.self) == "finished")
        let cut = try await long.value
        #expect(cut.status == 503 && String(decoding: cut.body.plainBytes, as: UTF8.self).contains("ShuttingDown"))
        #expect(cut.headers.first(named: "Connection") == "close")
    }

    @Test(
        "a held log writes its announcement first, whatever was logged before it; paths and users are cut at 256 bytes; lines not sent whole say completed: false"
    )
    func heldLogAndLimits() async throws {
        let output = CollectedPipe()
        _ = JSONLineLog(descriptor: output.descriptor, held: true)  // dropped unannounced: released, not a trap
        let log = JSONLineLog(descriptor: output.descriptor, held: true)
        var record = AccessRecord(
            startedAt: Timestamp(secondsSince1970: 0),
            method: "GET",
            path: "/" + String(repeating: "p", count: 1000),
            status: 200,
            duration: .zero,
            peer: nil,
            requestId: "early",
            user: String(repeating: "u", count: 300)
        )
        record.completed = false
        log.access(record)
        log.audit(.lockout, user: "eve", peer: nil, requestId: "early-audit")
        log.announce(Array(#"{"port":1}"#.utf8))
        #expect(log.flush())
        try await Task.sleep(for: .milliseconds(100))
        let lines = output.objects()
        #expect(lines.count == 3)
        #expect(lines.first?["port"] as? Int == 1, "the announcement first")
        #expect((lines[1]["path"] as? String)?.utf8.count == 256 && (lines[1]["user"] as? String)?.utf8.count == 256)
        #expect(lines[1]["completed"] as? Bool == false && lines[2]["audit"] as? String == "lockout")
    }

    @Test(
        "the configuration's operations options: drain, access log, Redis ACL user, database, pool and Sentinel; each mistake named"
    )
    func operationsConfiguration() throws {
        let defaults = try AppServerConfiguration(
            json: Array(#"{"srp":{"verifiersFile":"u"},"store":{"redis":{}}}"#.utf8)
        )
        #expect(defaults.listen.drainTimeout == .seconds(5) && defaults.accessLog)
        #expect(
            defaults.redis?.poolSize == 4 && defaults.redis?.database == 0 && defaults.redis?.username == nil
                && defaults.redis?.sentinel == nil
        )
        #expect(defaults.storeDescription == "redis" && defaults.listenDescription == "127.0.0.1:0")
        let sentinel = try AppServerConfiguration(
            json: Array(
                #"""
                {"srp":{"verifiersFile":"u"},"listen":{"host":"::1","port":9000,"drainTimeoutSeconds":20},"accessLog":false,
                 "store":{"redis":{"username":"authcore","database":3,"poolSize":8,"replicasToAcknowledge":1,
                   "sentinel":{"masterName":"logins","username":"watcher","addresses":[{"host":"127.0.0.1","port":26379},{"host":"::1","port":26380}]}}}}
                """#.utf8
            )
        )
        #expect(
            sentinel.listen.drainTimeout == .seconds(20) && !sentinel.accessLog
                && sentinel.listenDescription == "[::1]:9000"
        )
        #expect(
            sentinel.redis?.username == "authcore" && sentinel.redis?.database == 3 && sentinel.redis?.poolSize == 8
        )
        #expect(
            sentinel.redis?.sentinel
                == RedisHandshakeStore.Configuration.Sentinel(
                    masterName: "logins",
                    addresses: [.init(host: "127.0.0.1", port: 26379), .init(host: "::1", port: 26380)],
                    username: "watcher"
                )
        )
        #expect(sentinel.redis?.replicasToAcknowledge == 1)
        #expect(sentinel.storeDescription == "redis-sentinel")
        let mistakes: [(String, String)] = [
            (
                #"{"store":{"redis":{"sentinel":{"masterName":"m","addresses":[{"host":"h","port":1}]},"port":6379}}}"#,
                "leave out store.redis.host and port"
            ),
            (#"{"store":{"redis":{"sentinel":{"addresses":[{"host":"h","port":1}]}}}}"#, "masterName is required"),
            (
                #"{"store":{"redis":{"sentinel":{"masterName":"m","addresses":[]}}}}"#,
                "addresses needs 1...16 sentinels"
            ),
            (
                #"{"store":{"redis":{"sentinel":{"masterName":"m","addresses":[{"host":"h"}]}}}}"#,
                "addresses[0].host and port are required"
            ),
            (#"{"store":{"redis":{"sentinel":{"masterName":"m","addresses":["h:1"]}}}}"#, "addresses must be an array"),
            (
                #"{"store":{"redis":{"sentinel":{"masterName":"m","addresses":[{"host":"h","port":1,"tls":true}]}}}}"#,
                "unknown option store.redis.sentinel.addresses[0].tls"
            ),
            (#"{"store":{"redis":{"poolSize":0}}}"#, "store.redis.poolSize must be a whole number in 1...64"),
            (#"{"store":{"redis":{"database":-1}}}"#, "store.redis.database"),
            (#"{"store":{"redis":{"user":"x"}}}"#, "unknown option store.redis.user"),
            (#"{"store":{"redis":{"username":""}}}"#, "store.redis.username is empty"),
            (#"{"store":{"redis":{"replicasToAcknowledge":17}}}"#, "store.redis.replicasToAcknowledge"),
            (#"{"listen":{"drainTimeoutSeconds":4000}}"#, "listen.drainTimeoutSeconds"),
            (#"{"accessLog":"yes"}"#, "accessLog must be true or false"),
        ]
        for (text, expected) in mistakes {
            let json = "{\"srp\":{\"verifiersFile\":\"u\"}," + text.dropFirst()
            do {
                _ = try AppServerConfiguration(json: Array(json.utf8), source: "c.json")
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.code == .malformedInput && error.reason.contains(expected), "\(json): \(error.reason)")
            }
        }
    }

    @Test("JSONLineLog: one JSON object per line, in order; the time is ISO 8601 UTC with milliseconds")
    func lineLog() async throws {
        let output = CollectedPipe()
        let log = JSONLineLog(descriptor: output.descriptor)
        let start = Timestamp(secondsSince1970: 1_700_000_000, nanoseconds: 7_000_000)
        for index in 0..<50 {
            log.access(
                AccessRecord(
                    startedAt: start,
                    method: "GET",
                    path: "/p\(index)\"\n",
                    status: index % 2 == 0 ? 200 : nil,
                    duration: .microseconds(1500),
                    peer: ClientAddress(ipv4: 10, 0, 0, 1),
                    requestId: "r\(index)",
                    user: index == 3 ? "bob" : nil
                )
            )
        }
        #expect(log.flush())
        try await Task.sleep(for: .milliseconds(100))
        let lines = output.objects()
        #expect(lines.count == 50)
        #expect(lines.map { $0["requestId"] as? String } == (0..<50).map { "r\($0)" })
        #expect(lines[0]["time"] as? String == "2023-11-14T22:13:20.007Z")
        #expect(
            lines[0]["path"] as? String == "/p0\"\n" && lines[0]["status"] as? Int == 200 && lines[1]["status"] == nil
        )
        #expect(
            lines[0]["durationMs"] as? Double == 1.5 && lines[3]["user"] as? String == "bob"
                && lines[0]["peer"] as? String == "10.0.0.1"
        )
    }

    @Test("JSONLineLog.text: a line of plain text, control characters but tab as ?, in order with the others")
    func textLines() async throws {
        let output = CollectedPipe()
        let log = JSONLineLog(descriptor: output.descriptor)
        log.text("serve: POST /srp/finish: storeUnavailable:\tredis\nforged line\u{7F}\u{9B}31m\u{2028}é")
        log.text("second")
        log.text(String(repeating: "ab", count: 3000))
        #expect(log.flush())
        try await Task.sleep(for: .milliseconds(100))
        let lines = output.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty, "three lines, each ended")
        #expect(lines.first == "serve: POST /srp/finish: storeUnavailable:\tredis?forged line??31m?é")
        #expect(lines[1] == "second" && lines[2].utf8.count == JSONLineLog.maximumTextBytes)
    }

    @Test("JSONLineLog without a flush: a line is written within about the batch interval")
    func lineWithoutFlush() async throws {
        let output = CollectedPipe()
        let log = JSONLineLog(descriptor: output.descriptor)
        log.text("one")
        for _ in 0..<200 where output.text.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(output.text == "one\n", "written by the log's thread, not by a flush")
        log.text("two")  // the next batch, woken again
        for _ in 0..<200 where output.text.utf8.count < 8 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(output.text == "one\ntwo\n")
        withExtendedLifetime(log) {}
    }

    @Test(
        "JSONLineLog with a reader that stalls: lines past the limit are dropped and counted, flush gives up at its limit, and the count is written once the reader reads; a released log writes what it had"
    )
    func stalledReader() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let record = { (index: Int) in
            AccessRecord(
                startedAt: Timestamp(secondsSince1970: 1_700_000_000, nanoseconds: 0),
                method: "GET",
                path: "/\(String(repeating: "x", count: 200))",
                status: 200,
                duration: .microseconds(1),
                peer: nil,
                requestId: "r\(index)",
                user: nil
            )
        }
        var log: JSONLineLog? = JSONLineLog(descriptor: ends[1], maximumPending: 100)
        // The pipe holds 64 KiB (about 220 of these lines); nobody reads it: the writer blocks, and
        // past 100 lines waiting the rest are dropped.
        for index in 0..<3000 { log?.access(record(index)) }
        #expect(log?.flush(within: .milliseconds(300)) == false, "a stalled reader: the flush gives up")
        // The reader catches up; one more line brings the count of those dropped.
        // On a thread of its own (not the concurrency pool, which the flushes below block).
        let readEnd = ends[0]
        let collected = Locked<[UInt8]>([])
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(readEnd, &chunk, chunk.count)
                guard count > 0 else { return }
                collected.withLock { $0 += chunk[0..<count] }
            }
        }
        #expect(log?.flush(within: .seconds(10)) == true, "the reader caught up")
        log?.access(record(3000))  // the line after the drops: the count goes first
        #expect(log?.flush(within: .seconds(10)) == true)
        log?.access(record(3001))
        log = nil  // released: the last line is written by the closing writer, which then ends
        // Read until the last line is in (at most 5 s), then the write end is closed.
        for _ in 0..<500
        where !String(decoding: collected.withLock { $0 }, as: UTF8.self).contains(#""requestId":"r3001""#) {
            try await Task.sleep(for: .milliseconds(10))
        }
        close(ends[1])
        let text = collected.withLock { $0 }
        let lines = text.split(separator: 0x0A).map {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        #expect(lines.allSatisfy { $0 != nil }, "every line whole")
        let written = lines.compactMap { $0?["requestId"] as? String }
        let dropped = lines.compactMap { $0?["dropped"] as? Int }.reduce(0, +)
        #expect(dropped > 2000, "most lines were dropped: \(dropped)")
        #expect(written.count + dropped == 3002, "each line written or counted: \(written.count) + \(dropped)")
        #expect(written.last == "r3001" && written.dropLast().last == "r3000" && written.first == "r0")
        // The loop ended dropping (the pipe stayed full): the last count comes just before r3000.
        let countAt = lines.lastIndex { $0?["dropped"] != nil }
        #expect(
            countAt != nil && lines[countAt! + 1]?["requestId"] as? String == "r3000",
            "the count comes just before the next line"
        )
        let order = written.compactMap { Int($0.dropFirst()) }
        #expect(order == order.sorted(), "in order")
    }
}

/// A loopback port nobody listens on (bound, then closed: a connect is refused at once).
func closedLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else { throw AuthCoreError(.transportFailure, "no free loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
