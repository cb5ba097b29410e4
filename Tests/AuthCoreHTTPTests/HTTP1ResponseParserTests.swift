import AuthCore
import AuthCoreHTTP
import AuthCoreTestSupport
import Testing

@Suite("HTTP/1.1 response parser: framing, limits, and any split of the input")
struct HTTP1ResponseParserTests {
    typealias Failure = HTTP1ResponseParser.Failure

    /// Feeds `text` in pieces of `split` bytes (0: all at once), then ends the stream.
    func parse(
        _ text: String,
        method: String = "GET",
        cap: Int = 1 << 20,
        headCap: Int = 4096,
        split: Int = 0,
        endStream: Bool = true
    )
        throws(Failure) -> HTTP1ResponseParser
    {
        var parser = HTTP1ResponseParser(method: method, maximumHeadBytes: headCap, maximumBodyBytes: cap)
        let bytes = Array(text.utf8)
        let step = split == 0 ? Swift.max(1, bytes.count) : split
        var index = 0
        while index < bytes.count, !parser.isComplete {
            let end = Swift.min(bytes.count, index + step)
            let piece = Array(bytes[index..<end])
            let used = try piece.withUnsafeBytesTyped { (raw) throws(Failure) in try parser.consume(raw) }
            index += used
            if used < piece.count { break }
        }
        if endStream { try parser.finishAtEndOfStream() }
        return parser
    }

    func failure(
        _ text: String,
        method: String = "GET",
        cap: Int = 1 << 20,
        headCap: Int = 4096,
        split: Int = 0
    ) -> Failure? {
        do {
            _ = try parse(text, method: method, cap: cap, headCap: headCap, split: split)
            return nil
        } catch {
            return error
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let method: String
        let status: Int
        let body: String
        var testDescription: String { name }
        init(_ name: String, _ text: String, method: String = "GET", status: Int = 200, body: String) {
            self.name = name
            self.text = text
            self.method = method
            self.status = status
            self.body = body
        }
    }

    static let accepted: [Case] = [
        Case("Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", body: "hello"),
        Case(
            "repeated equal Content-Length",
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3, 3\r\n\r\nabc",
            body: "abc"
        ),
        Case("zero length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", body: ""),
        Case(
            "chunked with extension, whitespace and trailer",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n1 \r\n \r\nA\r\nworld12345\r\n0\r\nX-T: 1\r\n\r\n",
            body: "hello world12345"
        ),
        Case(
            "chunked wins over Content-Length",
            "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            body: "ok"
        ),
        Case(
            "other coding last: until close",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n2\r\nok",
            body: "2\r\nok"
        ),
        Case(
            "no length: until close",
            "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
            body: "until the end"
        ),
        Case("HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", method: "HEAD", body: ""),
        Case("204 has no body", "HTTP/1.1 204 No Content\r\n\r\n", status: 204, body: ""),
        Case("304 has no body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n", status: 304, body: ""),
        Case(
            "100 Continue skipped",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nhi",
            status: 201,
            body: "hi"
        ),
        Case("status without reason", "HTTP/1.1 404\r\nContent-Length: 1\r\n\r\nx", status: 404, body: "x"),
        Case("bytes after the body are not taken", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", body: "ok"),
    ]

    @Test("accepted answers give the same status, fields and body for every split of the input", arguments: accepted)
    func acceptedAnswers(_ testCase: Case) throws {
        for split in [0, 1, 2, 3, 7, 16] {
            let parser = try parse(testCase.text, method: testCase.method, split: split)
            #expect(parser.isComplete)
            #expect(parser.status == testCase.status, "split \(split)")
            #expect(String(decoding: parser.body, as: UTF8.self) == testCase.body, "split \(split)")
        }
    }

    @Test("fields keep their order, repeats and case; values lose surrounding white space")
    func fields() throws {
        let parser = try parse(
            "HTTP/1.1 200 OK\r\nDate:  Tue, 01 Dec 2026 00:00:00 GMT \r\nX-A: 1\r\nx-a:\t2\r\nEmpty:\r\nContent-Length: 0\r\n\r\n"
        )
        #expect(parser.headers.map(\.name) == ["Date", "X-A", "x-a", "Empty", "Content-Length"])
        #expect(parser.headers.map(\.value) == ["Tue, 01 Dec 2026 00:00:00 GMT", "1", "2", "", "0"])
    }

    static let refused: [(name: String, text: String, failure: Failure)] = [
        ("not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", .malformed("not an HTTP/1.x status line")),
        ("HTTP/2 status line", "HTTP/2 200 OK\r\n\r\n", .malformed("not an HTTP/1.x status line")),
        ("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", .malformed("status code is not three digits")),
        ("status below 100", "HTTP/1.1 099 Low\r\n\r\n", .malformed("status code out of range")),
        ("bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", .malformed("bare LF in the response head")),
        ("bare CR", "HTTP/1.1 200 OK\rX: y\r\n\r\n", .malformed("bare CR in the response head")),
        ("NUL in the head", "HTTP/1.1 200 OK\r\nX: a\u{0}b\r\n\r\n", .malformed("NUL in the response head")),
        ("obsolete folding", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", .malformed("folded or empty field line")),
        (
            "space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
            .malformed("field name is not a token")
        ),
        ("no colon", "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", .malformed("field line without a name and colon")),
        (
            "control byte in a value", "HTTP/1.1 200 OK\r\nX: a\u{7F}\r\n\r\n",
            .malformed("control byte in a field value")
        ),
        (
            "signed Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            .malformed("Content-Length is not a decimal number")
        ),
        (
            "hex Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n",
            .malformed("Content-Length is not a decimal number")
        ),
        (
            "empty Content-Length", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
            .malformed("Content-Length is not a decimal number")
        ),
        (
            "20-digit Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
            .malformed("Content-Length is not a decimal number")
        ),
        (
            "disagreeing Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            .malformed("Content-Length values disagree")
        ),
        (
            "Content-Length over the cap", "HTTP/1.1 200 OK\r\nContent-Length: 1048577\r\n\r\n",
            .announcedTooLarge(1_048_577)
        ),
        ("1 GiB Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n", .announcedTooLarge(1 << 30)),
        ("chunk over the cap", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n", .bodyTooLarge),
        (
            "16 hex digits of chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000001\r\n",
            .bodyTooLarge
        ),
        (
            "chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            .malformed("chunk size is not hexadecimal")
        ),
        (
            "chunk size missing", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
            .malformed("chunk size missing")
        ),
        (
            "chunk size with a sign", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
            .malformed("chunk size is not hexadecimal")
        ),
        (
            "chunk line with bare LF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\n",
            .malformed("chunk size is not hexadecimal")
        ),
        (
            "chunk data without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX",
            .malformed("chunk data is not followed by CRLF")
        ),
        (
            "control byte in an extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;\u{1}\r\n",
            .malformed("control byte in a chunk extension")
        ),
        (
            "101 unasked", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
            .malformed("the server switched protocols unasked (101)")
        ),
        ("truncated fixed body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", .truncated),
        ("truncated chunked body", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", .truncated),
        ("no last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", .truncated),
        ("truncated head", "HTTP/1.1 200 OK\r\nContent-Le", .truncated),
        ("nothing at all", "", .truncated),
    ]

    @Test("refused answers give the named failure for every split of the input", arguments: 0..<refused.count)
    func refusedAnswers(_ index: Int) {
        let (name, text, expected) = Self.refused[index]
        for split in [0, 1, 5] {
            #expect(failure(text, split: split) == expected, "\(name), split \(split)")
        }
    }

    @Test("a body that grows past the cap is refused before it is kept, chunked or until close")
    func growingBodies() throws {
        let chunk = String(repeating: "x", count: 1000)
        let chunked =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "3e8\r\n\(chunk)\r\n", count: 5)
        #expect(failure(chunked, cap: 4999) == .bodyTooLarge)
        #expect(failure(chunked + "0\r\n\r\n", cap: 5000) == nil)
        let stream = "HTTP/1.1 200 OK\r\n\r\n" + String(repeating: chunk, count: 5)
        #expect(failure(stream, cap: 4999, split: 64) == .bodyTooLarge)
        #expect(try parse(stream, cap: 5000, split: 64).body.count == 5000)
        // The body is dropped once refused: nothing past the cap is held.
        var parser = HTTP1ResponseParser(method: "GET", maximumBodyBytes: 10)
        let bytes = Array("HTTP/1.1 200 OK\r\n\r\n0123456789A".utf8)
        #expect(throws: Failure.bodyTooLarge) { try bytes.withUnsafeBytes { raw in try parser.consume(raw) } }
        #expect(parser.body.isEmpty)
    }

    @Test("a head or trailer section over its cap is refused while it arrives")
    func headCap() {
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 5000) + "\r\n\r\n"
        #expect(failure(long, headCap: 4096, split: 100) == .headTooLarge)
        #expect(failure(long, headCap: 8192) == nil)
        let trailers =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "b", count: 5000)
            + "\r\n\r\n"
        #expect(failure(trailers, headCap: 4096) == .headTooLarge)
        #expect(
            failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: 1\n\r\n")
                == .malformed("trailer line not ended by CRLF")
        )
    }

    @Test("random splits of random well-formed chunked answers decode to the same body")
    func randomChunked() throws {
        var generator = SeededRandom(seed: 0x5EED_C0DE)
        for _ in 0..<300 {
            var body: [UInt8] = []
            var text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let size = Int.random(in: 1...40, using: &generator)
                let piece = (0..<size).map { _ in UInt8.random(in: 0x21...0x7E, using: &generator) }
                body += piece
                let hex = String(size, radix: 16, uppercase: Bool.random(using: &generator))
                text +=
                    hex + (Bool.random(using: &generator) ? ";x=\"y\"" : "") + "\r\n"
                    + String(decoding: piece, as: UTF8.self) + "\r\n"
            }
            text += "0\r\n\r\n"
            let parser = try parse(text, split: Int.random(in: 1...30, using: &generator), endStream: false)
            #expect(parser.isComplete)
            #expect(parser.body == body)
        }
    }
}
