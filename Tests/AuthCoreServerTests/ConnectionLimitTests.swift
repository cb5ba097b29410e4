import AuthCore
import AuthCoreHTTP
import Foundation
import Testing

@testable import AuthCoreServer

/// The server's own limit on IPv6 connections per /64 (MHD counts each /128 address, and one
/// subscriber holds a whole /64): exercised on the daemon core with real sockets standing in for
/// accepted connections (a loopback host has one IPv6 address, so a test cannot open connections
/// from many).
@Suite("HTTP server: IPv6 connections counted per /64")
struct ConnectionLimitTests {
    /// A connected pair of sockets: the first plays the accepted connection, the second its peer.
    func socketPair() throws -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
            throw AuthCoreError(.transportFailure, "socketpair failed")
        }
        return (pair[0], pair[1])
    }

    /// Whether the connection was shut down: its peer reads end of stream (a live one would block;
    /// the read is non-blocking, so it answers at once either way).
    func shutDown(_ peer: Int32) -> Bool {
        _ = fcntl(peer, F_SETFL, fcntl(peer, F_GETFL) | O_NONBLOCK)
        var byte: UInt8 = 0
        return read(peer, &byte, 1) == 0
    }

    @Test(
        "the connection past maximumConnectionsPerAddress from one /64 is shut down; another /64, IPv4 and a closed slot are not counted against it"
    )
    func perNetworkLimit() throws {
        let core = DaemonCore(
            handler: { _ in HTTPResponse(status: 200) },
            admission: nil,
            requestLog: nil,
            maximumBodyBytes: 0,
            maximumConnectionsPerAddress: 2,
            handlerTimeout: .seconds(1),
            requestTimeout: 1_000_000_000,
            handlersStartOnReceivingThread: true
        )
        func address(_ last: UInt8, network: UInt8 = 0x01) throws -> ClientAddress {
            try ClientAddress(bytes: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, network] + [0, 0, 0, 0, 0, 0, 0, last])
        }
        var pairs: [(Int32, Int32)] = []
        defer {
            for (a, b) in pairs {
                close(a)
                close(b)
            }
        }
        for index in 0..<3 {
            let pair = try socketPair()
            pairs.append(pair)
            core.connectionStarted(pair.0, from: try address(UInt8(index + 1)))
        }
        #expect(pairs.map { shutDown($0.1) } == [false, false, true], "the third address of one /64 is one too many")
        let otherNetwork = try socketPair()
        pairs.append(otherNetwork)
        core.connectionStarted(otherNetwork.0, from: try address(1, network: 0x02))
        let v4 = try socketPair()
        pairs.append(v4)
        core.connectionStarted(v4.0, from: ClientAddress(ipv4: 198, 51, 100, 1))
        #expect(!shutDown(otherNetwork.1) && !shutDown(v4.1))
        // One of the first /64's connections closes: a new one from it fits again.
        core.connectionClosed(pairs[0].0)
        core.connectionClosed(pairs[2].0)
        let again = try socketPair()
        pairs.append(again)
        core.connectionStarted(again.0, from: try address(9))
        #expect(!shutDown(again.1))
    }
}
