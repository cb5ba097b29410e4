import AuthCore
import AuthCoreHTTP
import AuthCoreTestSupport
import Testing

/// The HTTP vocabulary's single rules: one check of a field (RFC 9110 §5.5, §5.6.2), one split of a
/// request target, one body type.
@Suite("HTTP vocabulary: the one field rule, the one target split, the one body type")
struct HTTPVocabularyTests {
    @Test(
        "a field name is a token; a value is visible bytes, obs-text, spaces and tabs, never another control byte or DEL"
    )
    func fieldRule() throws {
        for name in ["Host", "x-amz-date", "!#$%&'*+-.^_`|~09azAZ"] {
            #expect(HTTPHeader.isFieldName(name.utf8), "\(name)")
        }
        for name in ["", "Bad Name", "a:b", "caf\u{E9}", "a\u{0}", "x(y)", "a/b", "\u{212A}"] {
            #expect(!HTTPHeader.isFieldName(name.utf8), "\(name.debugDescription)")
        }
        for value in ["", "plain", "a\tb", " padded ", "caf\u{E9} \u{1F600}", "\"quoted\", (comment)"] {
            #expect(HTTPHeader.isFieldValue(value.utf8), "\(value.debugDescription)")
            #expect(throws: Never.self) { try HTTPHeader("X-Value", value).validate() }
        }
        for byte: UInt8 in Array(0x00...0x08) + Array(0x0A...0x1F) + [0x7F] {
            let value = String(decoding: [0x61, byte, 0x62], as: UTF8.self)
            #expect(!HTTPHeader.isFieldValue(value.utf8), "byte \(byte)")
            #expect(
                throws: AuthCoreError(
                    .malformedRequest,
                    "header 'X-Ctl' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)"
                )
            ) {
                try HTTPHeader("X-Ctl", value).validate()
            }
        }
        #expect(throws: AuthCoreError(.malformedRequest, "header name 'Bad Name' is not an HTTP token")) {
            try HTTPHeader("Bad Name", "v").validate()
        }
        // A name that is not printable ASCII is not echoed.
        #expect(throws: AuthCoreError(.malformedRequest, "header name '?' is not an HTTP token")) {
            try HTTPHeader("a\r\nb", "v").validate()
        }
    }

    @Test("a request target is split once, at its first '?' as a byte")
    func targetSplit() {
        let cases: [(String, String, String)] = [
            ("/", "/", ""), ("/a/b", "/a/b", ""), ("/a?b=1&c", "/a", "b=1&c"), ("/a?b?c", "/a", "b?c"),
            ("/a?", "/a", ""),
            ("?x", "", "x"), ("/caf\u{E9}?q=\u{E9}", "/caf\u{E9}", "q=\u{E9}"),
            // A combining mark after '?' makes one grapheme cluster of the two; the byte still delimits.
            ("/a?\u{301}b", "/a", "\u{301}b"),
        ]
        for (text, path, query) in cases {
            let target = RequestTarget(text)
            #expect(Array(target.path.utf8) == Array(path.utf8), "\(text.debugDescription)")
            #expect(Array(target.query.utf8) == Array(query.utf8), "\(text.debugDescription)")
        }
        #expect(RequestTarget(path: "/a", query: "x=1").description == "/a?x=1")
        #expect(RequestTarget(path: "/a", query: "").description == "/a")
    }

    @Test(
        "a URL's target is split by the same rule, and the signers' requests take it without joining and splitting again"
    )
    func urlTarget() throws {
        let url = try RequestURL("https://example.com/a%2Fb?\u{301}x=1&y")
        #expect(url.requestTarget == RequestTarget(path: "/a%2Fb", query: "\u{301}x=1&y"))
        let sigV4 = SigV4Request(method: "GET", target: url.requestTarget, headers: [])
        #expect(sigV4.path == "/a%2Fb" && sigV4.query == "\u{301}x=1&y")
        let oss = OSSRequest(
            method: "GET",
            target: try RequestURL("https://b.oss.example.com/k?acl&x-oss-process=a%2Fb").requestTarget,
            headers: [],
            bucket: "b",
            key: "k"
        )
        #expect(oss.path == "/k")
        #expect(oss.parameters.map(\.key) == ["acl", "x-oss-process"] && oss.parameters.map(\.value) == ["", "a/b"])
    }

    @Test(
        "one body type: counts, emptiness, plain bytes, wiping storage, in-memory bytes; descriptions show sizes only"
    )
    func bodyType() throws {
        let plain = HTTPBody.bytes(Array("abc".utf8))
        let secret = HTTPBody.secret(SecureBytes(Array("pw-secret".utf8)))
        let stream = HTTPBody.stream(HTTPBodyStream(length: nil) { ListedChunks([]) })
        #expect(plain.count == 3 && secret.count == 9 && stream.count == nil)
        #expect(HTTPBody.empty.isEmpty && !plain.isEmpty && !stream.isEmpty)
        #expect(plain.plainBytes == Array("abc".utf8) && secret.plainBytes.isEmpty && stream.plainBytes.isEmpty)
        #expect(secret.withInMemoryBytes { Array($0) } == Array("pw-secret".utf8))
        #expect(stream.withInMemoryBytes { Array($0) } == nil)
        #expect(stream.isStream && !plain.isStream)
        #expect("\(secret)" == "9 secret bytes" && "\(plain)" == "3 bytes" && "\(stream)" == "streamed")
        let request = HTTPRequest(method: "POST", url: try RequestURL("https://example.com/"), body: secret)
        #expect(!"\(request)".contains("pw-secret") && "\(request)".contains("9 secret bytes"))
    }
}
