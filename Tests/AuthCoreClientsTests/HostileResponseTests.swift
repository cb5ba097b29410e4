import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Testing

/// Server answers that used to trap or to be trusted too far: numbers out of range, skew learned from
/// any 4xx, credentials handed out on the edge of expiry, refreshes that never end.
@Suite("Hostile responses: checked numbers, recognised skew, a cache with margins")
struct HostileResponseTests {
    let local = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!

    @Test(
        "JSON integers: fractions, out-of-range values and other types are errors that name the field",
        arguments: [
            (#"{"n":1e300}"#, false), (#"{"n":-5}"#, false), (#"{"n":1.5}"#, false), (#"{"n":"3600"}"#, false),
            (#"{"n":true}"#, false),
            (#"{"n":9223372036854775807}"#, false), (#"{"n":null}"#, false), (#"{"m":1}"#, false),
            (#"{"n":3600}"#, true),
            (#"{"n":3600.0}"#, true), (#"{"n":0}"#, true),
        ]
    )
    func integers(json: String, accepted: Bool) throws {
        let object = try JSONObject(parsing: Array(json.utf8), context: "test")
        do {
            let value = try object.integer("n", in: 0...86_400)
            #expect(accepted, "accepted \(value)")
            #expect(value == (json.contains("3600") ? 3600 : 0))
        } catch {
            #expect(!accepted, "\(error)")
            #expect(error.code == .malformedResponse)
            #expect(error.reason.contains("n"), "\(error.reason)")
        }
    }

    func answer(_ status: Int, code: String, message: String, date: Timestamp?) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: date.map { [HTTPHeader("Date", $0.rfc1123)] } ?? [],
            body: Array("<Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
        )
    }

    @Test("only recognised skew answers are skew answers")
    func recognisedSkew() {
        let yes = [
            answer(403, code: "RequestTimeTooSkewed", message: "too skewed", date: nil),
            answer(403, code: "RequestExpired", message: "Request has expired", date: nil),
            answer(
                403,
                code: "SignatureDoesNotMatch",
                message: "Signature expired: 20130524T000000Z is now earlier than 20130524T000100Z",
                date: nil
            ),
            answer(
                400,
                code: "InvalidSignatureException",
                message: "Signature not yet current: 20130524T000000Z is still later than 20130523T235000Z",
                date: nil
            ),
            answer(
                400,
                code: "AccessDenied",
                message: "The difference between the request time and the server's time exceeds the maximum allowed.",
                date: nil
            ),
        ]
        let no = [
            answer(
                403,
                code: "SignatureDoesNotMatch",
                message: "The request signature we calculated does not match",
                date: nil
            ),
            answer(
                403,
                code: "AccessDenied",
                message: "The difference between the request time and the server's time exceeds the maximum allowed.",
                date: nil
            ),
            answer(403, code: "AccessDenied", message: "Access Denied", date: nil),
            answer(500, code: "RequestTimeTooSkewed", message: "too skewed", date: nil),
            HTTPResponse(status: 403),
        ]
        for response in yes {
            #expect(
                ClockSkewTracker.isSkewAnswer(response),
                "\(String(decoding: response.body.plainBytes, as: UTF8.self))"
            )
        }
        for response in no {
            #expect(
                !ClockSkewTracker.isSkewAnswer(response),
                "\(String(decoding: response.body.plainBytes, as: UTF8.self))"
            )
        }
    }

    @Test("a learned offset is bounded (default ±7 days, configurable); nothing is learned past the bound")
    func boundedSkew() throws {
        let tracker = ClockSkewTracker()
        for (offset, learned) in [
            (Int64(6 * 86_400), true), (-6 * 86_400, true), (8 * 86_400, false), (-8 * 86_400, false),
            (Timestamp.maximumSeconds, false),
        ] {
            let server = local.adding(seconds: offset)
            let result = tracker.learn(
                from: answer(403, code: "RequestTimeTooSkewed", message: "x", date: server),
                host: "h",
                signedAt: local,
                localNow: local
            )
            #expect((result != nil) == learned, "\(offset)")
        }
        let tight = ClockSkewTracker(maximumOffsetSeconds: 3600)
        #expect(
            tight.learn(
                from: answer(403, code: "RequestTimeTooSkewed", message: "x", date: local.adding(seconds: 7200)),
                host: "h",
                signedAt: local,
                localNow: local
            ) == nil
        )
        let within = try #require(
            tight.learn(
                from: answer(403, code: "RequestTimeTooSkewed", message: "x", date: local.adding(seconds: 1800)),
                host: "h",
                signedAt: local,
                localNow: local
            )
        )
        #expect(within == 1800)
        #expect(tight.offset(for: "H") == 1800)
        // An unrecognised 4xx with a far Date changes nothing.
        #expect(
            tight.learn(
                from: answer(403, code: "AccessDenied", message: "no", date: local.adding(seconds: 900)),
                host: "h",
                signedAt: local,
                localNow: local
            ) == nil
        )
        #expect(tight.offset(for: "h") == 1800)
    }

    @Test("a learned offset behind the local clock never stretches a presigned URL past the credentials' expiry")
    func presignWithSkew() throws {
        let tracker = ClockSkewTracker()
        let server = local.adding(seconds: -3 * 86_400)
        // Unwrapped first: comparing an optional integer inside #expect trips ASan in this toolchain.
        let learned = try #require(
            tracker.learn(
                from: answer(403, code: "RequestTimeTooSkewed", message: "x", date: server),
                host: "s3.example.com",
                signedAt: local,
                localNow: local
            )
        )
        #expect(learned == -3 * 86_400)
        let sender = SignedRequestSender(transport: ScriptedTransport([]), clock: FixedClock(local), skew: tracker)
        let credentials = try Credentials(
            accessKeyId: "ASIA",
            secretAccessKey: "s",
            sessionToken: "t",
            expiration: local.adding(seconds: 3600)
        )
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        let request = HTTPRequest(method: "GET", url: try RequestURL("https://s3.example.com/b/k"))
        // From the corrected time alone, 3 days + 1 h would remain: a 2-hour URL would pass.
        #expect(throws: AuthCoreError(.expired, "")) { try sender.presign(request, signer: signer, expires: 7200) }
        let clamped = try sender.presign(request, signer: signer, expires: 7200, policy: .clampToCredentials)
        // (An `Int?` compared inside #expect trips a stack-buffer-overflow report in the Swift 6.3
        // runtime's AnyHashable conversion under ASan: the values are unwrapped first.)
        #expect(try #require(clamped.expires) == 3600)
        #expect(clamped.amzDate == server.amzDate)
        #expect(try #require(try sender.presign(request, signer: signer, expires: 600).expires) == 600)
    }

    /// Holds every request until `release()`; then answers an error.
    final class HeldTransport: HTTPTransport {
        let held = Locked<(count: Int, gate: CheckedContinuation<Void, Never>?)>((0, nil))
        var count: Int { held.withLock { $0.count } }
        func release() {
            held.withLock {
                $0.gate?.resume()
                $0.gate = nil
            }
        }
        func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
            await withCheckedContinuation { continuation in
                held.withLock {
                    $0.count += 1
                    $0.gate = continuation
                }
            }
            return HTTPResponse(status: 400, body: Array(#"{"__type":"NotAuthorizedException","message":"no"}"#.utf8))
        }
    }

    @Test("a second sign-in on the same client while one is at the network is refused, not interleaved")
    func signInReentrancy() async throws {
        let transport = HeldTransport()
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_x",
            clientId: "c"
        )
        let signIn = CognitoSignIn(configuration: configuration, transport: transport, clock: FixedClock(local))
        let first = Task {
            try await signIn.signIn(username: "alice", password: SecureBytes(Array("pw-a".utf8)), flow: .userPassword)
        }
        while transport.count == 0 { await Task.yield() }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await signIn.signIn(username: "bob", password: SecureBytes(Array("pw-b".utf8)), flow: .userPassword)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await signIn.confirmSignIn(challengeResponse: "1")
        }
        transport.release()
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await first.value }
        #expect(transport.count == 1)
        // Once the first has ended, the next sign-in runs.
        let second = Task {
            try await signIn.signIn(username: "bob", password: SecureBytes(Array("pw-b".utf8)), flow: .userPassword)
        }
        while transport.count == 1 { await Task.yield() }
        transport.release()
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await second.value }
    }

    @Test("credentials within the 10 s safety margin are never handed out: the caller waits for fresh ones")
    func safetyMargin() async throws {
        let clock = ManualClock(local)
        let source = CountingSource(clock: clock)
        source.set { $0.lifetime = 3600 }
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        #expect(try await provider.credentials().accessKeyId == "ASIA1")
        clock.advance(seconds: 3591)  // 9 s left: inside the margin
        #expect(try await provider.credentials().accessKeyId == "ASIA2")
        #expect(source.calls == 2)
    }

    @Test("credentials living less than the minimum lifetime are refused, and the refusal backs off")
    func minimumLifetime() async throws {
        let clock = ManualClock(local)
        let source = CountingSource(clock: clock)
        source.set { $0.lifetime = 1 }
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        await #expect(throws: AuthCoreError(.expired, "")) { try await provider.credentials() }
        await #expect(throws: AuthCoreError(.expired, "")) { try await provider.credentials() }
        #expect(source.calls == 1, "the second call is inside the backoff")
        source.set { $0.lifetime = 120 }
        clock.advance(seconds: 2)
        #expect(try await provider.credentials().accessKeyId == "ASIA2")
        let lenient = RefreshingCredentialsProvider(
            source: source,
            clock: clock,
            random: SeededRandom(seed: 1),
            minimumLifetime: 30
        )
        #expect(try await lenient.credentials().accessKeyId == "ASIA3")
    }

    @Test("a source that never answers times out; a cancelled waiter stops waiting and the shared refresh goes on")
    func timeoutAndCancellation() async throws {
        let clock = ManualClock(local)
        let stuck = CountingSource(clock: clock, gated: true)
        let provider = RefreshingCredentialsProvider(
            source: stuck,
            clock: clock,
            random: SeededRandom(seed: 1),
            timeLimit: .milliseconds(200)
        )
        await #expect(throws: AuthCoreError(.timedOut, "")) { try await provider.credentials() }

        let gated = CountingSource(clock: clock, gated: true)
        let shared = RefreshingCredentialsProvider(source: gated, clock: clock, random: SeededRandom(seed: 1))
        let cancelled = Task { try await shared.credentials() }
        let patient = Task { try await shared.credentials() }
        while gated.calls == 0 { await Task.yield() }
        cancelled.cancel()
        await #expect(throws: AuthCoreError(.cancelled, "")) { try await cancelled.value }
        gated.openGate()
        #expect(try await patient.value.accessKeyId == "ASIA1")
        #expect(gated.calls == 1)
    }
}
