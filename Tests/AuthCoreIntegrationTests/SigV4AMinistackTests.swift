import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// SigV4a (`AWS4-ECDSA-P256-SHA256`) against ministack with `AUTH=true` and an IAM user's key
/// (`s3-setup`): ministack derives the user's P-256 key from the secret itself (its
/// `sigv4a_signing_key`, a Python implementation over `cryptography`) and verifies the ECDSA
/// signature of the string to sign it rebuilds from the request (peers.md).
@Suite("SigV4a against ministack (verifying server)", .serialized)
struct SigV4AMinistackTests {
    let s3: [String: Any]

    init() throws {
        s3 = try MinistackPool.helper(["s3-setup"])
        let endpoint = try #require(s3["endpoint"] as? String)
        guard endpoint.hasPrefix("http://127.0.0.1:") || endpoint.hasPrefix("http://[::1]:") else {
            throw PeerError(description: "ministack is not on loopback: \(endpoint)")
        }
    }

    func text(_ key: String) throws -> String { try #require(s3[key] as? String) }
    var endpoint: String { get throws { try text("endpoint") } }

    func environment(secret: String? = nil) throws -> [String: String?] {
        [
            "AWS_ACCESS_KEY_ID": try text("accessKeyId"),
            "AWS_SECRET_ACCESS_KEY": try secret ?? text("secretAccessKey"), "AWS_SESSION_TOKEN": nil,
        ]
    }

    /// `authcore sigv4 send --sigv4a` of STS GetCallerIdentity.
    func callerIdentity(regionSet: String, secret: String? = nil) throws -> ProcessResult {
        try authcore(
            [
                "sigv4", "send", "--sigv4a", "--region-set", regionSet, "--service", "sts", "-H",
                "Content-Type: application/x-www-form-urlencoded",
                "-d", "Action=GetCallerIdentity&Version=2011-06-15", try endpoint,
            ],
            environment: try environment(secret: secret)
        )
    }

    @Test("a SigV4a GetCallerIdentity is accepted for one region and for *, and names the IAM user")
    func callerIdentityAccepted() throws {
        for regionSet in ["us-east-1", "*"] {
            let result = try callerIdentity(regionSet: regionSet)
            #expect(result.status == 0, "\(regionSet): \(result.stderr)")
            #expect(
                result.stdout.contains("<Arn>arn:aws:iam::") && result.stdout.contains(":user/authcore-s3-"),
                "\(result.stdout.prefix(300))"
            )
        }
    }

    @Test("S3 PUT and GET signed with SigV4a: the object is stored and read back")
    func s3PutAndGet() throws {
        let url = "\(try endpoint)/\(try text("bucket"))/sigv4a.txt"
        let put = try authcore(
            [
                "sigv4", "send", "--sigv4a", "--region-set", "us-east-1", "--service", "s3", "-X", "PUT", "--data-raw",
                "signed with ECDSA", url,
            ],
            environment: try environment()
        )
        #expect(put.status == 0, "\(put.stderr)")
        let get = try authcore(
            ["sigv4", "send", "--sigv4a", "--region-set", "us-east-1,us-west-2", "--service", "s3", url],
            environment: try environment()
        )
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "signed with ECDSA")
    }

    @Test("a wrong secret is refused (403, exit 1)")
    func wrongSecret() throws {
        let result = try callerIdentity(regionSet: "us-east-1", secret: "not-the-secret-at-all-0123456789abcdefghij")
        #expect(result.status == 1)
        #expect(result.stderr.contains("HTTP 403"), "\(result.stderr)")
    }

    @Test("a region set changed after signing is refused (403): the signature covers X-Amz-Region-Set")
    func tamperedRegionSet() async throws {
        let credentials = try Credentials(
            accessKeyId: try text("accessKeyId"),
            secretAccessKey: try text("secretAccessKey")
        )
        let signer = try SigV4ASigner(credentials: credentials, regionSet: ["us-east-1"], service: "sts")
        let body = Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)
        let request = HTTPRequest(
            method: "POST",
            url: try RequestURL(try endpoint),
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
            body: body,
            allowsInsecureHTTP: true
        )
        let signed = request.adding(try signer.sign(request.sigV4Request(payload: .bytes(body)), at: Timestamp(Date())))
        let transport = HTTP1Transport()
        let accepted = try await transport.send(signed)
        #expect(accepted.status == 200, "the untouched request: \(accepted.status)")
        var tampered = signed
        // Still covering us-east-1, so only the signature (not a region check) can refuse it.
        tampered.headers = signed.headers.map {
            $0.name == "X-Amz-Region-Set" ? HTTPHeader($0.name, "us-east-1,us-west-2") : $0
        }
        #expect(tampered.headers.contains { $0.name == "X-Amz-Region-Set" && $0.value == "us-east-1,us-west-2" })
        let refused = try await transport.send(tampered)
        #expect(refused.status == 403, "the tampered request: \(refused.status)")
    }
}
