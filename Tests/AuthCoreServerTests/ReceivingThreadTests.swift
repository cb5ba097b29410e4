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
            await elsewhere(after: .milliseconds(30))
            threads.append(threadName())
        case "/race":
            await elsewhere(after: .seconds(0))
            threads.append(threadName())
        default: break
        }
        let body = (threads + [query]).joined(separator: " ")
        return HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "text/plain")], body: Array(body.utf8))
    }

    @Test("a handler that computes is answered on the thread that received it; one that waits goes on elsewhere; every answer is its own")
    func handlersStartOnTheReceivingThread() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumConnectionsPerAddress = 128  // the 64 concurrent requests below may open 64 connections
        let server = try HTTPServer(configuration: configuration, handler: Self.handler)
        let transport = HTTP1Transport()
        func get(_ path: String) async throws -> String {
            let answer = try await transport.send(HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(server.port)\(path)")))
            #expect(answer.status == 200, "\(path)")
            return String(decoding: answer.body.plainBytes, as: UTF8.self)
        }
        #expect(try await get("/compute?n=1") == "MHD-worker MHD-worker 1")
        let waited = try await get("/wait?n=2").split(separator: " ").map(String.init)
        #expect(waited.first == "MHD-worker" && waited.last == "2", "\(waited)")
        #expect(waited.count == 3 && waited[1] != "MHD-worker", "after its wait the handler runs on a Dispatch thread: \(waited)")
        // An answer given while the receiving thread suspends the connection, or after: each request
        // is answered once, with its own answer, on one kept-alive connection and on several at once.
        for index in 0..<200 { #expect(try await get("/race?n=\(index)").hasSuffix(" \(index)")) }
        let concurrent = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 { group.addTask { try await get("/race?n=c\(index)").hasSuffix(" c\(index)") } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(concurrent == 64)
        #expect(try await get("/compute?n=3") == "MHD-worker MHD-worker 3")
        await server.stop()
    }
}
