import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking loopback TCP connection for writing bytes no HTTP client would send, from any
/// loopback source address (127.0.0.0/8 is all this machine's: hostile clients on 127.0.0.2,
/// 127.0.0.3, … are told apart by the server as separate addresses).
public struct RawSocket: Sendable {
    public let descriptor: Int32

    /// Connects to `127.0.0.1:port` from `source` (a loopback address), reads time out after
    /// `timeoutSeconds`.
    public init(port: Int, from source: String = "127.0.0.1", timeoutSeconds: Int = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError(what: "socket") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected =
            bound
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        guard connected else {
            Glibc.close(descriptor)
            throw RawSocketError(what: bound ? "connect" : "bind to \(source)")
        }
    }

    public struct RawSocketError: Error {
        public let what: String
    }

    /// Writes what the peer takes (it may close early: the rest is dropped); false when a write failed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes, an error, the read timeout, or `limit` bytes.
    public func readAll(limit: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return received
    }

    /// Whether the peer has closed the connection (a read returns end of file or a reset, without
    /// waiting when nothing is there).
    public var peerClosed: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    public func close() { Glibc.close(descriptor) }
}

extension RawSocket {
    /// Writes `text` on a fresh connection to `port` and reads what comes back until the server
    /// closes (at most `limit` bytes, the socket's 10 s timeout): on a thread of its own, since
    /// blocking socket calls must not hold a thread of the concurrency pool (two on this machine)
    /// that other suites' timers need.
    public static func exchange(port: Int, _ text: String, limit: Int = 65_536) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let socket = try RawSocket(port: port)
                    defer { socket.close() }
                    _ = socket.write(Array(text.utf8))
                    continuation.resume(returning: String(decoding: socket.readAll(limit: limit), as: UTF8.self))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
