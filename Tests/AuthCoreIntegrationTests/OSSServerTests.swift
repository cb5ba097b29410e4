import AuthCoreTestSupport
import Foundation
import Testing

/// `authcore oss send|presign` against a loopback OSS endpoint that recomputes every received
/// signature with oss2 (scripts/oss_verify_server.py) and answers 403 on a mismatch.
@Suite("OSS V1/V4 against an oss2-verifying server", .serialized)
struct OSSServerTests {
    let endpoint: String
    let bucket: String
    let region: String
    let longTerm: [String: String?]
    let sts: [String: String?]

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_OSS_URL")
        bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        region = try peerEnvironment("AUTHCORE_OSS_REGION")
        longTerm = [
            "OSS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_ID"),
            "OSS_ACCESS_KEY_SECRET": try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_SECRET"), "OSS_SECURITY_TOKEN": nil,
        ]
        sts = [
            "OSS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_ID"),
            "OSS_ACCESS_KEY_SECRET": try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_SECRET"),
            "OSS_SECURITY_TOKEN": try peerEnvironment("AUTHCORE_OSS_SECURITY_TOKEN"),
        ]
    }

    func oss(
        _ action: String,
        _ version: String,
        _ arguments: [String],
        key: String,
        environment: [String: String?]
    ) throws -> ProcessResult {
        try authcore(
            ["oss", action, "--bucket", bucket, "--version", version, "--region", region] + arguments + [
                "\(endpoint)/\(bucket)/\(key)"
            ],
            environment: environment
        )
    }

    @Test(
        "send PUT then GET, V1 and V4, with and without a security token; a wrong secret is 403",
        arguments: ["v1", "v4"]
    )
    func sendRoundTrip(version: String) throws {
        for (label, environment) in [("long-term", longTerm), ("sts", sts)] {
            let key = "dir/\(version)-\(label)%20object%2B%C3%A9.txt"
            let body = "OSS \(version) \(label) body"
            let put = try oss(
                "send",
                version,
                ["-X", "PUT", "-H", "Content-Type: text/plain", "-d", body],
                key: key,
                environment: environment
            )
            #expect(put.status == 0, "\(version) \(label) put: \(put.stderr)")
            let get = try oss("send", version, [], key: key, environment: environment)
            #expect(get.status == 0, "\(version) \(label) get: \(get.stderr)")
            #expect(get.stdout == body)
            var wrong = environment
            wrong["OSS_ACCESS_KEY_SECRET"] = "not-the-secret"
            let bad = try oss("send", version, [], key: key, environment: wrong)
            #expect(bad.status == 1)
            #expect(bad.stderr.hasPrefix("HTTP 403: SignatureDoesNotMatch: "), "\(version) \(label): \(bad.stderr)")
        }
        var missingToken = sts
        missingToken["OSS_SECURITY_TOKEN"] = nil
        let refused = try oss("send", version, [], key: "dir/x", environment: missingToken)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("HTTP 403: "), "\(refused.stderr)")
    }

    @Test("signed URLs, V1 and V4, with and without a token; a flipped signature is 403", arguments: ["v1", "v4"])
    func presignedURLs(version: String) async throws {
        for (label, environment) in [("long-term", longTerm), ("sts", sts)] {
            let key = "presigned/\(version)-\(label)%20%2B.txt"
            let put = try oss(
                "send",
                version,
                ["-X", "PUT", "-d", "presigned \(label)"],
                key: key,
                environment: environment
            )
            #expect(put.status == 0, "\(put.stderr)")
            let signed = try oss("presign", version, ["--expires", "600"], key: key, environment: environment)
            #expect(signed.status == 0, "\(signed.stderr)")
            let url = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let get = try await fetch(url)
            #expect(get.status == 200, "\(version) \(label): \(get.body)")
            #expect(get.body == "presigned \(label)")
            let tampered = try await fetch(
                tamperedSignature(url, parameter: version == "v1" ? "Signature" : "x-oss-signature")
            )
            #expect(tampered.status == 403)
        }
    }
}
