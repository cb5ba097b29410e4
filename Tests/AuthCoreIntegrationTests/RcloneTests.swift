import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Presigned URLs, expiry and clock-skew correction against `rclone serve s3` (peers.md: it checks
/// presigned GET/PUT signatures and expiry, and refuses a 20-minute skew with 400 AccessDenied and a
/// `Date` header).
@Suite("SigV4 presigned URLs and clock skew against rclone serve s3", .serialized)
struct RcloneTests {
    let endpoint: String
    let environment: [String: String?]
    let bucket: String

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_RCLONE_URL")
        bucket = try peerEnvironment("AUTHCORE_RCLONE_BUCKET")
        environment = [
            "AWS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_RCLONE_ACCESS_KEY_ID"),
            "AWS_SECRET_ACCESS_KEY": try peerEnvironment("AUTHCORE_RCLONE_SECRET_ACCESS_KEY"), "AWS_SESSION_TOKEN": nil,
        ]
    }

    func presign(_ path: String, method: String = "GET", expires: Int = 300) throws -> String {
        let result = try authcore(
            [
                "sigv4", "presign", "--region", "us-east-1", "--service", "s3", "--s3", "-X", method, "--expires",
                String(expires),
                endpoint + path,
            ],
            environment: environment
        )
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("presigned PUT then presigned GET round-trip; a flipped signature is 403")
    func presignedRoundTrip() async throws {
        let path = "/\(bucket)/presigned%20key%2B%C3%BC.txt"
        let put = try await fetch(
            try presign(path, method: "PUT"),
            method: "PUT",
            body: "uploaded through a presigned URL"
        )
        #expect(put.status == 200, "\(put.body)")
        let getURL = try presign(path)
        let get = try await fetch(getURL)
        #expect(get.status == 200)
        #expect(get.body == "uploaded through a presigned URL")
        let tampered = try await fetch(tamperedSignature(getURL, parameter: "X-Amz-Signature"))
        #expect(tampered.status == 403)
        #expect(xmlElement("Code", in: tampered.body) == "SignatureDoesNotMatch")
    }

    @Test("an expired presigned URL is refused")
    func expiredURL() async throws {
        let url = try presign("/\(bucket)/hello.txt", expires: 1)
        try await Task.sleep(for: .milliseconds(2_500))
        let response = try await fetch(url)
        #expect(response.status == 400)
        #expect(xmlElement("Code", in: response.body) == "AccessDenied")
    }

    @Test("a clock 20 minutes slow is corrected from the Date header; without correction the request fails")
    func clockSkew() throws {
        let arguments = [
            "sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", "--clock-offset", "-1200",
        ]
        let corrected = try authcore(arguments + [endpoint + "/\(bucket)/hello.txt"], environment: environment)
        #expect(corrected.status == 0, "\(corrected.stderr)")
        #expect(corrected.stdout == "hello from rclone\n")
        let uncorrected = try authcore(
            arguments + ["--no-skew-correction", endpoint + "/\(bucket)/hello.txt"],
            environment: environment
        )
        #expect(uncorrected.status == 1)
        #expect(uncorrected.stderr.hasPrefix("HTTP 400: AccessDenied: "), "\(uncorrected.stderr)")
    }

    @Test("header-signed GET works and a wrong secret is 403")
    func headerAuth() throws {
        let ok = try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", endpoint + "/\(bucket)/hello.txt"],
            environment: environment
        )
        #expect(ok.status == 0, "\(ok.stderr)")
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "0000000000000000000000000000000000000000"
        let bad = try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", endpoint + "/\(bucket)/hello.txt"],
            environment: wrong
        )
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("HTTP 403: SignatureDoesNotMatch: "), "\(bad.stderr)")
    }

    @Test(
        "the bound SigV4 signer: a wrong key from the provider is refused, the right one accepted on the next request; a 20-minute slow clock is corrected; its presigned URL works and never outlives the credentials"
    )
    func boundSigner() async throws {
        let good = try Credentials(
            accessKeyId: try peerEnvironment("AUTHCORE_RCLONE_ACCESS_KEY_ID"),
            secretAccessKey: try peerEnvironment("AUTHCORE_RCLONE_SECRET_ACCESS_KEY")
        )
        let wrong = try Credentials(
            accessKeyId: good.accessKeyId,
            secretAccessKey: "0000000000000000000000000000000000000000"
        )
        let current = Locked(wrong)
        let provider = ClosureCredentialsProvider { current.withLock { $0 } }
        let slow = OffsetClock(SystemClock(), offsetSeconds: -1200)
        let signer = SigV4RequestSigner(
            provider: provider,
            region: "us-east-1",
            service: "s3",
            options: .s3,
            sender: SignedRequestSender(clock: slow, skew: ClockSkewTracker())
        )
        let url = try RequestURL(endpoint + "/\(bucket)/hello.txt")
        let refused = try await signer.send(HTTPRequest(method: "GET", url: url))
        #expect(refused.status == 403, "the provider's wrong key")
        current.withLock { $0 = good }  // the provider rotates; the signer needs no rebuilding
        let accepted = try await signer.send(HTTPRequest(method: "GET", url: url))
        #expect(accepted.status == 200)
        #expect(String(decoding: accepted.body.plainBytes, as: UTF8.self) == "hello from rclone\n")
        let presigned = try await signer.presign(HTTPRequest(method: "GET", url: url), expires: 300)
        let fetched = try await fetch(url.origin + (presigned.signedURI ?? ""))
        #expect(fetched.status == 200, "\(fetched.body)")
        let expiring = try Credentials(
            accessKeyId: good.accessKeyId,
            secretAccessKey: good.secretAccessKey,
            expiration: SystemClock().now().adding(seconds: 60)
        )
        current.withLock { $0 = expiring }
        await #expect(throws: AuthCoreError(.expired, "")) {
            try await signer.presign(HTTPRequest(method: "GET", url: url), expires: 300)
        }
    }
}
