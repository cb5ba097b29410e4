internal import CAuthCoreMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The address ``HTTPServer`` listens on, parsed from its numeric text (no name lookup): IPv4
/// (`127.0.0.1`, `0.0.0.0`) or IPv6 (`::1`, `::`). `::` listens dual stack, on every IPv6 and
/// IPv4 address (IPv4 peers arrive as `::ffff:a.b.c.d`, which ``ClientAddress`` reads as IPv4);
/// another IPv6 address listens on IPv6 only.
struct ListeningAddress {
    /// `host:port` as a URL writes it: an IPv6 address in brackets.
    static func authority(host: String, port: Int) -> String {
        host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    var storage = sockaddr_storage()
    /// MHD's address-family flags for this address.
    let familyFlags: UInt32
    /// Whether plain http may be served on it: `127.0.0.0/8` or `::1`.
    let isLoopback: Bool

    init?(host: String, port: UInt16) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr = v4
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            familyFlags = 0
            isLoopback = UInt32(bigEndian: v4.s_addr) >> 24 == 127
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = v6
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            let unspecified = bytes.allSatisfy { $0 == 0 }
            isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            familyFlags = unspecified ? UInt32(MHD_USE_DUAL_STACK.rawValue) : UInt32(MHD_USE_IPv6.rawValue)
        } else {
            return nil
        }
    }
}
