import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Testing

@Suite("Clock-skew correction")
struct ClockSkewTests {
    let local = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!
    let credentials = try! Credentials(accessKeyId: "AKID", secretAccessKey: "secret")  // test constant

    func request(_ host: String = "s3.example.com") throws -> HTTPRequest {
        HTTPRequest(method: "GET", url: try RequestURL("https://\(host)/bucket/key"))
    }

    func refusal(status: Int = 403, serverTime: Timestamp) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [HTTPHeader("Date", serverTime.rfc1123)],
            body: Array("<Error><Code>RequestTimeTooSkewed</Code><Message>too skewed</Message></Error>".utf8)
        )
    }

    func sender(_ transport: ScriptedTransport, skew: ClockSkewTracker?) -> SignedRequestSender {
        SignedRequestSender(transport: transport, clock: FixedClock(local), skew: skew)
    }

    func signer() throws -> SigV4Signer {
        try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
    }

    @Test("a 4xx with a Date 20 minutes ahead is learned, re-signed with the server's time and retried once")
    func learnsAndRetries() async throws {
        let server = local.adding(seconds: 1200)
        let transport = ScriptedTransport([
            refusal(serverTime: server), HTTPResponse(status: 200, body: Array("ok".utf8)),
        ])
        let tracker = ClockSkewTracker()
        let signer = try signer()
        let response = try await sender(transport, skew: tracker).send(try request()) {
            request,
            time throws(AuthCoreError) in
            request.adding(try signer.sign(request.sigV4Request(), at: time))
        }
        #expect(response.status == 200)
        #expect(transport.sent.count == 2)
        #expect(transport.sent[0].headers.first(named: "X-Amz-Date") == local.amzDate)
        #expect(transport.sent[1].headers.first(named: "X-Amz-Date") == server.amzDate)
        #expect(tracker.offset(for: "s3.example.com") == 1200)
        #expect(tracker.offset(for: "other.example.com") == 0)
    }

    @Test("no retry for a success, a 5xx, a 4xx within 5 minutes, a 4xx without Date, or with correction off")
    func noRetry() async throws {
        let signer = try signer()
        let sign: (HTTPRequest, Timestamp) throws(AuthCoreError) -> HTTPRequest = {
            request,
            time throws(AuthCoreError) in
            request.adding(try signer.sign(request.sigV4Request(), at: time))
        }
        let cases: [(HTTPResponse, ClockSkewTracker?)] = [
            (HTTPResponse(status: 200), ClockSkewTracker()),
            (refusal(status: 503, serverTime: local.adding(seconds: 3600)), ClockSkewTracker()),
            (refusal(serverTime: local.adding(seconds: 299)), ClockSkewTracker()),
            (HTTPResponse(status: 403), ClockSkewTracker()),
            (refusal(serverTime: local.adding(seconds: 3600)), nil),
        ]
        for (response, tracker) in cases {
            let transport = ScriptedTransport([response, HTTPResponse(status: 200)])
            let result = try await sender(transport, skew: tracker).send(try request(), sign: sign)
            #expect(result.status == response.status)
            #expect(transport.sent.count == 1)
        }
    }

    @Test("a learned offset is used for the next request to the same host only")
    func perHost() async throws {
        let tracker = ClockSkewTracker()
        _ = tracker.learn(
            from: refusal(serverTime: local.adding(seconds: -900)),
            host: "A.example.com",
            signedAt: local,
            localNow: local
        )
        #expect(tracker.offset(for: "a.example.com") == -900)
        let s = sender(ScriptedTransport([]), skew: tracker)
        #expect(s.signingTime(for: "a.example.com") == local.adding(seconds: -900))
        #expect(s.signingTime(for: "b.example.com") == local)
        tracker.reset(host: "a.example.com")
        #expect(tracker.offset(for: "a.example.com") == 0)
    }
}

@Suite("Service error bodies")
struct ServiceErrorBodyTests {
    @Test(
        "XML, JSON and header forms keep the service's type and message",
        arguments: [
            (
                "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature &amp; more</Message></Error>",
                [], "SignatureDoesNotMatch", "The request signature & more"
            ),
            (
                "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>bad token</Message></Error></ErrorResponse>",
                [], "InvalidClientTokenId", "bad token"
            ),
            (
                "{\"__type\":\"NotAuthorizedException\",\"message\":\"Incorrect username or password.\"}", [],
                "NotAuthorizedException", "Incorrect username or password."
            ),
            (
                "{\"__type\":\"com.amazonaws.cognito#UserNotFoundException:http://internal\",\"Message\":\"User does not exist.\"}",
                [], "UserNotFoundException", "User does not exist."
            ),
            (
                "{\"message\":\"from header\"}", [HTTPHeader("x-amzn-ErrorType", "InvalidParameterException:http://x")],
                "InvalidParameterException", "from header"
            ),
        ] as [(String, [HTTPHeader], String, String)]
    )
    func parse(body: String, headers: [HTTPHeader], code: String, message: String) {
        let parsed = ServiceErrorBody(response: HTTPResponse(status: 400, headers: headers, body: Array(body.utf8)))
        #expect(parsed.code == code)
        #expect(parsed.message == message)
        #expect(parsed.summary == "\(code): \(message)")
    }

    @Test("a body with no error code says so")
    func empty() {
        let parsed = ServiceErrorBody(response: HTTPResponse(status: 500, body: Array("<html>oops</html>".utf8)))
        #expect(parsed.summary == "(no error code): (no message)")
    }
}
