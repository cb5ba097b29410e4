import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Connection reuse decisions, the bounded executor, and a server that sends bytes after an answer.
@Suite("Keep-alive: when a connection is reused, the executor's threads, and late bytes")
struct KeepAliveTests {
    func parsed(_ answer: String, method: String = "GET") throws -> HTTP1ResponseParser {
        var parser = HTTP1ResponseParser(method: method, maximumBodyBytes: 1 << 20)
        _ = try Array(answer.utf8).withUnsafeBytes { try parser.consume($0) }
        return parser
    }

    @Test(
        "an answer allows reuse only when HTTP/1.1, framed by length or chunks, and free of framing doubts (RFC 9112 §6.3, §9.3)"
    )
    func allowsReuse() throws {
        #expect(try parsed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").allowsReuse)
        #expect(try parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n").allowsReuse)
        #expect(try parsed("HTTP/1.1 204 No Content\r\n\r\n").allowsReuse)
        #expect(try parsed("HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n").allowsReuse)
        #expect(try parsed("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").allowsReuse)
        // Not reusable:
        #expect(try !parsed("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok").allowsReuse, "HTTP/1.0")
        #expect(
            try !parsed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, Close\r\n\r\nok").allowsReuse,
            "Connection: close"
        )
        #expect(
            try !parsed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", method: "HEAD").allowsReuse,
            "after HEAD a body may follow"
        )
        #expect(
            try !parsed("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n").allowsReuse,
            "a 204 announcing a body"
        )
        #expect(
            try !parsed("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n").allowsReuse,
            "a 304 announcing chunks"
        )
        #expect(
            try !parsed(
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
            ).allowsReuse,
            "TE and CL"
        )
        var untilClose = try parsed("HTTP/1.1 200 OK\r\n\r\nbody")
        try untilClose.finishAtEndOfStream()
        #expect(!untilClose.allowsReuse, "a body ended by the close")
        #expect(try !parsed("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nok").allowsReuse, "incomplete")
    }

    @Test("Keep-Alive: timeout=N is read; anything else is no timeout")
    func keepAliveTimeout() throws {
        #expect(
            try parsed("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n")
                .keepAliveTimeout == .seconds(5)
        )
        #expect(
            try parsed("HTTP/1.1 200 OK\r\nKeep-Alive: max=3, Timeout = 15\r\nContent-Length: 0\r\n\r\n")
                .keepAliveTimeout == .seconds(15)
        )
        #expect(
            try parsed("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=-1\r\nContent-Length: 0\r\n\r\n").keepAliveTimeout == nil
        )
        #expect(
            try parsed("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=99999999999\r\nContent-Length: 0\r\n\r\n")
                .keepAliveTimeout == nil
        )
        #expect(try parsed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").keepAliveTimeout == nil)
    }

    @Test("a burst of jobs runs on as many threads as it has jobs, also when one thread was idle")
    func executorBurst() async throws {
        let executor = BlockingExecutor(maximumThreads: 8, idleThreadLifetime: 30)
        let warm = DispatchSemaphore(value: 0)
        #expect(executor.submit { warm.signal() })
        #expect(warm.wait(timeout: .now() + 10) == .success)
        try await Task.sleep(for: .milliseconds(100))  // the first thread is now waiting for work
        // Four jobs that each wait until all four have started: run one after another, they cannot.
        let started = Locked(0)
        let everyoneSawFour = Locked(0)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            #expect(
                executor.submit {
                    started.withLock { $0 += 1 }
                    for _ in 0..<1000 where started.withLock({ $0 }) < 4 { usleep(10_000) }  // bounded: 10 s
                    if started.withLock({ $0 }) == 4 { everyoneSawFour.withLock { $0 += 1 } }
                    done.signal()
                }
            )
        }
        for _ in 0..<4 { #expect(done.wait(timeout: .now() + 30) == .success) }
        #expect(everyoneSawFour.withLock { $0 } == 4)
        #expect(executor.threadCount == 4)
    }

    @Test("the executor never runs more threads than its bound; the rest wait their turn")
    func executorBound() throws {
        let executor = BlockingExecutor(maximumThreads: 2, idleThreadLifetime: 30)
        let running = Locked(0)
        let most = Locked(0)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<6 {
            _ = executor.submit {
                let now = running.withLock { value -> Int in
                    value += 1
                    return value
                }
                most.withLock { $0 = Swift.max($0, now) }
                usleep(20_000)
                running.withLock { $0 -= 1 }
                done.signal()
            }
        }
        for _ in 0..<6 { #expect(done.wait(timeout: .now() + 30) == .success) }
        #expect(most.withLock { $0 } == 2)
        #expect(executor.threadCount == 2)
    }

    @Test(
        "bytes a server sends after an answer to HEAD are never read as the next answer: the next request opens a new connection"
    )
    func lateBytesAfterHead() async throws {
        let listener = try OneShotListener()
        let port = listener.port
        let forged = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged"
        let firstConnectionReused = Locked<Bool?>(nil)
        Thread.detachNewThread {
            func readHead(_ socket: Int32) -> Bool {
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                    guard recv(socket, &byte, 1, 0) == 1 else { return false }
                    head.append(byte)
                }
                return true
            }
            func answer(_ socket: Int32, _ text: String) {
                _ = Array(text.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            let first = accept(listener.descriptor, nil, nil)
            guard first >= 0, readHead(first) else { return }
            // The HEAD answer announces a body; a server that then sends those bytes once the next
            // request arrives would answer it with them (the poll before reuse sees nothing yet).
            answer(first, "HTTP/1.1 200 OK\r\nContent-Length: \(forged.utf8.count)\r\n\r\n")
            var poller = pollfd(fd: first, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 3000) == 1, readHead(first) {
                firstConnectionReused.withLock { $0 = true }
                answer(first, forged)
                usleep(500_000)
                close(first)
                return
            }
            firstConnectionReused.withLock { $0 = false }
            close(first)
            let second = accept(listener.descriptor, nil, nil)
            guard second >= 0, readHead(second) else { return }
            answer(second, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nreal")
            usleep(200_000)
            close(second)
        }
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        let transport = try HTTP1Transport(configuration: configuration)
        let head = try await transport.send(
            HTTPRequest(method: "HEAD", url: try RequestURL("http://127.0.0.1:\(port)/object"))
        )
        #expect(head.status == 200 && head.body.isEmpty)
        let next = try await transport.send(
            HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(port)/token"))
        )
        #expect(String(decoding: next.body.plainBytes, as: UTF8.self) == "real")
        #expect(firstConnectionReused.withLock { $0 } == false)
    }
}
