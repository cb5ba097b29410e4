import AuthCore
import AuthCoreHTTP
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// The timer that keeps request deadlines and handler time limits sleeps while the server is idle
/// (no connection, no handler) and wakes with the next connection: the limits hold after a sleep.
/// The real libmicrohttpd listener in this process, raw sockets on threads of their own.
@Suite("HTTP server: the reaper sleeps while idle and keeps every limit after waking", .serialized)
struct ReaperTests {
    /// `GET /slow` sleeps past the time limit; anything else is answered at once.
    static let handler: HTTPServer.Handler = { request in
        if request.path == "/slow" { try? await Task.sleep(for: .seconds(5)) }
        return HTTPResponse(status: 200, body: Array("done".utf8))
    }

    /// Waits (at most `seconds`, polling every 10 ms) until `condition` holds; returns whether it did.
    static func eventually(seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test(
        "idle, the reaper sleeps; a silent connection wakes it and is still shut at its request deadline; a handler past its limit is still answered 503; idle again, it sleeps"
    )
    func sleepsWhileIdle() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.requestTimeout = .seconds(1)
        configuration.handlerTimeout = .seconds(1)
        let server = try HTTPServer(configuration: configuration, handler: Self.handler)
        let port = server.port
        #expect(await Self.eventually { server.reaperSleeps }, "no connection, no handler: the reaper sleeps")

        // A connection that sends half a head and then nothing: it wakes the reaper, which shuts it
        // at its 1 s deadline (nothing else would within the 8 s read: the idle timeout is 30 s).
        let wakes = server.reaperWakeCount
        let silent = try RawSocket(port: port, timeoutSeconds: 8)
        defer { silent.close() }
        #expect(silent.write(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)))
        let (received, closed) = try await RawHTTP.onThread { (silent.readAll(limit: 4096), silent.peerClosed) }
        #expect(received.isEmpty && closed, "the server shut the silent connection: \(received.count) bytes")
        #expect(server.reaperWakeCount > wakes, "the connection woke the reaper")
        #expect(await Self.eventually { server.reaperSleeps }, "the connection gone, the reaper sleeps again")

        // After that sleep, a handler past its 1 s limit is answered 503 by the woken reaper.
        let answer = try await RawSocket.exchange(
            port: port,
            "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(40))")
        #expect(answer.contains("Timeout"))
        // And a normal request is served; then the server is idle once more.
        let normal = try await RawSocket.exchange(
            port: port,
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        #expect(normal.hasPrefix("HTTP/1.1 200") && normal.hasSuffix("done"), "\(normal.prefix(40))")
        #expect(await Self.eventually { server.reaperSleeps }, "idle again: the reaper sleeps")
        await server.stop()
    }

    @Test("a server stopped while its reaper sleeps stops cleanly (the suspended timer is resumed, then cancelled)")
    func stopWhileAsleep() async throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: Self.handler)
        #expect(await Self.eventually { server.reaperSleeps })
        await server.stop()
        #expect(!server.reaperSleeps, "the stop resumed the timer before cancelling it")
    }
}
