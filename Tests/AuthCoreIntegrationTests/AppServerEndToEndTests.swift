import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The identity seeds' three flows through `authcore serve`, end to end on loopback, each checked by
/// an independent peer:
/// - `distribute-token.json`: the server calls the Alibaba STS stand-in, whose signature checks are
///   aliyun-python-sdk-core's; the vended STS pair then signs an OSS request that the oss2-verifying
///   server accepts (it refuses a wrong secret or a missing security token, peers.md).
/// - `/oss/sign`: `authcore oss send --signer-url` with no key at all; the oss2-verifying server
///   accepts what the app server signed.
/// - `/cognito/developer-identity`: the server signs `GetOpenIdTokenForDeveloperIdentity` for moto in
///   signature-checking mode (which refuses a wrong signature); `authcore identity credentials`
///   turns the token into credentials on the default-mode moto (which checks neither token nor
///   Logins: that hop proves the message shapes only; the token checks are IdentityMinistackTests').
@Suite(
    "authcore serve end to end: distribute-token.json, /oss/sign and developer identities against the peers",
    .serialized
)
final class AppServerEndToEndTests {
    let fleet: AppServerFleet
    let password = "open sesame, twice"
    let secret = ["AUTHCORE_SERVER_SECRET": "end-to-end-server-secret-of-32-bytes"]
    let ossURL: String
    let bucket: String
    let region: String

    init() throws {
        fleet = try AppServerFleet(passwords: [
            "alice": "open sesame, twice", "bob": "open sesame, twice", "vend-user@example.com": "open sesame, twice",
        ])
        ossURL = try peerEnvironment("AUTHCORE_OSS_URL")
        bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        region = try peerEnvironment("AUTHCORE_OSS_REGION")
    }

    /// `authcore srp login` (keeping the device token in a 0600 file of the fleet's directory): the
    /// session token it prints.
    func login(_ instance: LoopbackScript, _ username: String) throws -> String {
        let deviceFile = fleet.directory.appendingPathComponent("device-\(username)").path
        let result = try authcore(
            ["srp", "login", "--server", instance.url, "--username", username, "--device-token-file", deviceFile],
            environment: ["SRP_PASSWORD": password]
        )
        let attributes = try FileManager.default.attributesOfItem(atPath: deviceFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(((attributes[.size] as? Int) ?? 0) > 40)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONObject(parsing: Array(result.stdout.utf8), context: "srp login")
        #expect(try Timestamp(iso8601: try object.string("expiresAt")) > SystemClock().now())
        return try object.string("sessionToken")
    }

    static let userPolicy =
        #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject","oss:PutObject"],"Resource":["acs:oss:*:*:b/users/${username}/*"]}]}"#

    @Test(
        "srp login, then distribute-token.json from STS AssumeRole (once per user, cached, each user's own session policy), then an OSS PUT and GET the oss2 server accepts"
    )
    func distributeTokenFlow() async throws {
        let sts = try peerEnvironment("AUTHCORE_ALIYUN_STS_URL")
        let serve = try fleet.start(
            [
                "distributeToken": [
                    "roleArn": try peerEnvironment("AUTHCORE_ALIYUN_ROLE_ARN"), "endpoint": sts + "/",
                    "durationSeconds": 900, "policy": Self.userPolicy,
                ]
            ],
            environment: secret.merging([
                "ALIBABA_CLOUD_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_ID"),
                "ALIBABA_CLOUD_ACCESS_KEY_SECRET": try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_SECRET"),
            ]) { $1 }
        )
        let user = "vend-user@example.com"
        let token = try login(serve, user)
        let url = try RequestURL(serve.url + "/distribute-token.json")
        let provider = TokenVendingCredentialsProvider {
            HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Authorization", "Bearer " + token)])
        }
        let credentials = try await provider.credentials()
        #expect(credentials.sessionToken != nil)
        let again = try await provider.credentials()
        #expect(again.accessKeyId == credentials.accessKeyId)

        // One AssumeRole for this user, with the username as its role session name.
        let calls = try JSONObject(parsing: Array(try await fetch(sts + "/_calls").body.utf8), context: "_calls")
        #expect(try calls.object("sessions").integer(user, in: 0...100) == 1)
        // Each user's credentials carry that user's own session policy: the STS stand-in saw both.
        let bobToken = try login(serve, "bob")
        let bobProvider = TokenVendingCredentialsProvider {
            HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Authorization", "Bearer " + bobToken)])
        }
        _ = try await bobProvider.credentials()
        let policies = try JSONObject(parsing: Array(try await fetch(sts + "/_calls").body.utf8), context: "_calls")
            .object("policies")
        #expect(try policies.string(user) == Self.userPolicy.replacingOccurrences(of: "${username}", with: user))
        #expect(try policies.string("bob") == Self.userPolicy.replacingOccurrences(of: "${username}", with: "bob"))

        let environment: [String: String?] = [
            "OSS_ACCESS_KEY_ID": credentials.accessKeyId,
            "OSS_ACCESS_KEY_SECRET": credentials.secretAccessKey.withUnsafeBytes {
                String(decoding: $0, as: UTF8.self)
            },
            "OSS_SECURITY_TOKEN": credentials.sessionToken,
        ]
        let object = "\(ossURL)/\(bucket)/served/distribute-token.txt"
        let put = try authcore(
            [
                "oss", "send", "--bucket", bucket, "--version", "v4", "--region", region, "-X", "PUT", "-d", "vended",
                object,
            ],
            environment: environment
        )
        #expect(put.status == 0, "\(put.stderr)")
        let get = try authcore(
            ["oss", "send", "--bucket", bucket, "--version", "v4", "--region", region, object],
            environment: environment
        )
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "vended")

        // Without a session: the sample's error shape, 401.
        let refused = try await fetch(serve.url + "/distribute-token.json")
        #expect(refused.status == 401)
        #expect(refused.body.contains(#""ErrorCode":"Unauthorized""#))
    }

    @Test(
        "srp login, then authcore oss send --signer-url /oss/sign with no key: V1 and V4 accepted by the oss2 server; outside the policy and without a session refused",
        arguments: ["v1", "v4"]
    )
    func selfSignedFlow(version: String) async throws {
        let serve = try fleet.start(
            ["ossSigning": ["buckets": [bucket], "keyPrefixes": ["self-signed/${username}/"], "regions": [region]]],
            environment: secret.merging([
                "OSS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_ID"),
                "OSS_ACCESS_KEY_SECRET": try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_SECRET"),
            ]) { $1 }
        )
        let token = try login(serve, "alice")
        let noKey: [String: String?] = [
            "OSS_ACCESS_KEY_ID": nil, "OSS_ACCESS_KEY_SECRET": nil, "OSS_SECURITY_TOKEN": nil,
            "AUTHCORE_SIGNER_TOKEN": token,
        ]
        func send(_ arguments: [String], key: String, environment: [String: String?]) throws -> ProcessResult {
            try authcore(
                [
                    "oss", "send", "--bucket", bucket, "--version", version, "--region", region, "--signer-url",
                    serve.url + "/oss/sign",
                ] + arguments
                    + ["\(ossURL)/\(bucket)/\(key)"],
                environment: environment
            )
        }
        let put = try send(
            ["-X", "PUT", "-d", "signed by the app server \(version)"],
            key: "self-signed/alice/\(version).txt",
            environment: noKey
        )
        #expect(put.status == 0, "\(put.stderr)")
        let get = try send([], key: "self-signed/alice/\(version).txt", environment: noKey)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "signed by the app server \(version)")

        // Another user's prefix: refused for alice (read and write), and bob is refused alice's.
        for (key, arguments) in [
            ("self-signed/bob/\(version).txt", ["-X", "PUT", "-d", "x"]), ("self-signed/bob/private.jpg", []),
            ("elsewhere/\(version).txt", []),
        ] {
            let outside = try send(arguments, key: key, environment: noKey)
            #expect(outside.status == 1, "\(key)")
            #expect(outside.stderr.contains("NotPermitted"), "\(outside.stderr)")
        }
        var asBob = noKey
        asBob["AUTHCORE_SIGNER_TOKEN"] = try login(serve, "bob")
        let bobReads = try send([], key: "self-signed/alice/\(version).txt", environment: asBob)
        #expect(bobReads.status == 1)
        #expect(bobReads.stderr.contains("NotPermitted"), "\(bobReads.stderr)")
        var noSession = noKey
        noSession["AUTHCORE_SIGNER_TOKEN"] = nil
        let anonymous = try send([], key: "self-signed/\(version).txt", environment: noSession)
        #expect(anonymous.status == 1)
        #expect(anonymous.stderr.contains("Unauthorized"), "\(anonymous.stderr)")
    }

    @Test(
        "srp login, then /cognito/developer-identity (GetOpenIdTokenForDeveloperIdentity signed for moto), then authcore identity credentials"
    )
    func developerIdentityFlow() async throws {
        let motoSigned = try peerEnvironment("AUTHCORE_MOTO_SIGNED_URL")
        let developer: [String: String?] = [
            "AWS_ACCESS_KEY_ID": try peerEnvironment("AUTHCORE_MOTO_ACCESS_KEY_ID"),
            "AWS_SECRET_ACCESS_KEY": try peerEnvironment("AUTHCORE_MOTO_SECRET_ACCESS_KEY"), "AWS_SESSION_TOKEN": nil,
        ]
        let provider = "login.authcore.serve"
        let created = try authcore(
            [
                "sigv4", "send", "--region", "us-east-1", "--service", "cognito-identity", "-H",
                "Content-Type: application/x-amz-json-1.1",
                "-H", "X-Amz-Target: AWSCognitoIdentityService.CreateIdentityPool",
                "-d",
                #"{"IdentityPoolName":"authcore_serve","AllowUnauthenticatedIdentities":false,"DeveloperProviderName":"\#(provider)"}"#,
                motoSigned + "/",
            ],
            environment: developer
        )
        #expect(created.status == 0, "\(created.stderr)")
        let pool = try JSONObject(parsing: Array(created.stdout.utf8), context: "CreateIdentityPool").string(
            "IdentityPoolId"
        )

        let serve = try fleet.start(
            [
                "developerIdentity": [
                    "region": "us-east-1", "identityPoolId": pool, "providerName": provider, "tokenDuration": 600,
                    "endpoint": motoSigned + "/",
                ]
            ],
            environment: secret.merging(developer.compactMapValues { $0 }) { $1 }
        )
        let token = try login(serve, "alice")
        let answer = try await postJSON(
            serve,
            "/cognito/developer-identity",
            "",
            headers: [HTTPHeader("Authorization", "Bearer " + token)]
        )
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let issued = try JSONObject(parsing: answer.body, context: "developer identity")
        let identityId = try issued.string("identityId")
        #expect(identityId.hasPrefix("us-east-1:"))
        #expect(try issued.integer("tokenDuration", in: 1...86_400) == 600)
        // The Logins key for us-east-1's pools (moto's token is no JWT: the region's documented issuer).
        #expect(try issued.string("loginsKey") == "cognito-identity.amazonaws.com")

        // Linking: alice's own identity again; a guest identity; bob may not link either of them.
        let bobToken = try login(serve, "bob")
        func link(_ token: String, _ id: String) async throws -> (status: Int, code: String?, body: [UInt8]) {
            try await postJSON(
                serve,
                "/cognito/developer-identity",
                #"{"identityId":"\#(id)"}"#,
                headers: [HTTPHeader("Authorization", "Bearer " + token)]
            )
        }
        let again = try await link(token, identityId)
        #expect(again.status == 200)
        #expect(try JSONObject(parsing: again.body, context: "link").string("identityId") == identityId)
        let stolen = try await link(bobToken, identityId)
        #expect(stolen.status == 403, "moto would link it: the server's record of whose identity it is refuses")
        #expect(stolen.code == "NotPermitted")
        // An identity the server has no record of is asked about first (DescribeIdentity,
        // LookupDeveloperIdentity), which moto does not implement: the link is refused (fail closed).
        // DeveloperIdentityLinkTests covers the guest path with scripted answers.
        let guest = "us-east-1:" + UUID().uuidString.lowercased()
        let unasked = try await link(token, guest)
        #expect(unasked.status == 502)
        #expect(unasked.code == "UpstreamFailure")
        #expect(try await link(token, "not an identity id").status == 400)

        let tokenFile = try temporaryFile(try issued.string("token"), name: "developer-token")
        let credentials = try authcore(
            [
                "identity", "credentials", "--region", "us-east-1", "--identity-id", identityId, "--token-file",
                tokenFile,
                "--logins-key", "cognito-identity.amazonaws.com", "--endpoint",
                try peerEnvironment("AUTHCORE_MOTO_URL") + "/",
            ])
        #expect(credentials.status == 0, "\(credentials.stderr)")
        let printed = try JSONObject(parsing: Array(credentials.stdout.utf8), context: "identity credentials")
        #expect(try !printed.string("accessKeyId").isEmpty)

        let anonymous = try await postJSON(serve, "/cognito/developer-identity", "")
        #expect(anonymous.status == 401)
        #expect(anonymous.code == "Unauthorized")
    }
}
