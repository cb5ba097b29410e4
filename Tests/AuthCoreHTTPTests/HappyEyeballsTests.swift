import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Connection racing (RFC 8305) on loopback only: a "black-holed" address is a listener whose
/// accept queue is full (listen backlog 0, filled by connections nobody accepts), so the kernel drops
/// further SYNs and a connect to it hangs, as one to a dead route does. No packet leaves loopback.
@Suite("Happy Eyeballs: a hanging first address falls back to the next")
struct HappyEyeballsTests {
    /// A TCP listener on 127.0.0.1, closed on deinit with the connections filling its queue.
    final class Listener {
        let descriptor: Int32
        let port: Int
        private var fillers: [Int32] = []

        init(backlog: Int32) throws {
            guard let (descriptor, port) = loopbackListener(backlog: backlog) else {
                throw PeerError(description: "listener: \(errno)")
            }
            self.descriptor = descriptor
            self.port = port
        }

        /// Fills the accept queue so that later connects hang (SYNs dropped).
        func blackHole() {
            for _ in 0..<3 {
                let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                fillers.append(filler)
            }
            usleep(200_000)  // the fillers' handshakes complete and fill the queue
        }

        deinit {
            for filler in fillers { close(filler) }
            close(descriptor)
        }
    }

    struct PeerError: Error, CustomStringConvertible { let description: String }

    func address(_ port: Int) throws -> SocketAddress {
        try #require(SocketAddress(numericHost: "127.0.0.1", port: port))
    }

    func peerPort(_ descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test(
        "the control: a connect to the black-holed listener alone does not complete (so the fallback below is needed)"
    )
    func blackHoleHangs() throws {
        let hole = try Listener(backlog: 0)
        hole.blackHole()
        let outcome = HappyEyeballs.connect(
            to: [try address(hole.port)],
            deadline: .now + .seconds(1),
            isCancelled: { false }
        )
        #expect(outcome == .timedOut)
    }

    @Test("a black-holed first address: the second attempt starts after the delay and wins; the first is abandoned")
    func fallsBackFromHangingAddress() throws {
        let hole = try Listener(backlog: 0)
        hole.blackHole()
        let good = try Listener(backlog: 16)
        let outcome = HappyEyeballs.connect(
            to: [try address(hole.port), try address(good.port)],
            deadline: .now + .seconds(20),
            isCancelled: { false }
        )
        guard case .connected(let descriptor, let reached) = outcome else {
            Issue.record("no connection: \(outcome)")
            return
        }
        defer { close(descriptor) }
        #expect(reached == (try address(good.port)))
        #expect(peerPort(descriptor) == good.port)
        // The winner is blocking again (the transport's reads and writes rely on socket timeouts).
        #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test("a refused first address starts the next attempt at once; all refused is the last error")
    func refusedAddresses() throws {
        let closedPort: Int
        do {
            let listener = try Listener(backlog: 1)
            closedPort = listener.port
        }  // closed: connects to it are refused
        let good = try Listener(backlog: 16)
        let outcome = HappyEyeballs.connect(
            to: [try address(closedPort), try address(good.port)],
            deadline: .now + .seconds(20),
            isCancelled: { false }
        )
        guard case .connected(let descriptor, let reached) = outcome else {
            Issue.record("no connection: \(outcome)")
            return
        }
        close(descriptor)
        #expect(reached == (try address(good.port)))
        #expect(
            HappyEyeballs.connect(to: [try address(closedPort)], deadline: .now + .seconds(20), isCancelled: { false })
                == .failed(ECONNREFUSED)
        )
        #expect(HappyEyeballs.connect(to: [], deadline: .now + .seconds(1), isCancelled: { false }) == .noAddresses)
    }

    @Test("a cancel ends the race with every attempt closed")
    func cancelled() throws {
        let hole = try Listener(backlog: 0)
        hole.blackHole()
        let calls = Locked(0)
        let outcome = HappyEyeballs.connect(
            to: [try address(hole.port)],
            deadline: .now + .seconds(20),
            isCancelled: {
                calls.withLock { $0 += 1 }
                return calls.withLock { $0 } > 3
            }
        )
        #expect(outcome == .cancelled)
    }

    @Test("addresses are ordered with the families alternating, the resolver's first family first (RFC 8305 §4)")
    func interleaving() throws {
        let v6 = try (1...3).map { try #require(SocketAddress(numericHost: "::1", port: $0)) }
        let v4 = try (1...2).map { try #require(SocketAddress(numericHost: "127.0.0.1", port: $0)) }
        #expect(SocketAddress.interleavingFamilies(v6 + v4) == [v6[0], v4[0], v6[1], v4[1], v6[2]])
        #expect(SocketAddress.interleavingFamilies(v4 + v6) == [v4[0], v6[0], v4[1], v6[1], v6[2]])
        #expect(SocketAddress.interleavingFamilies([]) == [])
    }
}
