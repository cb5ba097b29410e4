import AuthCore
import AuthCoreClients
import Testing

/// The app server's login client against canned answers of a broken or hostile server: each
/// answer is read as its `Codable` type (`SRPLoginWire`) and refused with a typed error, and the
/// session is taken only after the server's proof verifies.
@Suite("SRP login client: a server's answers are checked, the proof before the session")
struct SRPLoginClientAnswerTests {
    /// Answers `/srp/begin` and `/srp/finish` with fixed bodies, and counts the finishes.
    final class CannedServer: HTTPTransport {
        let begin: String
        let finish: String
        let finishes = Locked(0)
        init(begin: String, finish: String = "{}") {
            self.begin = begin
            self.finish = finish
        }
        func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
            if request.url.path.hasSuffix("/srp/begin") { return HTTPResponse(status: 200, body: Array(begin.utf8)) }
            finishes.withLock { $0 += 1 }
            return HTTPResponse(status: 200, body: Array(finish.utf8))
        }
    }

    let configuration = try! SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)  // test constant

    func login(_ server: CannedServer) async throws {
        let client = try SRPLoginClient(
            server: try RequestURL("https://app.example"),
            configuration: configuration,
            transport: server
        )
        _ = try await client.login(username: "alice", password: SecureBytes(Array("correct horse".utf8)))
    }

    func beginAnswer(group: String = "2048", hash: String = "sha256", b: String = "02") -> String {
        #"{"B":"\#(b)","group":\#(group),"hash":"\#(hash)","loginId":"0123456789abcdef0123456789abcdef","salt":"a1b2"}"#
    }

    @Test("a group outside 1...65536, or one that is not a number, is a malformed answer; another size is unsupported")
    func groupField() async throws {
        for group in ["0", "-1", "100000", "1e300", "3072.5", "\"2048\""] {
            let server = CannedServer(begin: beginAnswer(group: group))
            await #expect(throws: AuthCoreError(.malformedResponse, ""), "group \(group)") { try await login(server) }
            #expect(server.finishes.withLock { $0 } == 0)
        }
        await #expect(throws: AuthCoreError(.unsupported, "")) {
            try await login(CannedServer(begin: beginAnswer(group: "3072")))
        }
        await #expect(throws: AuthCoreError(.unsupported, "")) {
            try await login(CannedServer(begin: beginAnswer(hash: "sha1")))
        }
    }

    @Test(
        "missing fields, non-hex values, an unsafe B and a body that is not JSON are refused before the second round trip"
    )
    func beginRefusals() async throws {
        let answers = [
            "", "[]", "not json", #"{"group":2048,"hash":"sha256"}"#, beginAnswer(b: "zz"), beginAnswer(b: "00"),
            #"{"B":"02","group":2048,"hash":"sha256","salt":"a1"}"#,
        ]
        for answer in answers {
            let server = CannedServer(begin: answer)
            await #expect(throws: AuthCoreError.self, "answer \(answer)") { try await login(server) }
            #expect(server.finishes.withLock { $0 } == 0)
        }
        let unsafe = CannedServer(begin: beginAnswer(b: "00"))
        await #expect(throws: AuthCoreError(.unsafePublicValue, "")) { try await login(unsafe) }
    }

    @Test(
        "a wrong M2 is a proof mismatch even when the answer has no session; a right-looking session without M2 is malformed"
    )
    func finishProofFirst() async throws {
        let wrongProof = CannedServer(begin: beginAnswer(), finish: #"{"M2":"\#(String(repeating: "00", count: 32))"}"#)
        await #expect(throws: AuthCoreError(.proofMismatch, "")) { try await login(wrongProof) }
        #expect(wrongProof.finishes.withLock { $0 } == 1)
        let tokenOnly = CannedServer(
            begin: beginAnswer(),
            finish: #"{"expiresAt":"2026-12-04T00:00:00Z","sessionToken":"t"}"#
        )
        await #expect(throws: AuthCoreError(.malformedResponse, "")) { try await login(tokenOnly) }
        let notHex = CannedServer(begin: beginAnswer(), finish: #"{"M2":"xyz","sessionToken":"t"}"#)
        await #expect(throws: AuthCoreError(.malformedResponse, "")) { try await login(notHex) }
    }
}
