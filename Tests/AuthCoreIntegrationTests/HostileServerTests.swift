import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every client in the package against a hostile loopback server (scripts/hostile_server.py) that
/// listens on 127.0.0.1 ("A", where the clients are pointed) and 127.0.0.2 ("B", where its redirects
/// point). What these tests prove: no signal, a typed error (exit 1 and one line on stderr for the
/// CLI), no request ever reaches B, bounded memory for oversized bodies, bounded skew learning. The
/// server checks nothing; it only answers badly.
@Suite("Hostile server: redirects, absurd numbers and dates, oversized bodies", .serialized)
struct HostileServerTests {
    let base: String

    init() throws { base = try peerEnvironment("AUTHCORE_HOSTILE_URL") }

    static let awsEnvironment: [String: String?] = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLEHOSTILE01",
        "AWS_SECRET_ACCESS_KEY": "hostile-test-secret-key-0123456789abcdef",
        "AWS_SESSION_TOKEN": "hostile-session-token",
    ]
    static let redirects = [
        "redirect-301", "redirect-302", "redirect-307", "redirect-308", "redirect-https-other", "s3-301",
    ]

    func url(_ scenario: String) -> String { "\(base)/\(scenario)/" }

    /// How many requests reached address B since the last reset.
    func hitsOnOtherAddress() async throws -> Int {
        let answer = try await fetch(base + "/_hits")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        return try #require(object["count"] as? Int)
    }

    func count(_ scenario: String) async throws -> Int {
        let answer = try await fetch(base + "/_count/" + scenario)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        return try #require(object["count"] as? Int)
    }

    func reset() async throws { _ = try await fetch(base + "/_reset", method: "POST") }

    /// A CLI failure as the contract says: exit 1, no signal, one clear first line on stderr.
    func expectFailure(
        _ result: ProcessResult,
        mentioning text: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.terminatedBySignal, "killed by a signal: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!first.isEmpty, "no line on stderr", sourceLocation: sourceLocation)
        if let text { #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation) }
    }

    func cognitoSignIn(_ scenario: String, flow: String = "user-password") throws -> ProcessResult {
        try authcore(
            [
                "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_hostile", "--client-id",
                "client", "--username", "alice",
                "--flow", flow, "--endpoint", url(scenario),
            ],
            environment: ["COGNITO_PASSWORD": "correct horse battery staple"]
        )
    }

    func sigv4Send(_ scenario: String, _ extra: [String] = []) throws -> ProcessResult {
        try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3"] + extra + [url(scenario) + "object"],
            environment: Self.awsEnvironment
        )
    }

    // MARK: - Redirects never carry credentials elsewhere

    @Test("no client follows a redirect to the other address: sign-in, identity, STS, token vending, signed send")
    func redirectsAreNotFollowed() async throws {
        try await reset()
        for scenario in Self.redirects {
            expectFailure(try cognitoSignIn(scenario), mentioning: "redirect")
            expectFailure(try cognitoSignIn(scenario, flow: "user-srp"), mentioning: "redirect")
            expectFailure(
                try authcore(
                    [
                        "identity", "developer-token", "--region", "us-east-1", "--identity-pool-id", "us-east-1:pool",
                        "--provider-name", "login.test",
                        "--user-identifier", "alice", "--endpoint", url(scenario),
                    ],
                    environment: Self.awsEnvironment
                ),
                mentioning: "redirect"
            )
            let tokenFile = try temporaryFile("not-a-jwt", name: "token")
            expectFailure(
                try authcore(
                    [
                        "identity", "credentials", "--region", "us-east-1", "--identity-id", "us-east-1:x",
                        "--token-file", tokenFile,
                        "--logins-key", "cognito-identity.amazonaws.com", "--endpoint", url(scenario),
                    ]),
                mentioning: "redirect"
            )
            expectFailure(try sigv4Send(scenario), mentioning: "HTTP 30")

            let sts = try STSClient(region: "us-east-1", endpoint: url(scenario))
            let credentials = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
            await #expect(throws: AuthCoreError(.redirectRefused, "")) {
                try await sts.assumeRole(
                    roleArn: "arn:aws:iam::123456789012:role/r",
                    sessionName: "s",
                    credentials: credentials
                )
            }
            for policy in [RedirectPolicy.refuse, .followSameOrigin(maximum: 5)] {
                let vending = try TokenVendingCredentialsProvider(url: try RequestURL(url(scenario)), redirects: policy)
                await #expect(throws: AuthCoreError(.redirectRefused, "")) { try await vending.credentials() }
            }
        }
        #expect(try await hitsOnOtherAddress() == 0)
    }

    @Test("an S3 301 is a typed error that names the region and endpoint to use")
    func s3RedirectNamesTheRegion() async throws {
        let sts = try STSClient(region: "us-east-1", endpoint: url("s3-301"))
        let credentials = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
        do {
            _ = try await sts.assumeRole(
                roleArn: "arn:aws:iam::123456789012:role/r",
                sessionName: "s",
                credentials: credentials
            )
            Issue.record("a redirect was accepted")
        } catch {
            #expect(error.code == .redirectRefused)
            #expect(error.httpStatus == 301)
            #expect(error.reason.contains("region eu-west-1"), "\(error.reason)")
            #expect(error.reason.contains("endpoint b.s3.eu-west-1.amazonaws.com"), "\(error.reason)")
        }
        let send = try sigv4Send("s3-301")
        expectFailure(send, mentioning: "HTTP 301: PermanentRedirect")
    }

    @Test("an unsigned token-vending call follows a same-origin redirect only when the app opts in")
    func sameOriginOptIn() async throws {
        let target = try RequestURL(url("redirect-same-origin"))
        let refusing = try TokenVendingCredentialsProvider(url: target)
        await #expect(throws: AuthCoreError(.redirectRefused, "")) { try await refusing.credentials() }
        // Followed to /ok-json/, whose {"ok":true} is no credentials answer: the error proves the hop.
        let following = try TokenVendingCredentialsProvider(url: target, redirects: .followSameOrigin(maximum: 3))
        do {
            _ = try await following.credentials()
            Issue.record("{\"ok\":true} was taken for credentials")
        } catch {
            #expect(error.code == .malformedResponse)
            #expect(error.reason.contains("StatusCode"), "\(error.reason)")
        }
    }

    // MARK: - Dates and clock skew

    @Test(
        "a skew answer with an absurd or too distant Date, or a 4xx that is not a skew answer, is not learned (one request, no retry)",
        arguments: ["skew-year0", "skew-year9999", "skew-30d", "skew-unrecognised"]
    )
    func unlearnableSkew(scenario: String) async throws {
        try await reset()
        expectFailure(try sigv4Send(scenario), mentioning: "HTTP 403")
        #expect(try await count(scenario) == 1)
        // The library's tracker: nothing learned from the same answers.
        let tracker = ClockSkewTracker()
        let sender = SignedRequestSender(skew: tracker)
        let signer = try SigV4Signer(
            credentials: try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"),
            region: "us-east-1",
            service: "s3"
        )
        let response = try await sender.send(HTTPRequest(method: "GET", url: try RequestURL(url(scenario)))) {
            request,
            time throws(AuthCoreError) in
            request.adding(try signer.sign(request.sigV4Request(), at: time))
        }
        #expect(response.status == 403)
        #expect(tracker.offset(for: "127.0.0.1") == 0)
        #expect(try await count(scenario) == 2)
    }

    @Test("a recognised skew answer within the bound is learned once and the request re-signed once")
    func learnableSkew() async throws {
        try await reset()
        expectFailure(try sigv4Send("skew-1h"), mentioning: "RequestTimeTooSkewed")
        #expect(try await count("skew-1h") == 2)
        let tracker = ClockSkewTracker()
        let sender = SignedRequestSender(skew: tracker)
        let signer = try SigV4Signer(
            credentials: try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"),
            region: "us-east-1",
            service: "s3"
        )
        _ = try await sender.send(HTTPRequest(method: "GET", url: try RequestURL(url("skew-1h")))) {
            request,
            time throws(AuthCoreError) in
            request.adding(try signer.sign(request.sigV4Request(), at: time))
        }
        #expect((3590...3610).contains(tracker.offset(for: "127.0.0.1")), "\(tracker.offset(for: "127.0.0.1"))")
    }

    // MARK: - Numbers out of range

    @Test(
        "ExpiresIn of 1e300 or -5 in a sign-in answer is a typed error, not a trap",
        arguments: ["json-expires-1e300", "json-expires-negative"]
    )
    func absurdExpiresIn(scenario: String) throws {
        expectFailure(try cognitoSignIn(scenario), mentioning: "ExpiresIn")
    }

    @Test(
        "token vending: absurd StatusCode and Expiration values are typed errors",
        arguments: [
            ("vending-status-1e300", "StatusCode"), ("vending-expiration-1e300", "Expiration"),
            ("vending-expiration-negative", "Expiration"),
            ("vending-expiration-year0", "Expiration"),
        ]
    )
    func absurdVending(scenario: String, field: String) async throws {
        let vending = try TokenVendingCredentialsProvider(url: try RequestURL(url(scenario)))
        do {
            let credentials = try await vending.credentials()
            Issue.record("accepted \(credentials.expiration?.iso8601 ?? "-")")
        } catch {
            #expect([AuthCoreError.Code.malformedResponse, .expired].contains(error.code), "\(error)")
            #expect(error.reason.contains(field), "\(error.reason)")
        }
    }

    @Test("credentials that live 3 s are refused by the refreshing cache (minimum lifetime), with backoff")
    func shortLivedVending() async throws {
        let cache = RefreshingCredentialsProvider(
            source: try TokenVendingCredentialsProvider(url: try RequestURL(url("vending-expiration-soon")))
        )
        try await reset()
        await #expect(throws: AuthCoreError(.expired, "")) { try await cache.credentials() }
        await #expect(throws: AuthCoreError(.expired, "")) { try await cache.credentials() }
        #expect(try await count("vending-expiration-soon") == 1, "the second call is inside the backoff")
    }

    @Test("identity credentials with Expiration 1e300 and STS with a five-digit year are typed errors")
    func absurdCredentials() async throws {
        let tokenFile = try temporaryFile("not-a-jwt", name: "token")
        expectFailure(
            try authcore(
                [
                    "identity", "credentials", "--region", "us-east-1", "--identity-id", "us-east-1:x", "--token-file",
                    tokenFile,
                    "--logins-key", "cognito-identity.amazonaws.com", "--endpoint", url("identity-expiration-1e300"),
                ]),
            mentioning: "Expiration"
        )
        let sts = try STSClient(region: "us-east-1", endpoint: url("sts-expiration-absurd"))
        do {
            _ = try await sts.assumeRole(
                roleArn: "arn:aws:iam::123456789012:role/r",
                sessionName: "s",
                credentials: try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
            )
            Issue.record("accepted")
        } catch {
            #expect(error.code == .malformedResponse)
            #expect(error.reason.contains("Expiration"), "\(error.reason)")
        }
    }

    @Test("malformed JSON and XML answers are typed errors")
    func malformedBodies() async throws {
        expectFailure(try cognitoSignIn("malformed-json"), mentioning: "JSON")
        let sts = try STSClient(region: "us-east-1", endpoint: url("malformed-xml"))
        await #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try await sts.assumeRole(
                roleArn: "arn:aws:iam::123456789012:role/r",
                sessionName: "s",
                credentials: try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
            )
        }
    }

    // MARK: - Oversized and endless bodies

    /// The peak resident set of one `authcore` run (its `ru_maxrss` as the only child of a Python
    /// wrapper), in bytes. Measured in a child process: this test process's own peak (`VmHWM`) also
    /// counts every suite that runs in parallel.
    func childPeakResidentBytes(_ arguments: [String]) throws -> (result: Int32, bytes: Int) {
        let run = try authcoreWithPeakResidentKiB(
            arguments,
            environment: [
                "COGNITO_PASSWORD": "pw", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLEHOSTILE01",
                "AWS_SECRET_ACCESS_KEY": "hostile-test-secret-key",
            ]
        )
        #expect(run.peakKiB > 0, "\(run.result.stderr)")
        return (run.result.status, run.peakKiB * 1024)
    }

    @Test(
        "a 96 MiB answer to a 1 MiB-capped call is refused before it is read: the client's peak memory grows by far less than the body"
    )
    func bigBodyIsCappedWhileReceiving() async throws {
        let vending = try TokenVendingCredentialsProvider(url: try RequestURL(url("big-body")))
        await #expect(throws: AuthCoreError(.inputTooLarge, "")) { try await vending.credentials() }
        func signIn(_ scenario: String) -> [String] {
            [
                "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_abc", "--client-id", "c",
                "--username", "u",
                "--endpoint", url(scenario),
            ]
        }
        let baseline = try childPeakResidentBytes(signIn("json-expires-negative"))
        let big = try childPeakResidentBytes(signIn("big-body"))
        #expect(baseline.result == 1 && big.result == 1)
        let growth = big.bytes - baseline.bytes
        // Under `make asan`/`make tsan` shadow memory and the allocator's quarantine stay resident, so
        // peak RSS says nothing about what was buffered; the bound is for the normal build (`make test`).
        if !builtWithSanitizer {
            #expect(growth < 24 << 20, "peak RSS grew by \(growth >> 20) MiB for a 96 MiB body under a 1 MiB cap")
        }
    }

    @Test(
        "a body that never ends, chunked or without any length, stops at the cap: peak memory is the cap plus a constant",
        arguments: ["endless-body", "endless-stream"]
    )
    func endlessBodiesAreBounded(scenario: String) async throws {
        func signIn(_ scenario: String) -> [String] {
            [
                "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_abc", "--client-id", "c",
                "--username", "u",
                "--endpoint", url(scenario),
            ]
        }
        let baseline = try childPeakResidentBytes(signIn("json-expires-negative"))
        let capped = try childPeakResidentBytes(signIn(scenario))  // 1 MiB control-plane cap
        let send = try childPeakResidentBytes([
            "sigv4", "send", "--region", "us-east-1", "--service", "s3", url(scenario),
        ])  // 64 MiB cap
        #expect(baseline.result == 1 && capped.result == 1 && send.result == 1)
        if !builtWithSanitizer {
            // Before the transport owned its read loop these were ~100 MB and 130-255 MB.
            #expect(
                capped.bytes - baseline.bytes < 8 << 20,
                "1 MiB cap: peak RSS grew by \((capped.bytes - baseline.bytes) >> 20) MiB"
            )
            #expect(
                send.bytes - baseline.bytes < (64 << 20) + (16 << 20),
                "64 MiB cap: peak RSS grew by \((send.bytes - baseline.bytes) >> 20) MiB"
            )
        }
        expectFailure(try sigv4Send(scenario), mentioning: "exceeds the 67108864-byte limit")
    }

    @Test("a 1 GiB Content-Length is refused before reading; an endless body ends at the cap; the CLI exits 1")
    func hugeAndEndlessBodies() async throws {
        let start = ContinuousClock.now
        let vending = try TokenVendingCredentialsProvider(url: try RequestURL(url("big-content-length")))
        do {
            _ = try await vending.credentials()
            Issue.record("accepted")
        } catch {
            #expect(error.code == .inputTooLarge)
            #expect(error.reason.contains("1073741824"), "\(error.reason)")
        }
        #expect(ContinuousClock.now - start < .seconds(20), "refused without waiting for the body")
        expectFailure(try sigv4Send("big-content-length"), mentioning: "1073741824")
        expectFailure(try sigv4Send("endless-body"), mentioning: "exceeds")
        expectFailure(try sigv4Send("big-body"), mentioning: "announces 100663296 bytes")
    }

    @Test("a source that hangs fails the refresh after the time limit; a cancelled waiter stops waiting at once")
    func hangingSource() async throws {
        let slow = try TokenVendingCredentialsProvider(url: try RequestURL(url("slow")))
        let cache = RefreshingCredentialsProvider(source: slow, timeLimit: .milliseconds(500))
        let start = ContinuousClock.now
        await #expect(throws: AuthCoreError(.timedOut, "")) { try await cache.credentials() }
        #expect(ContinuousClock.now - start < .seconds(10))

        let patient = RefreshingCredentialsProvider(source: slow)
        let waiter = Task { try await patient.credentials() }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        waiter.cancel()
        await #expect(throws: AuthCoreError(.cancelled, "")) { try await waiter.value }
        #expect(ContinuousClock.now - cancelledAt < .seconds(5))
        // The transport itself: a cancelled call ends at once as `cancelled`, also when it is
        // cancelled before it starts.
        let direct = Task { try await slow.credentials() }
        try await Task.sleep(for: .milliseconds(200))
        direct.cancel()
        await #expect(throws: AuthCoreError(.cancelled, "")) { try await direct.value }
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await slow.credentials()
        }
        await #expect(throws: AuthCoreError(.cancelled, "")) { try await early.value }
    }

    // MARK: - Plain http

    @Test("plain http to a host that is not loopback is refused unless the caller opts in")
    func insecureHTTP() throws {
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_x",
                clientId: "c",
                endpoint: "http://cognito.example.com/"
            )
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try STSClient(region: "us-east-1", endpoint: "http://sts.example.com/")
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try CognitoIdentityClient(region: "us-east-1", endpoint: "http://id.example.com/")
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try TokenVendingCredentialsProvider(url: try RequestURL("http://vend.example.com/sts"))
        }
        _ = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_x",
            clientId: "c",
            endpoint: "http://cognito.example.com/",
            allowInsecureHTTP: true
        )
        _ = try STSClient(region: "us-east-1", endpoint: "http://127.0.0.2:9/")
        _ = try STSClient(region: "us-east-1", endpoint: "http://localhost:9/")
        _ = try STSClient(region: "us-east-1", endpoint: "http://[::1]:9/")
        // The CLI: a refused --endpoint is a usage error (exit 2), before anything is sent.
        let cli = try authcore(
            [
                "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_x", "--client-id", "c",
                "--username", "alice",
                "--flow", "user-password", "--endpoint", "http://cognito.example.com/",
            ],
            environment: ["COGNITO_PASSWORD": "pw"]
        )
        #expect(cli.status == 2 && !cli.terminatedBySignal, "\(cli.status): \(cli.stderr)")
        #expect(cli.stderr.hasPrefix("error: http://cognito.example.com: plain http is refused"), "\(cli.stderr)")
    }
}
