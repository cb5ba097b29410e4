import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreHTTP

#if os(Linux)
import Glibc

/// What a loopback peer received: the request's bytes, and how many TCP segments carrying data
/// arrived for them (`tcpi_data_segs_in` of Linux's `struct tcp_info`, RFC 4898's
/// tcpEStatsDataSegsIn; the SYN and pure ACKs are not counted).
private struct ReceivedRequest: Sendable {
    var bytes: [UInt8] = []
    var dataSegments: UInt32?
}

/// `tcpi_data_segs_in`'s offset in `struct tcp_info` (linux/tcp.h, Linux 4.6 and later): Glibc's
/// `netinet/tcp.h` declares an older, shorter struct, so the field is read from the raw bytes.
private let dataSegmentsInOffset = 152

/// Accepts one connection on `listener`, reads one request whose body is `Content-Length` bytes,
/// reads the segment count, answers 204.
private func receiveOneRequest(on listener: OneShotListener) -> ReceivedRequest {
    var received = ReceivedRequest()
    let client = accept(listener.descriptor, nil, nil)
    guard client >= 0 else { return received }
    defer { close(client) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return received }
        received.bytes += buffer[0..<count]
        let text = String(decoding: received.bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { continue }
        let head = text[..<end.lowerBound].lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) + length <= received.bytes.count { break }
    }
    var info = [UInt8](repeating: 0, count: 256)
    var size = socklen_t(info.count)
    if info.withUnsafeMutableBytes({ getsockopt(client, Int32(IPPROTO_TCP), TCP_INFO, $0.baseAddress, &size) }) == 0,
        Int(size) >= dataSegmentsInOffset + 4
    {
        received.dataSegments = info.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: dataSegmentsInOffset, as: UInt32.self)
        }
    }
    let answer = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
    _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    return received
}

@Suite("HTTP/1.1 client: how a request goes out")
struct RequestWriteTests {
    /// Sends `body` to a loopback peer and returns what it received; with `proxyCredentials`, the
    /// peer plays an HTTP proxy with those credentials (the request names its target in absolute
    /// form, a port on loopback the proxy never contacts).
    private func sent(_ body: HTTPBody, proxyCredentials: (String, String)? = nil) async throws -> ReceivedRequest {
        let listener = try OneShotListener()
        let received = Locked(ReceivedRequest())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let request = receiveOneRequest(on: listener)
            received.withLock { $0 = request }
            done.signal()
        }
        var configuration = HTTP1Transport.Configuration()
        var origin = "127.0.0.1:\(listener.port)"
        if let (username, password) = proxyCredentials {
            var proxies = ProxyConfiguration(
                http: try HTTPProxy(
                    host: "127.0.0.1",
                    port: listener.port,
                    username: username,
                    password: SecureBytes(Array(password.utf8))
                )
            )
            proxies.proxiesLoopback = true
            configuration.proxies = .configured(proxies)
            origin = "127.0.0.1:9"
        } else {
            configuration.proxies = .configured(.direct)
        }
        let transport = try HTTP1Transport(configuration: configuration)
        let answer = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: try RequestURL("http://\(origin)/srp/begin"),
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: body
            )
        )
        #expect(answer.status == 204)
        #expect(done.wait(timeout: .now() + 10) == .success)
        return received.withLock { $0 }
    }

    @Test("a small body leaves with its head in one segment, plain or secret, and arrives whole")
    func smallBodyInOneSegment() async throws {
        let json = Array(#"{"username":"alice","A":"\#(String(repeating: "ab", count: 192))"}"#.utf8)
        for body in [HTTPBody.bytes(json), .secret(SecureBytes(json))] {
            let received = try await sent(body)
            #expect(received.bytes.suffix(json.count).elementsEqual(json))
            #expect(String(decoding: received.bytes, as: UTF8.self).contains("Content-Length: \(json.count)\r\n"))
            // Before, the head and the body were two writes: two segments, and a server woke for each.
            #expect(received.dataSegments == 1)
        }
    }

    @Test("through a proxy with credentials, head, credentials and body leave in one segment and arrive whole")
    func proxiedRequestInOneSegment() async throws {
        let json = Array(#"{"username":"alice"}"#.utf8)
        let received = try await sent(.bytes(json), proxyCredentials: ("proxy-user", "proxy-pass"))
        let text = String(decoding: received.bytes, as: UTF8.self)
        #expect(text.hasPrefix("POST http://127.0.0.1:9/srp/begin HTTP/1.1\r\n"), "\(text.prefix(60))")
        // base64("proxy-user:proxy-pass"): the head's last field, then the blank line, then the body
        // and nothing else.
        let tail = "\r\nProxy-Authorization: Basic cHJveHktdXNlcjpwcm94eS1wYXNz\r\n\r\n" + #"{"username":"alice"}"#
        #expect(text.hasSuffix(tail), "\(text.suffix(80))")
        #expect(text.contains("Content-Length: \(json.count)\r\n"))
        // Before, the fields, the credentials' line and the body were three writes.
        #expect(received.dataSegments == 1)
    }

    @Test(
        "a request past one TLS record's plaintext (16 KiB) is written head, then body, and arrives whole, proxied or not"
    )
    func largeBodyAfterHead() async throws {
        let large = [UInt8](
            (0..<(HTTP1RequestHead.coalescedMessageLimit)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        )
        for credentials in [nil, ("proxy-user", "proxy-pass")] {
            let received = try await sent(.bytes(large), proxyCredentials: credentials)
            let head = Array("\r\n\r\n".utf8)
            let headEnd = try #require(
                (0...(received.bytes.count - head.count)).first { received.bytes[$0..<($0 + 4)].elementsEqual(head) }
            )
            #expect(received.bytes.count == headEnd + 4 + large.count, "the body follows the blank line, whole")
            #expect(received.bytes.suffix(large.count).elementsEqual(large))
            #expect(
                String(decoding: received.bytes[..<headEnd], as: UTF8.self).hasSuffix(
                    credentials == nil
                        ? "Content-Length: \(large.count)" : "Proxy-Authorization: Basic cHJveHktdXNlcjpwcm94eS1wYXNz"
                )
            )
            #expect((received.dataSegments ?? 0) >= 2)
        }
    }
}
#endif
