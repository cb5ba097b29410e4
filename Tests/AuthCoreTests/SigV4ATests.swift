import AuthCore
import Testing

/// SigV4a: the key derivation, ECDSA signing and verification, the signer's checks. The suite's
/// cases (canonical requests, strings to sign, the derived key) run as vectors
/// (`vectors/sigv4a-aws-suite.json`); these tests hold what a vector cannot say.
@Suite("SigV4a: key derivation, ECDSA P-256, signer")
struct SigV4ATests {
    /// The AWS SigV4 test credentials, and the P-256 point the AWS Common Runtime's derivation gives
    /// for them (aws-c-auth tests/aws-signing-test-suite/v4a/*/public-key.json, commit 495329c).
    let credentials = try! Credentials(
        accessKeyId: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    )
    let suiteX = "b6618f6a65740a99e650b33b6b4b5bd0d43b176d721a3edfea7e7d2d56d936b1"
    let suiteY = "865ed22a7eadc9c5cb9d2cbaca1b3699139fedc5043dc6661864218330c8e518"

    @Test("the derived key is the AWS Common Runtime's for the suite's credentials; the token plays no part")
    func derivation() throws {
        let key = try SigV4AKey(credentials: credentials)
        #expect(Hex.encode(key.publicKeyX) == suiteX)
        #expect(Hex.encode(key.publicKeyY) == suiteY)
        #expect(key.publicKey.count == 65 && key.publicKey[0] == 0x04)
        let withToken = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: "token"
        )
        #expect(try SigV4AKey(credentials: withToken).publicKey == key.publicKey)
        let otherId = try Credentials(
            accessKeyId: "AKIDEXAMPLF",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        )
        #expect(
            try SigV4AKey(credentials: otherId).publicKey != key.publicKey,
            "the access key id is part of the derivation"
        )
    }

    @Test(
        "a candidate ending in 0xFF: the + 1 carries (the point checked against ministack's derivation, over cryptography)"
    )
    func carry() throws {
        // HMAC gives k0 = bd75…8cf0ff for this secret, so d = k0 + 1 ends in …f100.
        let key = try SigV4AKey(credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "carry-235"))
        #expect(Hex.encode(key.publicKeyX) == "309dce14e65d7ade9d6d174ed71aa276524667079ef0de0bea3b55e354fbf51e")
    }

    @Test("signatures are DER, randomized, verify under the public key, and fail for another message or key")
    func signAndVerify() throws {
        let key = try SigV4AKey(credentials: credentials)
        let message = Array("AWS4-ECDSA-P256-SHA256\n20150830T123600Z\n20150830/service/aws4_request\n00".utf8)
        let first = try message.withUnsafeBytes { try key.signature(for: $0) }
        let second = try message.withUnsafeBytes { try key.signature(for: $0) }
        #expect(first.first == 0x30 && (8...72).contains(first.count), "a DER SEQUENCE of two INTEGERs")
        #expect(first != second, "ECDSA draws a fresh nonce per signature")
        #expect(try SigV4AKey.isValidSignature(first, for: message, publicKey: key.publicKey))
        #expect(try SigV4AKey.isValidSignature(second, for: message, publicKey: key.publicKey))
        #expect(try !SigV4AKey.isValidSignature(first, for: message + [0x0A], publicKey: key.publicKey))
        let other = try SigV4AKey(
            credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "another secret")
        )
        #expect(try !SigV4AKey.isValidSignature(first, for: message, publicKey: other.publicKey))
        var flipped = first
        flipped[flipped.count - 1] ^= 1
        #expect(try !SigV4AKey.isValidSignature(flipped, for: message, publicKey: key.publicKey))
        #expect(try !SigV4AKey.isValidSignature([], for: message, publicKey: key.publicKey))
    }

    @Test(
        "one key signs on many threads at once: its signing contexts are reused, at most four kept, every signature valid"
    )
    func concurrentSigning() async throws {
        let key = try SigV4AKey(credentials: credentials)
        let message = Array("AWS4-ECDSA-P256-SHA256\n20150830T123600Z\n20150830/service/aws4_request\n01".utf8)
        #expect(key.idleSigningContexts == 0)
        _ = try message.withUnsafeBytes { try key.signature(for: $0) }
        #expect(key.idleSigningContexts == 1, "the context goes back to the key after a signature")
        let signatures = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { try (0..<25).map { _ in try message.withUnsafeBytes { try key.signature(for: $0) } } }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(signatures.count == 200)
        #expect(Set(signatures).count == 200, "a fresh nonce for every signature, whichever context made it")
        for signature in signatures {
            #expect(try SigV4AKey.isValidSignature(signature, for: message, publicKey: key.publicKey))
        }
        #expect((1...SigV4AKey.keptSigningContexts).contains(key.idleSigningContexts))
    }

    @Test("a public key that is not an uncompressed P-256 point is refused")
    func badPublicKey() throws {
        let key = try SigV4AKey(credentials: credentials)
        var offCurve = key.publicKey
        offCurve[64] ^= 1
        for bad in [offCurve, Array(key.publicKey.prefix(33)), [0x02] + Array(key.publicKey.dropFirst()), []] {
            #expect(throws: AuthCoreError.self) { try SigV4AKey.isValidSignature([0x30, 0], for: [1], publicKey: bad) }
        }
    }

    @Test("the key cache derives once per credentials and keys by secret, not by access key id alone")
    func keyCache() throws {
        let cache = SigV4AKeyCache(capacity: 2)
        let a = try cache.key(for: credentials)
        #expect(try cache.key(for: credentials) === a)
        let rotated = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "a rotated secret")
        #expect(try cache.key(for: rotated) !== a)
        #expect(try cache.key(for: credentials) === a, "used again: now the most recent")
        _ = try cache.key(for: Credentials(accessKeyId: "AKID3", secretAccessKey: "third"))
        #expect(try cache.key(for: credentials) === a, "the least recently used (the rotated key) left, not the oldest")
        #expect(cache.count == 2)
        #expect("\(cache)" == "SigV4AKeyCache(2 of 2)")
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(try cache.key(for: credentials) !== a, "derived again after removeAll")
    }

    @Test(
        "the signer: region sets are checked, the scope has no region, the header carries the set and its signature verifies"
    )
    func signer() throws {
        for bad in [[String](), [""], ["us east-1"], ["us-east-1,eu-west-1"], ["a/b"]] {
            #expect(throws: AuthCoreError.self) {
                try SigV4ASigner(credentials: credentials, regionSet: bad, service: "s3")
            }
        }
        let signer = try SigV4ASigner(
            credentials: credentials,
            regionSet: ["us-east-1", "eu-*"],
            service: "s3",
            options: .s3
        )
        let request = SigV4Request(
            method: "GET",
            target: "/bucket/key",
            headers: [HTTPHeader("Host", "example.com")],
            payload: .unsigned
        )
        let time = try Timestamp(amzDate: "20150830T123600Z")
        let signed = try signer.sign(request, at: time, keepingCanonicalRequest: true)
        #expect(signed.scope == "20150830/s3/aws4_request")
        #expect(
            signed.headers.map(\.name) == ["X-Amz-Date", "X-Amz-Region-Set", "X-Amz-Content-SHA256", "Authorization"]
        )
        #expect(signed.headers[1].value == "us-east-1,eu-*")
        #expect(signed.canonicalRequest?.contains("\nx-amz-region-set:us-east-1,eu-*\n") == true)
        let authorization = try #require(signed.authorization)
        #expect(
            authorization.hasPrefix(
                "AWS4-ECDSA-P256-SHA256 Credential=AKIDEXAMPLE/20150830/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-region-set, Signature="
            )
        )
        #expect(authorization.hasSuffix(signed.signature))
        #expect(
            try SigV4AKey.isValidSignature(
                signed.signatureBytes,
                for: signed.stringToSignBytes,
                publicKey: signer.key.publicKey
            )
        )
        // A request's own X-Amz-Region-Set is replaced, not signed twice.
        let own = SigV4Request(
            method: "GET",
            target: "/bucket/key",
            headers: [HTTPHeader("Host", "example.com"), HTTPHeader("X-Amz-Region-Set", "*")],
            payload: .unsigned
        )
        #expect(
            try signer.sign(own, at: time, keepingCanonicalRequest: true).canonicalRequest == signed.canonicalRequest
        )
        let url = try signer.presign(request, at: time, expires: 60)
        #expect(url.signedURI?.contains("X-Amz-Region-Set=us-east-1%2Ceu-%2A") == true)
        #expect(url.signedURI?.contains("X-Amz-Algorithm=AWS4-ECDSA-P256-SHA256") == true)
        #expect(
            try SigV4AKey.isValidSignature(
                url.signatureBytes,
                for: url.stringToSignBytes,
                publicKey: signer.key.publicKey
            )
        )
    }

    @Test("no secret, token or signature in descriptions")
    func printing() throws {
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        let withToken = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: secret,
            sessionToken: "the-session-token"
        )
        let signer = try SigV4ASigner(credentials: withToken, regionSet: ["*"], service: "sts")
        let signed = try signer.sign(
            SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "example.com")], payload: .unsigned),
            at: Timestamp(secondsSince1970: 1_440_938_160)
        )
        for text in [
            "\(signer)", String(reflecting: signer), "\(signed)", String(reflecting: signed), "\(signer.key)",
            String(reflecting: signer.key),
        ] {
            #expect(
                !text.contains(secret) && !text.contains("the-session-token") && !text.contains(signed.signature),
                "\(text)"
            )
        }
    }
}
