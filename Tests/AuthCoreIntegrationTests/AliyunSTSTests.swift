import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Alibaba Cloud STS `AssumeRole` against the loopback stand-in (scripts/aliyun_sts_server.py),
/// which recomputes every RPC signature with aliyun-python-sdk-core and every ACS3 signature with
/// alibabacloud-openapi-util, refuses reused nonces and stale timestamps, and vends the STS pair the
/// oss2-verifying OSS server (scripts/oss_verify_server.py) accepts.
@Suite("Alibaba Cloud STS AssumeRole against an SDK-verifying stand-in", .serialized)
struct AliyunSTSTests {
    let endpoint: String
    let roleArn: String
    let caller: Credentials
    let callerEnvironment: [String: String?]

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_ALIYUN_STS_URL")
        roleArn = try peerEnvironment("AUTHCORE_ALIYUN_ROLE_ARN")
        let id = try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_ID")
        let secret = try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_SECRET")
        caller = try Credentials(accessKeyId: id, secretAccessKey: secret)
        callerEnvironment = [
            "ALIBABA_CLOUD_ACCESS_KEY_ID": id, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": secret, "OSS_ACCESS_KEY_ID": nil,
            "OSS_ACCESS_KEY_SECRET": nil,
        ]
    }

    func client(
        _ style: AliyunSTSClient.SignatureStyle = .rpc,
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        skew: ClockSkewTracker? = nil
    ) throws -> AliyunSTSClient {
        try AliyunSTSClient(endpoint: endpoint + "/", clock: clock, random: random, signatureStyle: style, skew: skew)
    }

    func refusal(_ body: () async throws -> AliyunAssumedRole) async -> AuthCoreError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? AuthCoreError
        }
    }

    /// `authcore oss send` with the given STS credentials against the oss2-verifying server.
    func ossSend(
        _ arguments: [String],
        key: String,
        credentials: (id: String, secret: String, token: String?),
        version: String = "v4"
    ) throws
        -> ProcessResult
    {
        let bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        return try authcore(
            [
                "oss", "send", "--bucket", bucket, "--version", version, "--region",
                try peerEnvironment("AUTHCORE_OSS_REGION"),
            ] + arguments
                + ["\(try peerEnvironment("AUTHCORE_OSS_URL"))/\(bucket)/\(key)"],
            environment: [
                "OSS_ACCESS_KEY_ID": credentials.id, "OSS_ACCESS_KEY_SECRET": credentials.secret,
                "OSS_SECURITY_TOKEN": credentials.token,
            ]
        )
    }

    @Test(
        "authcore aliyun sts assume-role (RPC and ACS3): accepted with the right secret, its credentials then sign OSS V1 and V4 requests with the token; a wrong secret is refused",
        arguments: ["rpc", "acs3"]
    )
    func commandLine(signature: String) throws {
        let arguments = [
            "aliyun", "sts", "assume-role", "--role-arn", roleArn, "--role-session-name", "cli-\(signature)",
            "--duration-seconds", "900",
            "--endpoint", endpoint + "/", "--signature", signature,
        ]
        let shown = try authcore(arguments + ["--show-secrets"], environment: callerEnvironment)
        #expect(shown.status == 0, "\(shown.stderr)")
        let token = try JSONDecoder().decode([String: AnyCodable].self, from: Data(shown.stdout.utf8))
        #expect(token["StatusCode"]?.int == 200)
        let id = try #require(token["AccessKeyId"]?.string)
        let secret = try #require(token["AccessKeySecret"]?.string)
        let securityToken = try #require(token["SecurityToken"]?.string)
        #expect(id == (try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_ID")))
        let expiration = try Timestamp(iso8601: try #require(token["Expiration"]?.string))
        #expect((800...901).contains(SystemClock().now().seconds(until: expiration)), "\(expiration)")
        for version in ["v1", "v4"] {
            let key = "sts-\(signature)-\(version).txt"
            let put = try ossSend(
                ["-X", "PUT", "-d", "from assume-role"],
                key: key,
                credentials: (id, secret, securityToken),
                version: version
            )
            #expect(put.status == 0, "\(version): \(put.stderr)")
            let get = try ossSend([], key: key, credentials: (id, secret, securityToken), version: version)
            #expect(get.stdout == "from assume-role", "\(version): \(get.stderr)")
            let withoutToken = try ossSend([], key: key, credentials: (id, secret, nil), version: version)
            #expect(withoutToken.status == 1, "the STS pair needs its token")
        }
        // Without --show-secrets: the distribute-token.json fields but the secret and the token.
        let hidden = try authcore(arguments, environment: callerEnvironment)
        #expect(hidden.status == 0, "\(hidden.stderr)")
        let keys = try JSONDecoder().decode([String: AnyCodable].self, from: Data(hidden.stdout.utf8)).keys.sorted()
        #expect(keys == ["AccessKeyId", "Expiration", "StatusCode"])

        var wrong = callerEnvironment
        wrong["ALIBABA_CLOUD_ACCESS_KEY_SECRET"] = "not-the-secret"
        let refused = try authcore(arguments, environment: wrong)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: SignatureDoesNotMatch: "), "\(refused.stderr)")
        let usage = try authcore(arguments + ["--duration-seconds", "60"], environment: callerEnvironment)
        #expect(usage.status == 2)
    }

    @Test(
        "the client: credentials with token and expiration, the assumed role's ARN; STS errors keep Code, HTTP status and RequestId"
    )
    func clientCalls() async throws {
        for style in [AliyunSTSClient.SignatureStyle.rpc, .acs3] {
            let assumed = try await client(style).assumeRole(
                roleArn: roleArn,
                roleSessionName: "lib-session",
                durationSeconds: 1200,
                policy: #"{"Version":"1","Statement":[{"Effect":"Allow","Action":"oss:GetObject","Resource":"*"}]}"#,
                externalId: "ext-1",
                credentials: caller
            )
            #expect(assumed.credentials.sessionToken == (try peerEnvironment("AUTHCORE_OSS_SECURITY_TOKEN")))
            #expect(assumed.assumedRoleArn == roleArn + "/lib-session")
            #expect(assumed.requestId?.isEmpty == false)
            let remaining = SystemClock().now().seconds(until: try #require(assumed.credentials.expiration))
            #expect((1100...1201).contains(remaining))

            let wrongKey = try Credentials(accessKeyId: caller.accessKeyId, secretAccessKey: "wrong")
            let mismatch = await refusal {
                try await client(style).assumeRole(roleArn: roleArn, roleSessionName: "s1", credentials: wrongKey)
            }
            #expect(mismatch?.serviceErrorType == "SignatureDoesNotMatch")
            #expect(mismatch?.httpStatus == 400)
            #expect(mismatch?.requestId?.isEmpty == false)
            let unknown = await refusal {
                try await client(style).assumeRole(
                    roleArn: roleArn,
                    roleSessionName: "s1",
                    credentials: try Credentials(accessKeyId: "LTAIunknown", secretAccessKey: "x")
                )
            }
            #expect(unknown?.serviceErrorType == "InvalidAccessKeyId.NotFound")
            #expect(unknown?.httpStatus == 404)
            let otherRole = await refusal {
                try await client(style).assumeRole(roleArn: roleArn + "x", roleSessionName: "s1", credentials: caller)
            }
            #expect(otherRole?.serviceErrorType == "EntityNotExist.Role")
        }
    }

    @Test(
        "the stand-in really checks: a reused nonce and a timestamp 20 minutes off are refused (RPC and ACS3); with skew correction the call is re-signed and accepted"
    )
    func replayAndStaleness() async throws {
        for style in [AliyunSTSClient.SignatureStyle.rpc, .acs3] {
            // Two clients drawing the same nonce.
            let seed: UInt64 = style == .rpc ? 0x5EED_0001 : 0x5EED_0002
            _ = try await client(style, random: SeededRandom(seed: seed)).assumeRole(
                roleArn: roleArn,
                roleSessionName: "nonce-a",
                credentials: caller
            )
            let replay = await refusal {
                try await client(style, random: SeededRandom(seed: seed)).assumeRole(
                    roleArn: roleArn,
                    roleSessionName: "nonce-b",
                    credentials: caller
                )
            }
            #expect(replay?.serviceErrorType == "SignatureNonceUsed", "\(style)")
            let stale = await refusal {
                try await client(style, clock: FixedClock(SystemClock().now().adding(seconds: -1200)))
                    .assumeRole(roleArn: roleArn, roleSessionName: "stale", credentials: caller)
            }
            #expect(stale?.serviceErrorType == "InvalidTimeStamp.Expired", "\(style)")
            // With a skew tracker: the refusal's Date is learned and the call signed again (a new nonce).
            let tracker = ClockSkewTracker()
            let corrected = try await client(
                style,
                clock: OffsetClock(SystemClock(), offsetSeconds: -1200),
                skew: tracker
            )
            .assumeRole(roleArn: roleArn, roleSessionName: "skewed", credentials: caller)
            #expect(corrected.credentials.sessionToken != nil, "\(style)")
            #expect(abs(tracker.offset(for: "127.0.0.1") - 1200) <= 5, "learned \(tracker.offset(for: "127.0.0.1")) s")
        }
    }

    @Test("local checks before sending: duration, session name, policy size")
    func localChecks() async throws {
        let client = try client()
        for (duration, name, policy) in [
            (899, "ok-name", nil), (43_201, "ok-name", nil), (900, "a", nil), (900, "bad name", nil),
            (900, "ok-name", String(repeating: "x", count: 2049)),
        ] as [(Int, String, String?)] {
            let error = await refusal {
                try await client.assumeRole(
                    roleArn: roleArn,
                    roleSessionName: name,
                    durationSeconds: duration,
                    policy: policy,
                    credentials: caller
                )
            }
            #expect(error?.code == .invalidParameter, "\(duration) \(name)")
        }
    }

    @Test(
        "refresh through the bound signer: 8-second credentials are renewed before expiry while 8 callers keep sending accepted OSS requests, one AssumeRole per half-lifetime"
    )
    func refreshUnderConcurrency() async throws {
        // 8-second credentials (30 under a sanitizer, whose slowness must not eat the lifetime).
        let lifetime = builtWithSanitizer ? 30 : 8
        let session = "short-\(lifetime)-\(UInt32.random(in: 0...UInt32.max))"
        let source = AliyunAssumeRoleCredentialsProvider(
            client: try client(),
            source: StaticCredentialsProvider(caller),
            roleArn: roleArn,
            roleSessionName: session
        )
        let cache = RefreshingCredentialsProvider(
            source: source,
            safetyMargin: 1,
            minimumLifetime: 3,
            timeLimit: patientTimeLimit
        )
        let bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        let oss = try RequestURL(try peerEnvironment("AUTHCORE_OSS_URL") + "/\(bucket)/refresh-probe.txt")
        let region = try peerEnvironment("AUTHCORE_OSS_REGION")
        let bound = try OSSRequestSigner(source: .credentials(cache), version: .v4, region: region)
        let started = SystemClock().now()
        let outcomes = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var statuses: [Int] = []
                    // Until the first credentials were refreshed twice (a loaded machine may stall a
                    // refresh), at most 150 s.
                    while true {
                        let elapsed = started.seconds(until: SystemClock().now())
                        if elapsed >= 150 { break }
                        if await cache.refreshAttempts >= 3 { break }
                        let credentials = try await cache.credentials()
                        #expect(!credentials.isExpired(at: SystemClock().now()))
                        // The bound signer takes the cache's current credentials for each request.
                        let response = try await bound.send(
                            HTTPRequest(method: "GET", url: oss),
                            bucket: bucket,
                            key: "refresh-probe.txt"
                        )
                        statuses.append(response.status)
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = started.seconds(until: SystemClock().now())
        // 404 NoSuchKey: the signature was accepted, the object is absent; a refused one is 403.
        #expect(!outcomes.isEmpty && outcomes.allSatisfy { $0 == 404 }, "\(Set(outcomes))")
        let calls = try await fetch(endpoint + "/_calls")
        let counts = try JSONDecoder().decode(CallCounts.self, from: Data(calls.body.utf8))
        let assumed = counts.sessions[session] ?? 0
        // Renewed after half the lifetime (less a second of rounding): at least three calls, and at
        // most one per half-lifetime for the 8 callers together, whatever the machine's load.
        let half = Int64(lifetime / 2 - 1)
        #expect(assumed >= 3 && Int64(assumed) <= elapsed / half + 2, "\(assumed) AssumeRole calls in \(elapsed) s")
        #expect(
            assumed <= outcomes.count / 4,
            "\(assumed) calls for \(outcomes.count) requests: callers shared the refreshes"
        )
    }

    /// A home directory whose `~/.aliyun/config.json` has `profiles` (the Alibaba Cloud CLI's format).
    func aliyunHome(_ profiles: [[String: Any]], current: String) throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-aliyun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent(".aliyun"),
            withIntermediateDirectories: true
        )
        try JSONSerialization.data(withJSONObject: ["current": current, "profiles": profiles])
            .write(to: home.appendingPathComponent(".aliyun/config.json"))
        return home.path
    }

    @Test(
        "--profile NAME: aliyun sts assume-role and oss send take the keys of that config.json profile, not the environment's; a missing profile fails"
    )
    func profiles() throws {
        let home = try aliyunHome(
            [
                [
                    "name": "dev", "mode": "AK", "access_key_id": caller.accessKeyId,
                    "access_key_secret": caller.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
                ],
                [
                    "name": "wrong", "mode": "AK", "access_key_id": caller.accessKeyId,
                    "access_key_secret": "not-the-secret",
                ],
                [
                    "name": "sts", "mode": "StsToken",
                    "access_key_id": try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_ID"),
                    "access_key_secret": try peerEnvironment("AUTHCORE_OSS_STS_ACCESS_KEY_SECRET"),
                    "sts_token": try peerEnvironment("AUTHCORE_OSS_SECURITY_TOKEN"),
                ],
            ],
            current: "wrong"
        )
        defer { try? FileManager.default.removeItem(atPath: home) }
        // The environment holds other keys: a named profile wins over them.
        let environment: [String: String?] = [
            "HOME": home, "ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIenvironment",
            "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "env-secret", "OSS_ACCESS_KEY_ID": nil,
            "OSS_ACCESS_KEY_SECRET": nil, "ALIBABA_CLOUD_CREDENTIALS_FILE": home + "/none.ini",
            // Hidden from a named profile: were it used, the missing profile would answer from here.
            "ALIBABA_CLOUD_CREDENTIALS_URI": "http://127.0.0.1:9/credentials",
        ]
        let arguments = [
            "aliyun", "sts", "assume-role", "--role-arn", roleArn, "--role-session-name", "profile", "--endpoint",
            endpoint + "/",
        ]
        let accepted = try authcore(arguments + ["--profile", "dev"], environment: environment)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains(#""StatusCode":200"#))
        let refused = try authcore(arguments + ["--profile", "wrong"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("SignatureDoesNotMatch"), "\(refused.stderr)")
        let missing = try authcore(arguments + ["--profile", "nobody"], environment: environment)
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("profile 'nobody'") && missing.stderr.contains("no profile 'nobody'"),
            "\(missing.stderr)"
        )
        #expect(
            !missing.stderr.contains("ECS metadata") && !missing.stderr.contains("credentials URI"),
            "no instance source stands in: \(missing.stderr)"
        )
        for result in [refused, missing] {
            #expect(
                !result.stderr.contains("not-the-secret") && !result.stderr.contains("env-secret"),
                "no secret in the error"
            )
        }
        let empty = try authcore(arguments + ["--profile", ""], environment: environment)
        #expect(empty.status == 2)

        // oss send with the StsToken profile: the oss2-verifying server accepts it (the token included).
        let bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        let url = "\(try peerEnvironment("AUTHCORE_OSS_URL"))/\(bucket)/profile.txt"
        let oss = [
            "oss", "send", "--bucket", bucket, "--version", "v4", "--region",
            try peerEnvironment("AUTHCORE_OSS_REGION"),
        ]
        let put = try authcore(
            oss + ["--profile", "sts", "-X", "PUT", "-d", "from a profile", url],
            environment: environment
        )
        #expect(put.status == 0, "\(put.stderr)")
        let get = try authcore(oss + ["--profile", "sts", url], environment: environment)
        #expect(get.stdout == "from a profile", "\(get.stderr)")
        let both = try authcore(
            oss + ["--profile", "sts", "--signer-url", "http://127.0.0.1:9/sign", url],
            environment: environment
        )
        #expect(both.status == 2)
    }
}

struct CallCounts: Decodable {
    let sessions: [String: Int]
}

/// A JSON scalar for reading the CLI's output.
struct AnyCodable: Decodable {
    let string: String?
    let int: Int?
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        string = try? container.decode(String.self)
        int = try? container.decode(Int.self)
    }
}
