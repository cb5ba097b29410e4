import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// OSS self-signed mode end to end: `authcore oss … --signer-url` holds no secret; a loopback app
/// server (scripts/oss_signing_server.py, the only holder of the key) signs through
/// `authcore oss sign-string`'s OSSSigningAuthority; the oss2-verifying OSS server
/// (scripts/oss_verify_server.py) checks the result.
@Suite("OSS self-signed mode through a policy-checking signing server", .serialized)
struct OSSSelfSignedTests {
    let endpoint: String
    let bucket: String
    let region: String
    let accessKeyId: String
    let secret: String
    static let session = "app-session-\(UInt32.random(in: 0...UInt32.max))"

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_OSS_URL")
        bucket = try peerEnvironment("AUTHCORE_OSS_BUCKET")
        region = try peerEnvironment("AUTHCORE_OSS_REGION")
        accessKeyId = try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_ID")
        secret = try peerEnvironment("AUTHCORE_OSS_ACCESS_KEY_SECRET")
    }

    func signingServer() throws -> LoopbackScript {
        let policy = try temporaryFile(
            #"{"buckets":["\#(bucket)"],"keyPrefixes":["self/"],"methods":["GET","PUT","HEAD"],"regions":["\#(region)"],"maximumURLLifetime":600}"#,
            name: "policy.json"
        )
        return try LoopbackScript(
            script: "oss_signing_server.py",
            arguments: ["--authcore", authcoreBinary.path, "--policy", policy, "--session-token", Self.session],
            environment: ["OSS_ACCESS_KEY_ID": accessKeyId, "OSS_ACCESS_KEY_SECRET": secret]
        )
    }

    /// No OSS variable at all in the command's environment (OSS_ACCESS_KEY_ID only when asked).
    func environment(keyId: Bool = false) -> [String: String?] {
        [
            "OSS_ACCESS_KEY_ID": keyId ? accessKeyId : nil, "OSS_ACCESS_KEY_SECRET": nil, "OSS_SECURITY_TOKEN": nil,
            "AUTHCORE_SIGNER_HEADERS": "X-App-Session: \(Self.session)",  // the app's own session, from the environment
        ]
    }

    func oss(
        _ action: String,
        _ version: String,
        _ arguments: [String],
        key: String,
        signer: String?,
        environment: [String: String?]
    ) throws
        -> ProcessResult
    {
        let signing =
            signer.map { ["--signer-url", $0 + "/sign", "--signer-header", "X-Request-Source: authcore-tests"] } ?? []
        return try authcore(
            ["oss", action, "--bucket", bucket, "--version", version, "--region", region] + signing + arguments + [
                "\(endpoint)/\(bucket)/\(key)"
            ],
            environment: environment
        )
    }

    @Test(
        "send PUT and GET, V1 and V4, signed by the server; presigned URLs V1 and V4; output byte for byte as with the key",
        arguments: ["v1", "v4"]
    )
    func endToEnd(version: String) async throws {
        let server = try signingServer()
        defer { server.stop() }
        let key = "self/\(version)/object%20one.txt"
        let put = try oss(
            "send",
            version,
            ["-X", "PUT", "-d", "self-signed \(version)"],
            key: key,
            signer: server.url,
            environment: environment()
        )
        #expect(put.status == 0, "\(put.stderr)")
        let get = try oss("send", version, [], key: key, signer: server.url, environment: environment())
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "self-signed \(version)")

        let presigned = try oss(
            "presign",
            version,
            ["--expires", "300"],
            key: key,
            signer: server.url,
            environment: environment(keyId: version == "v4")
        )
        #expect(presigned.status == 0, "\(presigned.stderr)")
        let fetched = try await fetch(presigned.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(fetched.status == 200 && fetched.body == "self-signed \(version)", "\(fetched)")

        // The same command, at the same timestamp, with the key in the environment: the same bytes.
        let now = SystemClock().now()
        let stamp = version == "v1" ? now.rfc1123 : now.amzDate
        let withKey: [String: String?] = [
            "OSS_ACCESS_KEY_ID": accessKeyId, "OSS_ACCESS_KEY_SECRET": secret, "OSS_SECURITY_TOKEN": nil,
        ]
        for action in ["sign", "presign"] {
            let remote = try oss(
                action,
                version,
                ["--timestamp", stamp, "--expires", "300"],
                key: key,
                signer: server.url,
                environment: environment(keyId: true)
            )
            let local = try oss(
                action,
                version,
                ["--timestamp", stamp, "--expires", "300"],
                key: key,
                signer: nil,
                environment: withKey
            )
            #expect(remote.status == 0 && local.status == 0, "\(remote.stderr) \(local.stderr)")
            #expect(remote.stdout == local.stdout)
        }
    }

    @Test(
        "the policy refuses another bucket, a key outside the prefix, a forbidden method, a too-long URL; no session, no signature",
        arguments: ["v1", "v4"]
    )
    func policyRefusals(version: String) throws {
        let server = try signingServer()
        defer { server.stop() }
        let env = environment(keyId: true)
        let otherBucket = try authcore(
            [
                "oss", "send", "--bucket", "other-bucket", "--version", version, "--region", region, "--signer-url",
                server.url + "/sign",
                "\(endpoint)/other-bucket/self/x.txt",
            ],
            environment: env
        )
        #expect(otherBucket.status == 1)
        #expect(
            otherBucket.stderr.contains("NotPermitted")
                && otherBucket.stderr.contains("bucket 'other-bucket' is not allowed"),
            "\(otherBucket.stderr)"
        )
        let outside = try oss("send", version, [], key: "private/x.txt", signer: server.url, environment: env)
        #expect(outside.status == 1)
        #expect(outside.stderr.contains("outside the allowed prefixes"), "\(outside.stderr)")
        let delete = try oss(
            "send",
            version,
            ["-X", "DELETE"],
            key: "self/x.txt",
            signer: server.url,
            environment: env
        )
        #expect(delete.status == 1)
        #expect(delete.stderr.contains("method 'DELETE' is not allowed"), "\(delete.stderr)")
        let long = try oss(
            "presign",
            version,
            ["--expires", "7200"],
            key: "self/x.txt",
            signer: server.url,
            environment: env
        )
        #expect(long.status == 1)
        #expect(long.stderr.contains("longer than the 600 s allowed"), "\(long.stderr)")
        var withoutSession = env
        withoutSession["AUTHCORE_SIGNER_HEADERS"] = .some(nil)
        let anonymous = try authcore(
            [
                "oss", "sign", "--bucket", bucket, "--version", version, "--region", region, "--signer-url",
                server.url + "/sign",
                "\(endpoint)/\(bucket)/self/x.txt",
            ],
            environment: withoutSession
        )
        #expect(anonymous.status == 1)
        #expect(anonymous.stderr.contains("Unauthorized"), "\(anonymous.stderr)")
        let counts =
            try JSONSerialization.jsonObject(with: Data(try fetchSync(server.url + "/_count").utf8)) as? [String: Int]
        #expect(counts?["signed"] == 0, "nothing outside the policy was signed: \(String(describing: counts))")
    }

    @Test(
        "the bound OSS signer in self-signed mode: PUT, GET and a presigned URL through the signing server, V1 and V4",
        arguments: [OSSSigner.Version.v1, .v4]
    )
    func boundSigner(version: OSSSigner.Version) async throws {
        let server = try signingServer()
        defer { server.stop() }
        let provider = try URLSignatureProvider(
            url: try RequestURL(server.url + "/sign"),
            headers: [HTTPHeader("X-App-Session", Self.session)]
        )
        let signer = try OSSRequestSigner(
            source: .signatureProvider(provider, accessKeyId: accessKeyId),
            version: version,
            region: region
        )
        let key = "self/bound-\(version.rawValue).txt"
        let url = try RequestURL("\(endpoint)/\(bucket)/\(key)")
        let put = try await signer.send(
            HTTPRequest(method: "PUT", url: url, body: Array("bound \(version.rawValue)".utf8)),
            bucket: bucket,
            key: key
        )
        #expect(put.status == 200, "\(String(decoding: put.body.plainBytes, as: UTF8.self))")
        let get = try await signer.send(HTTPRequest(method: "GET", url: url), bucket: bucket, key: key)
        #expect(String(decoding: get.body.plainBytes, as: UTF8.self) == "bound \(version.rawValue)")
        let presigned = try await signer.presign(
            OSSRequest(
                method: "GET",
                target: url.target,
                headers: [HTTPHeader("Host", url.hostHeader)],
                bucket: bucket,
                key: key
            ),
            expires: 120
        )
        let fetched = try await fetch(url.origin + (presigned.signedURI ?? ""))
        #expect(fetched.status == 200 && fetched.body == "bound \(version.rawValue)")
    }

    @Test(
        "a V4 string to sign without its canonical request is refused; one whose canonical request does not hash to it is malformed"
    )
    func blindV4Refused() throws {
        let policy = OSSSigningPolicy(buckets: [bucket], keyPrefixes: ["self/"], regions: [region])
        let authority = try OSSSigningAuthority(
            credentials: try Credentials(accessKeyId: accessKeyId, secretAccessKey: secret),
            policy: policy
        )
        let signer = try OSSDetachedSigner(version: .v4, region: region)
        let now = SystemClock().now()
        let request = OSSRequest(
            method: "GET",
            target: "/\(bucket)/self/a",
            headers: [HTTPHeader("Host", "h")],
            bucket: bucket,
            key: "self/a"
        )
        let pending = try signer.prepare(request, at: now)
        var blind = OSSSignatureRequest(pending)
        blind.canonicalRequest = nil
        #expect(throws: AuthCoreError(.notPermitted, "")) { try authority.sign(blind, at: now) }
        var forged = OSSSignatureRequest(pending)
        forged.canonicalRequest = pending.canonicalRequest?.replacingOccurrences(of: "self/a", with: "self/b")
        #expect(throws: AuthCoreError(.malformedRequest, "")) { try authority.sign(forged, at: now) }
        #expect(try authority.sign(OSSSignatureRequest(pending), at: now).accessKeyId == accessKeyId)
    }
}

/// A blocking GET (for a test that is not async).
func fetchSync(_ url: String) throws -> String {
    guard let target = URL(string: url) else { throw PeerError(description: "bad URL \(url)") }
    return try String(contentsOf: target, encoding: .utf8)
}
