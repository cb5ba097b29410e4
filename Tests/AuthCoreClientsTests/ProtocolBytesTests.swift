import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Protocol text read as bytes: a delimiter joined to its neighbour in one grapheme cluster (U+0600
/// before it, a combining mark after it) still delimits, as it does for every other reader; names
/// are compared in ASCII case only; interim answers and chunk lines are bounded; `localhost` names
/// connect to loopback without a lookup; clock skew is one entry per host, port or not. Each case
/// failed before the reading moved to bytes (Characters, Unicode case mapping, DNS).
@Suite("Protocol text as bytes: response framing, header names, URLs, localhost, skew per host")
struct ProtocolBytesTests {
    func parse(_ text: String, method: String = "GET") throws(HTTP1ResponseParser.Failure) -> HTTP1ResponseParser {
        var parser = HTTP1ResponseParser(method: method, maximumHeadBytes: 1 << 20, maximumBodyBytes: 1 << 20)
        _ = try Array(text.utf8).withUnsafeBytesTyped { (raw) throws(HTTP1ResponseParser.Failure) in
            try parser.consume(raw)
        }
        try parser.finishAtEndOfStream()
        return parser
    }

    @Test(
        "Transfer-Encoding 'x\\u{600},chunked' is two codings, the last chunked, as to any byte reader (it was one unknown coding, read to close)"
    )
    func transferEncodingOnBytes() throws {
        let parser = try parse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: x\u{600},chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\ntrailing garbage"
        )
        #expect(parser.isComplete)
        #expect(parser.body == Array("hello".utf8))
    }

    @Test("at most 16 interim answers; a chunk-size line of at most 4096 bytes")
    func interimAndChunkLines() throws {
        let interim = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 16)
        #expect(try parse(interim + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").body == Array("ok".utf8))
        #expect(throws: HTTP1ResponseParser.Failure.malformed("more than 16 interim (1xx) answers")) {
            try parse(interim + "HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        let long =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "e", count: 4100)
            + "\r\nhello\r\n0\r\n\r\n"
        #expect(throws: HTTP1ResponseParser.Failure.malformed("chunk size line longer than 4096 bytes")) {
            try parse(long)
        }
        let fits =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "e", count: 4000)
            + "\r\nhello\r\n0\r\n\r\n"
        #expect(try parse(fits).body == Array("hello".utf8))
    }

    @Test(
        "header names match in ASCII case only: U+212A KELVIN SIGN is not 'k' (Unicode lower-casing made 'Coo\\u{212A}ie' a cookie)"
    )
    func headerNamesASCII() {
        let headers = [
            HTTPHeader("Coo\u{212A}ie", "not a cookie"), HTTPHeader("X-\u{212A}ey", "v"),
            HTTPHeader("CONTENT-type", "text/plain"),
        ]
        #expect(headers.first(named: "cookie") == nil)
        #expect(headers.first(named: "x-key") == nil)
        #expect(headers.first(named: "Content-Type") == "text/plain")
        #expect(!headers[0].holdsCredential)
        #expect(HTTPHeader("COOKIE", "a=b").holdsCredential)
    }

    @Test("URLs split at bytes: '?' and '#' after U+0600 still delimit; a session token after one is still redacted")
    func urlsOnBytes() throws {
        let url = try RequestURL("https://bucket.example.com/a\u{600}?x=1#frag")
        #expect(url.path == "/a\u{600}")
        #expect(url.query == "x=1")
        let token = try RequestURL("https://s3.example.com/k?a=1\u{600}&X-Amz-Security-Token=SECRETTOKEN&b=2")
        #expect(!token.description.contains("SECRETTOKEN"))
        #expect(token.description.contains("X-Amz-Security-Token=<redacted>"))
        #expect(try RequestURL("HTTPS://Host.Example.COM:8443/p").origin == "https://host.example.com:8443")
        #expect(throws: AuthCoreError.self) { try RequestURL("https://host:+443/") }
        #expect(throws: AuthCoreError.self) { try RequestURL("https://host:0x1bb/") }
    }

    @Test("localhost and *.localhost are loopback by name, in ASCII case only")
    func localhostNames() {
        for name in ["localhost", "LocalHost", "api.localhost", "a.b.LOCALHOST"] {
            #expect(NetworkPolicy.isLocalhostName(name), "\(name)")
        }
        for name in ["localhost.example.com", "notlocalhost", ".localhost", "localhos\u{212A}", "127.0.0.1"] {
            #expect(!NetworkPolicy.isLocalhostName(name), "\(name)")
        }
        #expect(NetworkPolicy.isLoopback(host: "127.0.0.255"))
        #expect(!NetworkPolicy.isLoopback(host: "127.0.0.256"))
        #expect(!NetworkPolicy.isLoopback(host: "127.0.0.1\u{301}"))
    }

    @Test("a request to http://api.localhost:PORT reaches the loopback listener without a DNS lookup")
    func localhostConnects() async throws {
        let listener = try OneShotListener()
        let port = listener.port
        // The listener blocks in accept and recv: on a thread of its own, started now (not when the
        // concurrency pool, busy under TSan, gets round to a task).
        let head = Locked<String?>(nil)
        Thread.detachNewThread {
            let received = listener.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            head.withLock { $0 = received }
        }
        let response = try await HTTP1Transport().send(
            HTTPRequest(method: "GET", url: try RequestURL("http://api.localhost:\(port)/"))
        )
        #expect(response.status == 200)
        #expect(response.body.plainBytes == Array("ok".utf8))
        // bounded: 10 s
        for _ in 0..<1000 where head.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(head.withLock { $0 }?.contains("Host: api.localhost:\(port)") == true)
    }

    @Test(
        "clock skew is one entry per host: learned from a URL's host, applied to a Host header with its port (OSS signers look it up so)"
    )
    func skewPerHost() {
        let tracker = ClockSkewTracker()
        let signedAt = Timestamp(year: 2026, month: 12, day: 5, hour: 12)!
        let serverTime = signedAt.adding(seconds: 3600)
        let refusal = HTTPResponse(
            status: 403,
            headers: [HTTPHeader("Date", serverTime.rfc1123), HTTPHeader("Content-Type", "application/xml")],
            body: Array("<Error><Code>RequestTimeTooSkewed</Code><Message>too skewed</Message></Error>".utf8)
        )
        #expect(
            tracker.learn(
                from: refusal,
                host: "bucket.oss-cn-hangzhou.aliyuncs.com",
                signedAt: signedAt,
                localNow: signedAt
            ) == 3600
        )
        #expect(tracker.offset(for: "bucket.oss-cn-hangzhou.aliyuncs.com:8443") == 3600)
        #expect(tracker.offset(for: "BUCKET.oss-cn-hangzhou.aliyuncs.com") == 3600)
        #expect(tracker.offset(for: "other.oss-cn-hangzhou.aliyuncs.com") == 0)
        #expect(tracker.learn(from: refusal, host: "[::1]:9000", signedAt: signedAt, localNow: signedAt) == 3600)
        #expect(tracker.offset(for: "[::1]") == 3600)
    }
}
