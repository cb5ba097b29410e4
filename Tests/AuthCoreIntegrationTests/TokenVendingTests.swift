import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The OSS STS federation pattern against a real loopback app server (scripts/token_vending_server.py),
/// whose good answers vend the STS pair the oss2-verifying OSS server accepts.
@Suite("Token-vending endpoint over HTTP", .serialized)
struct TokenVendingTests {
    let base: String

    init() throws { base = try peerEnvironment("AUTHCORE_VENDING_URL") }

    func provider(_ path: String) throws -> TokenVendingCredentialsProvider {
        try TokenVendingCredentialsProvider(url: try RequestURL(base + path))
    }

    func error(_ path: String) async throws -> AuthCoreError? {
        do {
            _ = try await provider(path).credentials()
            return nil
        } catch let error as AuthCoreError {
            return error
        }
    }

    @Test("a good answer: credentials that sign an OSS request the oss2-verifying server accepts")
    func vendedCredentialsSign() async throws {
        let credentials = try await provider("/sts").credentials()
        #expect(credentials.accessKeyId == (try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_ID")))
        #expect(credentials.sessionToken == (try peerEnvironment("AUTHCORE_OSS_SECURITY_TOKEN")))
        let remaining = SystemClock().now().seconds(until: try #require(credentials.expiration))
        #expect((3500...3601).contains(remaining), "Expiration is an hour ahead: \(remaining) s")
        #expect(credentials.expiration?.nanoseconds == 0)
        let secret = credentials.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        let put = try authcore(
            [
                "oss", "send", "--bucket", bucket, "--version", "v4", "--region",
                try peerEnvironment("AUTHCORE_OSS_REGION"), "-X", "PUT", "-d", "vended",
                "\(try peerEnvironment("AUTHCORE_OSS_URL"))/\(bucket)/vended.txt",
            ],
            environment: [
                "OSS_ACCESS_KEY_ID": credentials.accessKeyId, "OSS_ACCESS_KEY_SECRET": secret,
                "OSS_SECURITY_TOKEN": credentials.sessionToken,
            ]
        )
        #expect(put.status == 0, "\(put.stderr)")
    }

    @Test(
        "a request the app builds (POST, its session header, a query, a JSON body) vends credentials; without the session header it is refused"
    )
    func appBuiltRequest() async throws {
        let url = try RequestURL(base + "/sts/session?purpose=oss")
        func provider(session: String?) -> TokenVendingCredentialsProvider {
            TokenVendingCredentialsProvider { () throws(AuthCoreError) in
                HTTPRequest(
                    method: "POST",
                    url: url,
                    headers: [HTTPHeader("Content-Type", "application/json")]
                        + (session.map { [HTTPHeader("X-App-Session", $0)] } ?? []),
                    body: Array(#"{"user":"alice"}"#.utf8)
                )
            }
        }
        let credentials = try await provider(session: "app-session-token-1").credentials()
        #expect(credentials.accessKeyId == (try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_ID")))
        do {
            _ = try await provider(session: nil).credentials()
            Issue.record("an unauthenticated request was answered with credentials")
        } catch {
            #expect(error.serviceErrorType == "Unauthorized")
            #expect(error.httpStatus == 401)
        }
        // The network policy holds for built requests too: plain http to a host that is not loopback.
        let remote = TokenVendingCredentialsProvider { () throws(AuthCoreError) in
            HTTPRequest(method: "GET", url: try RequestURL("http://vending.example.com/sts"))
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await remote.credentials() }
    }

    @Test("Expiration with milliseconds is parsed to the millisecond")
    func fractionalExpiration() async throws {
        let credentials = try await provider("/sts/fractional").credentials()
        #expect(credentials.expiration?.nanoseconds == 123_000_000)
    }

    @Test("a 90-second lifetime is refreshed at half its lifetime, not 5 minutes before expiry")
    func shortLifetime() async throws {
        let refreshing = RefreshingCredentialsProvider(source: try provider("/sts/short"), timeLimit: patientTimeLimit)
        try await expectHalfLifetimeRefresh(refreshing, lifetime: 90)
    }

    @Test(
        "malformed and refused answers are typed errors that name the field",
        arguments: [
            ("/sts/expired", AuthCoreError.Code.expired, "Expiration"),
            ("/sts/non200", .serviceError, "InternalError"),
            ("/sts/status-mismatch", .malformedResponse, "StatusCode is 403"),
            ("/sts/missing-secret", .malformedResponse, "AccessKeySecret"),
            ("/sts/bad-json", .malformedResponse, "the answer is not JSON"),
            ("/sts/wrong-type", .malformedResponse, "AccessKeyId"),
            ("/sts/no-such-path", .serviceError, "NotFound"),
        ]
    )
    func refusals(path: String, code: AuthCoreError.Code, mention: String) async throws {
        let failure = try #require(try await error(path))
        #expect(failure.code == code)
        #expect(failure.reason.contains(mention), "\(failure.reason)")
        if path == "/sts/non200" { #expect(failure.httpStatus == 500) }
    }

    @Test("200 concurrent callers of a refreshing cache reach the endpoint once; clearCredentials fetches again")
    func singleFlightOverHTTP() async throws {
        _ = try await fetch(base + "/sts/counter/reset")
        let refreshing = RefreshingCredentialsProvider(
            source: try provider("/sts/counter"),
            timeLimit: patientTimeLimit
        )
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await refreshing.credentials().accessKeyId } }
            var all: Set<String> = []
            for try await id in group { all.insert(id) }
            return all
        }
        #expect(ids == ["STS.counter-1"])
        #expect(try await fetch(base + "/sts/counter/count").body == #"{"count": 1}"#)
        await refreshing.clearCredentials()
        #expect(try await refreshing.credentials().accessKeyId == "STS.counter-2")
    }
}
