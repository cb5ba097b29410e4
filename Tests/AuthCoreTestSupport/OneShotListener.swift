import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A listener on 127.0.0.1 that answers one connection with a fixed text (on a thread of its own).
public final class OneShotListener: @unchecked Sendable {
    // invariant (Sendable): the descriptor is used by one thread at a time (serveOnce).
    /// The listening socket.
    public let descriptor: Int32
    /// The port it listens on.
    public let port: Int

    /// A listener on a free port.
    public init() throws {
        guard let (descriptor, port) = loopbackListener(backlog: 4) else {
            throw PeerError(description: "no loopback listener")
        }
        self.descriptor = descriptor
        self.port = port
    }

    deinit { close(descriptor) }

    /// Accepts one connection, reads the request head, answers `text` (a byte at a time with
    /// `trickle` between them, when given); returns the head.
    public func serveOnce(_ text: String, trickle: Duration? = nil) -> String {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return "" }
        defer { close(client) }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            head += buffer[0..<count]
        }
        if let trickle {
            for byte in Array(text.utf8) {
                guard withUnsafeBytes(of: byte, { send(client, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }) == 1 else {
                    break
                }
                Thread.sleep(
                    forTimeInterval: Double(trickle.components.attoseconds) / 1e18 + Double(trickle.components.seconds)
                )
            }
        } else {
            _ = Array(text.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return String(decoding: head, as: UTF8.self)
    }
}
