public import AuthCoreClients

#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener bound to 127.0.0.1 on a free port (the kernel's choice): its descriptor and port.
///
/// - Parameter backlog: the listen backlog, or nil to bind without listening (a port that refuses
///   connections once closed).
public func loopbackListener(backlog: Int32?) -> (descriptor: Int32, port: Int)? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
                && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard ready else {
        close(descriptor)
        return nil
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A request body of the caller's, from a list of chunks (for transports' streamed bodies).
public final class ListedChunks: HTTPBodyChunks {
    private var chunks: [[UInt8]]
    public init(_ chunks: [[UInt8]]) { self.chunks = chunks }
    public func next() -> [UInt8]? { chunks.isEmpty ? nil : chunks.removeFirst() }
}
