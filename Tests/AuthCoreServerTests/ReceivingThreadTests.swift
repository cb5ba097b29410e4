import AuthCore
import AuthCoreHTTP
import AuthCoreServer
import AuthCoreTestSupport
import Dispatch
import Foundation
import Testing

/// Where a handler runs: on the MHD thread that received its request until it first waits on
/// another thread's work, then elsewhere — and every request gets its own answer either way.
@Suite("HTTP server: handlers start on the receiving thread")
struct ReceivingThreadTests {
    /// The calling thread's name (MHD names its polling threads `MHD-worker`).
    static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    actor Tally {
        var count = 0
        func add() -> Int {
            count += 1
            return count
        }
    }

    /// Resumed by a Dispatch thread after `delay` (zero: at once, racing the receiving thread's suspend).
    static func elsewhere(after delay: DispatchTimeInterval) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { continuation.resume() }
        }
    }

    static let handler: HTTPServer.Handler = { request in
        let tally = Tally()
        let query = request.queryParameters.first { $0.key == "n" }?.value ?? ""
        var threads: [String] = [threadName()]
        switch request.path {
        case "/compute":
            // An actor hop and a child task: both come back to the receiving thread's executor.
            async let child = tally.add()
            _ = await tally.add()
            _ = await child
            threads.append(threadName())
        case "/wait":
            // Long enough that the receiving thread has surely stopped looking for jobs by then.
            await elsewhere(after: .milliseconds(250))
            threads.append(threadName())
        case "/spin":
            // Computes past the 1 s time limit without ever waiting (the receiving thread is held).
            let end = DispatchTime.now().uptimeNanoseconds + 1_500_000_000
            while DispatchTime.now().uptimeNanoseconds < end {}
        case "/yield":
            // More jobs than the receiving thread's budget, a child task's among them: the rest
            // are handed on, in order, and the handler ends elsewhere.
            async let child = tally.add()
            for _ in 0..<200 { await Task.yield() }
            _ = await child
            threads.append(threadName())
        case "/race":
            await elsewhere(after: .seconds(0))
            threads.append(threadName())
        default: break
        }
        let body = (threads + [query]).joined(separator: " ")
        return HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "text/plain")], body: Array(body.utf8))
    }

    /// A client that gives up after 20 s: a connection never resumed fails the test, not the run.
    static func client() throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.totalTimeout = .seconds(20)
        return try HTTP1Transport(configuration: configuration)
    }

    static func get(_ transport: HTTP1Transport, _ port: Int, _ path: String, status: Int = 200) async throws -> String
    {
        let answer = try await transport.send(
            HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(port)\(path)"))
        )
        #expect(answer.status == status, "\(path)")
        return String(decoding: answer.body.plainBytes, as: UTF8.self)
    }

    @Test(
        "a handler that computes is answered on the thread that received it; one that waits goes on elsewhere; every answer is its own"
    )
    func handlersStartOnTheReceivingThread() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumConnectionsPerAddress = 128  // the 64 concurrent requests below may open 64 connections
        let server = try HTTPServer(configuration: configuration, handler: Self.handler)
        let transport = try Self.client()
        func get(_ path: String) async throws -> String { try await Self.get(transport, server.port, path) }
        #expect(try await get("/compute?n=1") == "MHD-worker MHD-worker 1")
        let waited = try await get("/wait?n=2").split(separator: " ").map(String.init)
        #expect(waited.first == "MHD-worker" && waited.last == "2", "\(waited)")
        #expect(
            waited.count == 3 && waited[1] != "MHD-worker",
            "after its wait the handler runs on a Dispatch thread: \(waited)"
        )
        // An answer given while the receiving thread suspends the connection, or after: each request
        // is answered once, with its own answer, on one kept-alive connection and on several at once.
        for index in 0..<200 { #expect(try await get("/race?n=\(index)").hasSuffix(" \(index)")) }
        let concurrent = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 { group.addTask { try await get("/race?n=c\(index)").hasSuffix(" c\(index)") } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(concurrent == 64)
        #expect(try await get("/compute?n=3") == "MHD-worker MHD-worker 3")
        for index in 0..<8 {
            let yielded = try await get("/yield?n=y\(index)").split(separator: " ").map(String.init)
            #expect(
                yielded.count == 3 && yielded[0] == "MHD-worker" && yielded[1] != "MHD-worker"
                    && yielded[2] == "y\(index)",
                "\(yielded)"
            )
        }
        await server.stop()
    }

    @Test(
        "a handler computing on its receiving thread past its time limit is answered 503 when it ends; the server goes on"
    )
    func timeLimitOnTheReceivingThread() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.handlerTimeout = .seconds(1)
        let server = try HTTPServer(configuration: configuration, handler: Self.handler)
        let transport = try Self.client()
        #expect(try await Self.get(transport, server.port, "/spin", status: 503).contains("Timeout"))
        #expect(try await Self.get(transport, server.port, "/compute?n=4") == "MHD-worker MHD-worker 4")
        await server.stop()
    }

    @Test("with one polling thread no handler runs on it: every one runs on Dispatch's threads")
    func onePollingThread() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.threads = 1
        let server = try HTTPServer(configuration: configuration, handler: Self.handler)
        let transport = try Self.client()
        let threads = try await Self.get(transport, server.port, "/compute?n=5").split(separator: " ").map(String.init)
        #expect(
            threads.count == 3 && threads.last == "5" && !threads.contains("MHD-worker")
                && !threads.contains("MHD-single"),
            "\(threads)"
        )
        await server.stop()
    }
}
