import AuthCoreTestSupport
import Foundation
import Testing

/// `authcore sigv4 send` against moto's server in signature-checking mode (peers.md: header auth,
/// session tokens and S3 are verified; a wrong secret or a flipped byte is 403).
@Suite("SigV4 against moto with signature checking", .serialized)
struct MotoSigV4Tests {
    let endpoint: String
    let accessKey: String
    let secret: String

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_MOTO_SIGNED_URL")
        accessKey = try peerEnvironment("AUTHCORE_MOTO_ACCESS_KEY_ID")
        secret = try peerEnvironment("AUTHCORE_MOTO_SECRET_ACCESS_KEY")
    }

    func credentials(secret: String? = nil, token: String? = nil, accessKey: String? = nil) -> [String: String?] {
        [
            "AWS_ACCESS_KEY_ID": accessKey ?? self.accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? self.secret,
            "AWS_SESSION_TOKEN": token,
        ]
    }

    func sts(_ body: String, environment: [String: String?]) throws -> ProcessResult {
        try authcore(
            [
                "sigv4", "send", "--region", "us-east-1", "--service", "sts", "-H",
                "Content-Type: application/x-www-form-urlencoded",
                "-d", body, endpoint + "/",
            ],
            environment: environment
        )
    }

    func s3(_ arguments: [String], _ path: String, environment: [String: String?]) throws -> ProcessResult {
        try authcore(
            ["sigv4", "send", "--region", "us-east-1", "--service", "s3", "--s3"] + arguments + [endpoint + path],
            environment: environment
        )
    }

    @Test("STS GetCallerIdentity is accepted with the right secret and refused (403, exit 1) with a wrong one")
    func getCallerIdentity() throws {
        let ok = try sts("Action=GetCallerIdentity&Version=2011-06-15", environment: credentials())
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(xmlElement("Arn", in: ok.stdout)?.hasPrefix("arn:aws:iam::") == true, "\(ok.stdout)")
        let bad = try sts("Action=GetCallerIdentity&Version=2011-06-15", environment: credentials(secret: secret + "x"))
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("HTTP 403: SignatureDoesNotMatch: "), "\(bad.stderr)")
        let unknown = try sts(
            "Action=GetCallerIdentity&Version=2011-06-15",
            environment: credentials(accessKey: "AKIAUNKNOWNKEY000000")
        )
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("HTTP 403: InvalidClientTokenId: "), "\(unknown.stderr)")
    }

    /// Creates a bucket, puts an object under an awkward key, reads and lists it, with `environment`.
    func roundTrip(bucket: String, environment: [String: String?]) throws {
        let created = try s3(["-X", "PUT"], "/\(bucket)", environment: environment)
        #expect(created.status == 0, "create bucket: \(created.stderr)")
        // The key `a b+c=d@e(f)~ü`, percent-encoded once as S3 expects on the request line.
        let key = "a%20b%2Bc%3Dd%40e%28f%29~%C3%BC"
        let put = try s3(["-X", "PUT", "-d", "awkward body ✓"], "/\(bucket)/\(key)", environment: environment)
        #expect(put.status == 0, "put: \(put.stderr)")
        let get = try s3([], "/\(bucket)/\(key)", environment: environment)
        #expect(get.status == 0, "get: \(get.stderr)")
        #expect(get.stdout == "awkward body ✓")
        let list = try s3([], "/\(bucket)?list-type=2&prefix=a%20b", environment: environment)
        #expect(list.status == 0, "list: \(list.stderr)")
        #expect(xmlElement("Key", in: list.stdout) == "a b+c=d@e(f)~ü", "\(list.stdout)")
    }

    @Test("S3 put/get/list with an awkward key, long-term credentials; a wrong secret is 403")
    func s3LongTerm() throws {
        try roundTrip(bucket: "authcore-long-term", environment: credentials())
        let bad = try s3(
            [],
            "/authcore-long-term/a%20b%2Bc%3Dd%40e%28f%29~%C3%BC",
            environment: credentials(secret: "wrong" + secret)
        )
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("HTTP 403: SignatureDoesNotMatch: "), "\(bad.stderr)")
    }

    @Test("AssumeRole credentials sign S3 requests moto accepts; a wrong secret or a missing token is refused")
    func s3AssumeRole() throws {
        _ = try createAllowAllRole("authcore", endpoint: endpoint, environment: credentials())
        let assumed = try sts(
            "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fauthcore&RoleSessionName=authcore-test&DurationSeconds=900",
            environment: credentials()
        )
        #expect(assumed.status == 0, "\(assumed.stderr)")
        let id = try #require(xmlElement("AccessKeyId", in: assumed.stdout))
        let secretKey = try #require(xmlElement("SecretAccessKey", in: assumed.stdout))
        let token = try #require(xmlElement("SessionToken", in: assumed.stdout))
        #expect(id.hasPrefix("ASIA"))
        let temporary = credentials(secret: secretKey, token: token, accessKey: id)
        try roundTrip(bucket: "authcore-assumed", environment: temporary)
        let wrongSecret = try s3(
            [],
            "/authcore-assumed/a%20b%2Bc%3Dd%40e%28f%29~%C3%BC",
            environment: credentials(secret: secretKey + "x", token: token, accessKey: id)
        )
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.stderr.hasPrefix("HTTP 403: "), "\(wrongSecret.stderr)")
        let noToken = try s3(
            [],
            "/authcore-assumed/a%20b%2Bc%3Dd%40e%28f%29~%C3%BC",
            environment: credentials(secret: secretKey, token: nil, accessKey: id)
        )
        #expect(noToken.status == 1)
        #expect(noToken.stderr.hasPrefix("HTTP 4"), "\(noToken.stderr)")
        // STS with the temporary credentials (the session token is signed).
        let whoami = try sts("Action=GetCallerIdentity&Version=2011-06-15", environment: temporary)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(
            xmlElement("Arn", in: whoami.stdout)?.contains("assumed-role/authcore/authcore-test") == true,
            "\(whoami.stdout)"
        )
    }
}
