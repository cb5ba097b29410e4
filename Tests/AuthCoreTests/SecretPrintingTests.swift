import AuthCore
import AuthCoreTestSupport
import Testing

/// No secret in `description`, `debugDescription`, `String(reflecting:)`, `dump` or `Mirror`: one
/// test per public type of AuthCore that holds a secret, each with a marker secret that must not
/// appear in any printed form.
@Suite("Secret-bearing values print no secret, by any route")
struct SecretPrintingTests {
    static let secretKey = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETMARKER"
    static let token = "FQoGZXIvYXdzTOKENMARKER0123456789"

    static func credentials() throws -> Credentials {
        try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: secretKey, sessionToken: token)
    }

    @Test("Credentials, SecureBytes and BigUInt")
    func basics() throws {
        expectNoSecret(try Self.credentials(), [Self.secretKey, Self.token])
        expectNoSecret(SecureBytes(Array(Self.secretKey.utf8)), [Self.secretKey, "119, 74, 97"])
        let secret = try BigUInt(hex: "deadbeefcafe0123456789")
        expectNoSecret(secret, ["deadbeef", "269202357981224908541667209"])
    }

    @Test("HTTPHeader: credential headers are redacted, others shown")
    func headers() {
        let authorization = HTTPHeader("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/… Signature=\(Self.token)")
        expectNoSecret(authorization, [Self.token])
        expectNoSecret(
            [HTTPHeader("x-amz-security-token", Self.token), HTTPHeader("X-OSS-Security-Token", Self.token)],
            [Self.token]
        )
        #expect("\(HTTPHeader("Host", "example.com"))" == "Host: example.com")
        #expect("\(authorization)" == "Authorization: <redacted>")
    }

    @Test("SigV4Signature (header and presigned), SigV4Request with a body")
    func sigV4() throws {
        let signer = try SigV4Signer(credentials: try Self.credentials(), region: "us-east-1", service: "s3")
        let request = SigV4Request(
            method: "PUT",
            target: "/b/k",
            headers: [HTTPHeader("Host", "s3.amazonaws.com")],
            payload: .bytes(Array(Self.secretKey.utf8))
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        let signature = try signer.sign(request, at: time, keepingCanonicalRequest: true)
        #expect(signature.headers.contains { $0.value == Self.token })  // the token is there to send...
        expectNoSecret(signature, [Self.token, signature.signature])  // ...but never printed
        let presigned = try signer.presign(request, at: time, expires: 60, keepingCanonicalRequest: true)
        expectNoSecret(presigned, [Self.token])
        expectNoSecret(request, [Self.secretKey, "119, 74, 97"])
        expectNoSecret(signer, [Self.secretKey, Self.token])
    }

    @Test("RequestURL: a presigned URL's session token is redacted in description, kept in absoluteString")
    func presignedURL() throws {
        let url = try RequestURL(
            "https://b.s3.amazonaws.com/k?X-Amz-Date=20261201T120000Z&X-Amz-Security-Token=\(Self.token)&X-Amz-Signature=ab"
        )
        expectNoSecret(url, [Self.token])
        #expect(url.absoluteString.contains(Self.token))
        #expect(url.description.contains("X-Amz-Security-Token=<redacted>&X-Amz-Signature=ab"))
    }

    @Test("OSSSignature (V1 and V4) and OSSRequest with a security-token parameter")
    func oss() throws {
        let credentials = try Self.credentials()
        let request = OSSRequest(
            method: "GET",
            target: "/k?security-token=\(Self.token)",
            headers: [HTTPHeader("Date", "Tue, 01 Dec 2026 12:00:00 GMT")],
            bucket: "b",
            key: "k"
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        for signer in [
            try OSSSigner(credentials: credentials, version: .v1),
            try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou"),
        ] {
            let signature = try signer.sign(request, at: time)
            expectNoSecret(signature, [Self.token, signature.signature])
            expectNoSecret(signer, [Self.secretKey, Self.token])
        }
        expectNoSecret(request, [Self.token])
    }

    @Test("Alibaba Cloud RPC and ACS3 signers and signatures (STS credentials)")
    func aliyun() throws {
        let credentials = try Self.credentials()
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        let rpc = AliyunRPCSigner(credentials: credentials)
        let rpcSignature = try rpc.sign(
            action: "AssumeRole",
            version: "2015-04-01",
            parameters: [("Policy", "{}")],
            at: time,
            nonce: "n1"
        )
        expectNoSecret(rpc, [Self.secretKey, Self.token])
        expectNoSecret(rpcSignature, [Self.token, rpcSignature.signature])
        let acs3 = AliyunACS3Signer(credentials: credentials)
        let request = SigV4Request(
            method: "GET",
            target: "/",
            headers: [HTTPHeader("host", "h"), HTTPHeader("x-acs-action", "A"), HTTPHeader("x-acs-version", "1")]
        )
        let acs3Signature = try acs3.sign(request, at: time, nonce: "n2", keepingCanonicalRequest: true)
        expectNoSecret(acs3, [Self.secretKey, Self.token])
        expectNoSecret(acs3Signature, [Self.token, acs3Signature.signature])
        let longTerm = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Self.secretKey)
        expectNoSecret(
            try OSSSigningAuthority(credentials: longTerm, policy: OSSSigningPolicy(buckets: ["b"], keyPrefixes: [""])),
            [Self.secretKey]
        )
    }

    @Test("Digest: the bytes are not printed (a digest may be a MAC or a key)")
    func digest() {
        let mac = Array(Self.secretKey.utf8).withUnsafeBytes {
            HashAlgorithm.sha256.authenticationCode(for: $0, using: $0)
        }
        expectNoSecret(mac, [mac.hexLowercased, String(mac.bytes[0]) + ", " + String(mac.bytes[1])])
        #expect("\(mac)" == "Digest(32 bytes)")
    }

    @Test("SRP sessions, verifier, Cognito claim and device verifier")
    func srp() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let password = SecureBytes(Array("correct horse battery staple".utf8))
        let verifier = try configuration.makeVerifier(username: Array("alice".utf8), password: password)
        let server = SRPServer(configuration: configuration)
        let client = SRPClient(configuration: configuration)
        let serverEphemeral = try server.makeEphemeral(verifier: verifier)
        let b = serverEphemeral.serverPublicValue
        let clientEphemeral = try client.makeEphemeral()
        let a = clientEphemeral.publicValue
        let session = try client.processChallenge(
            username: Array("alice".utf8),
            password: password,
            salt: verifier.salt,
            serverPublicValue: b,
            ephemeral: clientEphemeral
        )
        let serverSession = try server.verifyClient(
            username: Array("alice".utf8),
            verifier: verifier,
            clientPublicValue: a,
            clientProof: session.clientProof,
            ephemeral: serverEphemeral
        )
        let key = try session.verifyServerProof(serverSession.serverProof)
        let keyHex = key.withUnsafeBytes { Hex.encode($0) }
        let m2Hex = Hex.encode(serverSession.serverProof)
        expectNoSecret(session, [keyHex, m2Hex, Hex.encode(session.serverProof)])
        expectNoSecret(serverSession, [keyHex])
        expectNoSecret(verifier, [verifier.verifier.hexLowercased])

        let device = try CognitoDeviceVerifier(
            deviceGroupKey: "-grp",
            deviceKey: "us-east-1_dev",
            devicePassword: password,
            salt: BigUInt(bigEndianBytes: [1, 2, 3])
        )
        expectNoSecret(device, [device.passwordVerifier, device.verifier.hexLowercased])
    }
}
