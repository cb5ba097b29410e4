import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// Streamed request bodies and response sinks against libmicrohttpd (the app server's listener,
/// which decodes chunked transfer coding itself): what arrives is what was streamed.
@Suite("Streamed bodies: chunked transfer coding, length checks, response sinks")
struct StreamedBodyTests {
    /// Chunks of the caller's, from a list.

    /// An echo of what arrived: the body's length and its SHA-256 (Foundation-free: AuthCore's).
    func withEchoServer(_ body: (String, HTTP1Transport) async throws -> Void) async throws {
        var listen = HTTPServer.Configuration()
        listen.maximumBodyBytes = 1 << 20
        let server = try HTTPServer(configuration: listen) { request in
            let framing = request.headers.first(named: "transfer-encoding") ?? "length"
            return HTTPResponse(
                status: 200,
                body: Array("\(request.body.count) \(SHA256.hash(bytes: request.body).hexLowercased) \(framing)".utf8)
            )
        }
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        try await body(server.url, try HTTP1Transport(configuration: configuration))
        await server.stop()
    }

    @Test("a body of unknown length goes in chunked transfer coding and arrives whole")
    func chunkedTransferCoding() async throws {
        let pieces: [[UInt8]] = [
            Array(repeating: 0x61, count: 10_000), Array("and".utf8), Array(repeating: 0x7A, count: 70_000),
        ]
        let whole = pieces.flatMap { $0 }
        try await withEchoServer { url, transport in
            var request = HTTPRequest(method: "POST", url: try RequestURL(url + "/echo"))
            request.body = .stream(HTTPBodyStream(length: nil) { ListedChunks(pieces) })
            let response = try await transport.send(request)
            #expect(
                String(decoding: response.body.plainBytes, as: UTF8.self)
                    == "\(whole.count) \(SHA256.hash(bytes: whole).hexLowercased) chunked"
            )
        }
    }

    @Test(
        "an async sequence is a body: produced in its own task as the transport asks, made afresh per send, with or without a length"
    )
    func asyncSequenceBodies() async throws {
        let pieces: [[UInt8]] = [
            Array(repeating: 0x61, count: 40_000), [], Array("middle".utf8), Array(repeating: 0x7A, count: 90_000),
        ]
        let whole = pieces.flatMap { $0 }
        let digest = SHA256.hash(bytes: whole).hexLowercased
        @Sendable func chunks() -> AsyncStream<[UInt8]> {
            AsyncStream { continuation in
                Task {
                    for piece in pieces {
                        try? await Task.sleep(for: .milliseconds(5))
                        continuation.yield(piece)
                    }
                    continuation.finish()
                }
            }
        }
        try await withEchoServer { url, transport in
            var unknown = HTTPRequest(method: "POST", url: try RequestURL(url + "/echo"))
            unknown.body = .stream(.sequence(length: nil, chunks))
            for _ in 0..<2 {  // a fresh sequence per send
                let response = try await transport.send(unknown)
                #expect(String(decoding: response.body.plainBytes, as: UTF8.self) == "\(whole.count) \(digest) chunked")
            }
            var known = unknown
            known.body = .stream(.sequence(length: whole.count, chunks))
            #expect(
                String(decoding: try await transport.send(known).body.plainBytes, as: UTF8.self)
                    == "\(whole.count) \(digest) length"
            )
            // The sequence's own error fails the request, typed as it was thrown.
            var failing = unknown
            failing.body = .stream(
                .sequence(length: nil) {
                    AsyncThrowingStream<[UInt8], any Error> { continuation in
                        continuation.yield(Array("start".utf8))
                        continuation.finish(throwing: AuthCoreError(.credentialsUnavailable, "the producer gave up"))
                    }
                }
            )
            await #expect(throws: AuthCoreError(.credentialsUnavailable, "the producer gave up")) {
                try await transport.send(failing)
            }
            // A producer that stalls is cut off at the idle limit.
            var stalled = unknown
            stalled.body = .stream(
                .sequence(length: nil, idleLimit: .milliseconds(300)) {
                    AsyncStream<[UInt8]> { continuation in
                        continuation.yield(Array("first".utf8))
                        Task {
                            try? await Task.sleep(for: .seconds(5))
                            continuation.finish()
                        }
                    }
                }
            )
            // (Had the limit not held, the sequence would end after 5 s and the request succeed.)
            // The transport reports a source that stalls as a failure of the body's source (not of the connection).
            await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await transport.send(stalled) }
            // The transport still serves.
            #expect(try await transport.send(known).status == 200)
            // A sequence made once, outside the closure, ends at once on a second send: that send
            // fails rather than go out as an empty body.
            let once = AsyncStream<[UInt8]> { continuation in
                continuation.yield(Array("only once".utf8))
                continuation.finish()
            }
            var single = unknown
            single.body = .stream(.sequence(length: nil) { once })
            #expect(String(decoding: try await transport.send(single).body.plainBytes, as: UTF8.self).hasPrefix("9 "))
            await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await transport.send(single) }
            // The wait for a chunk ends with the call's own limit, not only the sequence's idle
            // limit: the producer below would finish after 8 s and the request then succeed.
            var configuration = HTTP1Transport.Configuration()
            configuration.proxies = .configured(.direct)
            configuration.totalTimeout = .seconds(1)
            let hurried = try HTTP1Transport(configuration: configuration)
            var slow = unknown
            slow.body = .stream(
                .sequence(length: nil, idleLimit: .seconds(60)) {
                    AsyncStream<[UInt8]> { continuation in
                        continuation.yield(Array("first".utf8))
                        Task {
                            try? await Task.sleep(for: .seconds(8))
                            continuation.yield(Array("late".utf8))
                            continuation.finish()
                        }
                    }
                }
            )
            await #expect(throws: AuthCoreError.self) { try await hurried.send(slow) }
        }
    }

    @Test(
        "a known length is Content-Length; a source that ends early or runs long fails the request, and its connection is not reused"
    )
    func lengthChecked() async throws {
        try await withEchoServer { url, transport in
            var exact = HTTPRequest(method: "PUT", url: try RequestURL(url + "/echo"))
            exact.body = .stream(HTTPBodyStream(length: 6) { ListedChunks([Array("abc".utf8), Array("def".utf8)]) })
            #expect(
                String(decoding: try await transport.send(exact).body.plainBytes, as: UTF8.self)
                    == "6 \(SHA256.hash(bytes: Array("abcdef".utf8)).hexLowercased) length"
            )
            var short = exact
            short.body = .stream(HTTPBodyStream(length: 10) { ListedChunks([Array("abc".utf8)]) })
            await #expect(throws: AuthCoreError(.malformedRequest, "")) { try await transport.send(short) }
            var long = exact
            long.body = .stream(HTTPBodyStream(length: 2) { ListedChunks([Array("abc".utf8)]) })
            await #expect(throws: AuthCoreError(.malformedRequest, "")) { try await transport.send(long) }
            // The connection the failures left is not reused: the next request is answered.
            #expect(try await transport.send(exact).status == 200)
        }
    }

    @Test(
        "the CLI's streaming options: usage errors (exit 2) for the combinations that mean nothing",
        arguments: [
            ["sign", "--upload", "/etc/hostname"], ["presign", "--output", "/tmp/x"], ["send", "--aws-chunked"],
            ["send", "--upload", "/etc/hostname", "-d", "x"],
            ["send", "--upload", "/etc/hostname", "--aws-chunked", "--unsigned-payload"],
            ["send", "--upload", "/nonexistent/file"],
            ["send", "--output", "/nonexistent/dir/file"], ["send", "--upload", "/tmp"],
        ]
    )
    func cliUsage(arguments: [String]) throws {
        let result = try authcore(
            ["sigv4"] + arguments.prefix(1) + ["--region", "us-east-1", "--service", "s3"] + arguments.dropFirst() + [
                "http://127.0.0.1:9/b/k"
            ],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"]
        )
        #expect(result.status == 2 && !result.terminatedBySignal, "\(arguments): \(result.stderr)")
    }

    @Test("a response sink receives a 2xx body as it arrives (the cap still counts); a refusal's body stays in memory")
    func responseSink() async throws {
        let big = [UInt8](repeating: 0x42, count: 300_000)
        var listen = HTTPServer.Configuration()
        listen.maximumBodyBytes = 1 << 20
        let server = try HTTPServer(configuration: listen) { request in
            request.path == "/big"
                ? HTTPResponse(status: 200, body: big) : HTTPResponse(status: 404, body: Array("no such thing".utf8))
        }
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        let transport = try HTTP1Transport(configuration: configuration)
        let received = Locked<[UInt8]>([])
        var request = HTTPRequest(method: "GET", url: try RequestURL(server.url + "/big"))
        request.responseSink = HTTPResponseSink { bytes throws(AuthCoreError) in received.withLock { $0 += bytes } }
        let response = try await transport.send(request)
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(received.withLock { $0 } == big)
        var capped = request
        capped.maximumResponseBytes = 100_000
        await #expect(throws: AuthCoreError(.inputTooLarge, "")) { try await transport.send(capped) }
        var missing = HTTPRequest(method: "GET", url: try RequestURL(server.url + "/missing"))
        let ignored = Locked(0)
        missing.responseSink = HTTPResponseSink { _ throws(AuthCoreError) in ignored.withLock { $0 += 1 } }
        let refusal = try await transport.send(missing)
        #expect(
            refusal.status == 404 && refusal.body.plainBytes == Array("no such thing".utf8)
                && ignored.withLock { $0 } == 0
        )
        // A file sink that is refused leaves nothing behind; a whole body is put in place.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-sink-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var toFile = capped
        toFile.responseSink = try HTTPResponseSink.file(directory.appendingPathComponent("out").path)
        await #expect(throws: AuthCoreError(.inputTooLarge, "")) { try await transport.send(toFile) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        toFile.maximumResponseBytes = 1 << 20
        toFile.responseSink = try HTTPResponseSink.file(directory.appendingPathComponent("out").path)
        #expect(try await transport.send(toFile).status == 200)
        #expect(try Data(contentsOf: directory.appendingPathComponent("out")) == Data(big))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out"])
        await server.stop()
    }
}
