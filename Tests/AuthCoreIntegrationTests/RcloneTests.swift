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
            ["sigv4", "presign", "--region", "us-east-1", "--service", "s3", "--s3", "-X", method, "--expires", String(expires),
             endpoint + path], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("presigned PUT then presigned GET round-trip; a flipped signature is 403")
    func presignedRoundTrip() async throws {
        let path = "/\(bucket)/presigned%20key%2B%C3%BC.txt"
        let put = try await fetch(try presign(path, method: "PUT"), method: "PUT", body: "uploaded through a presigned URL")
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
        let arguments = ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", "--clock-offset", "-1200"]
        let corrected = try authcore(arguments + [endpoint + "/\(bucket)/hello.txt"], environment: environment)
        #expect(corrected.status == 0, "\(corrected.stderr)")
        #expect(corrected.stdout == "hello from rclone\n")
        let uncorrected = try authcore(arguments + ["--no-skew-correction", endpoint + "/\(bucket)/hello.txt"], environment: environment)
        #expect(uncorrected.status == 1)
        #expect(uncorrected.stderr.hasPrefix("HTTP 400: AccessDenied: "), "\(uncorrected.stderr)")
    }

    @Test("header-signed GET works and a wrong secret is 403")
    func headerAuth() throws {
        let ok = try authcore(["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", endpoint + "/\(bucket)/hello.txt"], environment: environment)
        #expect(ok.status == 0, "\(ok.stderr)")
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "0000000000000000000000000000000000000000"
        let bad = try authcore(["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3", endpoint + "/\(bucket)/hello.txt"], environment: wrong)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("HTTP 403: SignatureDoesNotMatch: "), "\(bad.stderr)")
    }
}
