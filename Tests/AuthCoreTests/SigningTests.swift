import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("SigV4 signer: guards, chunked uploads, key cache")
struct SigV4SignerTests {
    let credentials = try! Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    )  // test constant
    let time = Timestamp(year: 2013, month: 5, day: 24)!

    // Amazon S3 API Reference, "Signature Calculations for the Authorization Header: Transferring Payload
    // in Multiple Chunks", Example: PUT Object (66560 bytes of 'a' in a 64 KiB and a 1 KiB chunk).
    func chunkedExampleRequest() throws -> SigV4Request {
        SigV4Request(
            method: "PUT",
            target: "/examplebucket/chunkObject.txt",
            headers: [
                HTTPHeader("Host", "s3.amazonaws.com"), HTTPHeader("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                HTTPHeader("Content-Encoding", "aws-chunked"), HTTPHeader("x-amz-decoded-content-length", "66560"),
                HTTPHeader(
                    "Content-Length",
                    String(try SigV4ChunkSigner.encodedLength(decodedLength: 66560, chunkSize: 65536))
                ),
            ],
            payload: .streaming
        )
    }

    @Test("aws-chunked signatures match the AWS documentation's example, seed to final chunk")
    func chunkedDocumentationExample() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        let seed = try signer.sign(try chunkedExampleRequest(), at: time)
        #expect(seed.signature == "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
        #expect(seed.headers.map(\.name) == ["X-Amz-Date", "X-Amz-Content-SHA256", "Authorization"])
        #expect(seed.headers[1].value == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
        var chunks = SigV4ChunkSigner(signer: signer, seed: seed)
        let data = [UInt8](repeating: UInt8(ascii: "a"), count: 66560)
        let first = data[0..<65536].withUnsafeBytes { chunks.header(forChunk: $0) }
        #expect(
            String(decoding: first, as: UTF8.self)
                == "10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n"
        )
        let second = data[65536...].withUnsafeBytes { chunks.sign(chunk: $0) }
        #expect(second == "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
        let final = [UInt8]().withUnsafeBytes { chunks.encode(chunk: $0) }
        #expect(
            String(decoding: final, as: UTF8.self)
                == "0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n"
        )
        #expect(try SigV4ChunkSigner.encodedLength(decodedLength: 66560, chunkSize: 65536) == 66824)
    }

    @available(*, deprecated, message: "exercises the deprecated initialiser on purpose")
    @Test(
        "the chunk chain is keyed by the seed's day: the deprecated init's time, a day later, changes nothing (the AWS example's signatures)"
    )
    func chunkChainKeyedBySeedDate() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        let seed = try signer.sign(try chunkedExampleRequest(), at: time)
        var chunks = SigV4ChunkSigner(signer: signer, seed: seed, at: time.adding(seconds: 86_400))
        let data = [UInt8](repeating: UInt8(ascii: "a"), count: 65536)
        #expect(
            data.withUnsafeBytes { chunks.sign(chunk: $0) }
                == "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"
        )
    }

    @Test(
        "the key cache tells canonically equivalent regions apart (é precomposed and decomposed): each signs as with a cache of its own"
    )
    func keyCacheComparesBytes() throws {
        let shared = SigningKeyCache(capacity: 4)
        let request = SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "example.com")])
        for region in ["r\u{E9}gion", "re\u{301}gion", "r\u{E9}gion"] {
            let viaShared = try SigV4Signer(credentials: credentials, region: region, service: "s3", keyCache: shared)
                .sign(request, at: time)
            let alone = try SigV4Signer(
                credentials: credentials,
                region: region,
                service: "s3",
                keyCache: SigningKeyCache(capacity: 1)
            )
            .sign(request, at: time)
            #expect(viaShared.signature == alone.signature)
        }
    }

    func presignRequest() -> SigV4Request {
        SigV4Request(
            method: "GET",
            target: "/bucket/key",
            headers: [HTTPHeader("Host", "s3.amazonaws.com")],
            payload: .unsigned
        )
    }

    @Test("presign expiry must be 1...604800 seconds", arguments: [0, -1, 604_801, Int.max])
    func expiryBounds(expires: Int) throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        #expect(errorCode { try signer.presign(presignRequest(), at: time, expires: expires) } == .invalidParameter)
        #expect(try signer.presign(presignRequest(), at: time, expires: 604_800).expires == 604_800)
    }

    @Test("a presigned URL may not outlive the credentials, unless asked to clamp")
    func expiryVersusCredentials() throws {
        let temporary = try Credentials(
            accessKeyId: "ASIAEXAMPLE",
            secretAccessKey: "secret",
            sessionToken: "token/with+chars=",
            expiration: time.adding(seconds: 900)
        )
        let signer = try SigV4Signer(credentials: temporary, region: "us-east-1", service: "s3", options: .s3)
        #expect(errorCode { try signer.presign(presignRequest(), at: time, expires: 3600) } == .expired)
        let clamped = try signer.presign(presignRequest(), at: time, expires: 3600, policy: .clampToCredentials)
        #expect(clamped.expires == 900)
        #expect(clamped.signedURI?.contains("X-Amz-Expires=900&") == true)
        #expect(clamped.signedURI?.contains("X-Amz-Security-Token=token%2Fwith%2Bchars%3D") == true)
        #expect(try signer.presign(presignRequest(), at: time, expires: 900).expires == 900)
        #expect(
            errorCode { try signer.presign(presignRequest(), at: time.adding(seconds: 900), expires: 1) } == .expired
        )
    }

    @Test("malformed requests are typed errors, never crashes")
    func malformedRequests() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let host = HTTPHeader("Host", "example.com")
        let bad: [SigV4Request] = [
            SigV4Request(method: "", target: "/", headers: [host]),
            SigV4Request(method: "GE T", target: "/", headers: [host]),
            SigV4Request(method: "GET", target: "/", headers: []),
            SigV4Request(method: "GET", target: "/", headers: [host, HTTPHeader("X-Bad", "a\r\nInjected: 1")]),
            SigV4Request(method: "GET", target: "/", headers: [host, HTTPHeader("Bad Name", "x")]),
            SigV4Request(method: "GET", target: "relative", headers: [host]),
            SigV4Request(method: "GET", target: "/a\u{01}", headers: [host]),
            SigV4Request(method: "GET", target: "/a?b=\u{7F}", headers: [host]),
            SigV4Request(method: "GET", target: "/abcdefgh\u{0}ijk", headers: [host]),
            SigV4Request(method: "GET", target: "/a?x=1&y=\t", headers: [host]),
            SigV4Request(method: "GET", target: "/", headers: [host], payload: .precomputedHash("abc")),
            SigV4Request(
                method: "GET",
                target: "/",
                headers: [host],
                payload: .precomputedHash(String(repeating: "g", count: 64))
            ),
        ]
        let standard = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
        for request in bad {
            #expect(errorCode { try signer.sign(request, at: time) } == .malformedRequest)
            #expect(errorCode { try standard.sign(request, at: time) } == .malformedRequest)
            #expect(errorCode { try signer.presign(request, at: time, expires: 60) } == .malformedRequest)
        }
        #expect(errorCode { try SigV4Signer(credentials: credentials, region: "", service: "s3") } == .invalidParameter)
        #expect(
            errorCode { try SigV4Signer(credentials: credentials, region: "us/east", service: "s3") }
                == .invalidParameter
        )
    }

    @Test(
        "a header problem's error names the field it was found in (the problem carries the field's index in the request)"
    )
    func headerProblemNamesTheField() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let acs3 = AliyunACS3Signer(credentials: credentials)
        func reason(_ body: () throws -> Any) -> String? {
            do { _ = try body() } catch let error as AuthCoreError { return error.reason } catch { return "\(error)" }
            return nil
        }
        // Unsigned fields come before the bad one (SigV4 does not sign Authorization, ACS3 signs only
        // host, content-type and x-acs-*), so the request's index differs from the table's.
        let host = HTTPHeader("Host", "example.com")
        let old = HTTPHeader("Authorization", "AWS4-HMAC-SHA256 old")
        let badValue = SigV4Request(
            method: "GET",
            target: "/",
            headers: [old, host, HTTPHeader("X-Ok", "1"), HTTPHeader("X-Ctl", "a\u{01}b")]
        )
        let badName = SigV4Request(
            method: "GET",
            target: "/",
            headers: [old, host, HTTPHeader("X-Ok", "1"), HTTPHeader("Bad(Name", "x")]
        )
        for sign in [
            { try signer.sign(badValue, at: time) }, { try signer.presign(badValue, at: time, expires: 60) },
        ] as [() throws -> Any] {
            #expect(
                reason(sign) == "header 'X-Ctl' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)"
            )
        }
        for sign in [{ try signer.sign(badName, at: time) }, { try signer.presign(badName, at: time, expires: 60) }]
            as [() throws -> Any]
        {
            #expect(reason(sign) == "header name 'Bad(Name' is not an HTTP token")
        }
        let acs3BadValue = SigV4Request(
            method: "GET",
            target: "/",
            headers: [
                HTTPHeader("User-Agent", "a"), HTTPHeader("Accept", "b"), host,
                HTTPHeader("x-acs-action", "AssumeRole"),
                HTTPHeader("x-acs-version", "2015-04-01"), HTTPHeader("X-Acs-Ctl", "a\u{01}b"),
            ]
        )
        #expect(
            reason { try acs3.sign(acs3BadValue, at: time, nonce: "n") }
                == "header 'X-Acs-Ctl' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)"
        )
    }

    @Test("re-signing replaces the previous signature headers")
    func resign() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
        var request = SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "sts.amazonaws.com")])
        let first = try signer.sign(request, at: time)
        request.headers += first.headers
        let second = try signer.sign(request, at: time)
        #expect(second.signature == first.signature)
        #expect(second.headers.map(\.name) == ["X-Amz-Date", "Authorization"])
    }

    @Test("the canonical request is kept only when asked, and it is the one that was signed")
    func canonicalRequestKeptOnRequest() throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
        let request = SigV4Request(
            method: "GET",
            target: "/?b=2&a=1",
            headers: [HTTPHeader("Host", "sts.amazonaws.com")]
        )
        let plain = try signer.sign(request, at: time)
        let kept = try signer.sign(request, at: time, keepingCanonicalRequest: true)
        #expect(plain.canonicalRequest == nil)
        #expect(plain.signature == kept.signature)
        let canonical = try #require(kept.canonicalRequestBytes)
        #expect(
            kept.canonicalRequest
                == "GET\n/\na=1&b=2\nhost:sts.amazonaws.com\nx-amz-date:20130524T000000Z\n\nhost;x-amz-date\n"
                + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(plain.stringToSign.hasSuffix("\n" + SHA256.hash(bytes: canonical).hexLowercased))
        let presigned = try signer.presign(request, at: time, expires: 60)
        let presignedKept = try signer.presign(request, at: time, expires: 60, keepingCanonicalRequest: true)
        #expect(presigned.canonicalRequest == nil)
        #expect(presignedKept.signedURI == presigned.signedURI)
        // Upper-case X-Amz-* parameters sort before the request's own lower-case ones.
        let presignedCanonical = try #require(presignedKept.canonicalRequest)
        #expect(presignedCanonical.hasPrefix("GET\n/\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="))
        #expect(presignedCanonical.contains("&X-Amz-SignedHeaders=host&a=1&b=2\nhost:sts.amazonaws.com\n\nhost\n"))
    }

    /// Paths whose `//` or `/.` straddles an eight-byte word, and bytes that must be encoded, go
    /// through the normaliser; canonical paths are copied (standard rules: normalise, encode again).
    @Test(
        "canonical URI: word-boundary slashes and dots, encoding",
        arguments: [
            ("/abcdef//x", "/abcdef/x"), ("/abcdef/./x", "/abcdef/x"), ("/abcdefghijklmn//", "/abcdefghijklmn/"),
            ("/abcdefg/", "/abcdefg/"), ("/abcdefghijklmno/../p", "/p"), ("/a b", "/a%20b"), ("/a%20b", "/a%2520b"),
            ("/\u{FC}ber/x", "/%C3%BCber/x"), ("/abcdefghijklmnopqrstuvw~_-.", "/abcdefghijklmnopqrstuvw~_-."),
            ("", "/"),
        ]
    )
    func canonicalURI(path: String, expected: String) throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
        let signed = try signer.sign(
            SigV4Request(method: "GET", target: path, headers: [HTTPHeader("Host", "h")]),
            at: time,
            keepingCanonicalRequest: true
        )
        let lines = (signed.canonicalRequest ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == Substring(expected))
    }

    /// The fast path copies a query that is already canonical; everything else goes through the
    /// canonicaliser, which drops empty pairs (botocore keeps them as "=", see the botocore vector file).
    @Test(
        "canonical query: copied when canonical, rebuilt otherwise",
        arguments: [
            ("a=1&b=2", "a=1&b=2"), ("b=2&a=1", "a=1&b=2"), ("a=1&", "a=1"), ("a=1&&b=2", "a=1&b=2"), ("&a=1", "a=1"),
            ("a", "a="), ("a=x%2fy", "a=x%2Fy"), ("a=b c", "a=b%20c"), ("k=2&k=1", "k=1&k=2"), ("", ""),
        ]
    )
    func canonicalQuery(query: String, expected: String) throws {
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
        let target = query.isEmpty ? "/" : "/?\(query)"
        let signed = try signer.sign(
            SigV4Request(method: "GET", target: target, headers: [HTTPHeader("Host", "h")]),
            at: time,
            keepingCanonicalRequest: true
        )
        let lines = (signed.canonicalRequest ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[2] == Substring(expected))
    }
    @Test("credentials never print their secret or token")
    func credentialDescriptions() throws {
        let temporary = try Credentials(
            accessKeyId: "ASIAEXAMPLE",
            secretAccessKey: "very-secret-key",
            sessionToken: "very-secret-token",
            expiration: time
        )
        let text = "\(temporary) \(String(reflecting: temporary))"
        #expect(!text.contains("very-secret"))
        #expect(text.contains("ASIAEXAMPLE"))
        #expect(text.contains("2013-05-24T00:00:00Z"))
        #expect(errorCode { try Credentials(accessKeyId: "", secretAccessKey: "x") } == .invalidParameter)
        #expect(errorCode { try Credentials(accessKeyId: "A B", secretAccessKey: "x") } == .invalidParameter)
        #expect(errorCode { try Credentials(accessKeyId: "A", secretAccessKey: "") } == .invalidParameter)
        #expect(
            errorCode { try Credentials(accessKeyId: "A", secretAccessKey: "x", sessionToken: "a\nb") }
                == .invalidParameter
        )
    }
}

@Suite("Signing-key cache")
struct SigningKeyCacheTests {
    let time = Timestamp(year: 2026, month: 11, day: 29)!

    func sign(_ signer: SigV4Signer) throws -> String {
        try signer.sign(SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "h")]), at: time)
            .signature
    }

    @Test("bounded: the least recently used key is evicted, and results never change")
    func bounded() throws {
        let cache = SigningKeyCache(capacity: 3)
        let credentials = try Credentials(accessKeyId: "AKID", secretAccessKey: "secret")
        var expected: [String: String] = [:]
        for region in ["r1", "r2", "r3", "r4", "r5"] {
            let signer = try SigV4Signer(credentials: credentials, region: region, service: "s", keyCache: cache)
            expected[region] = try sign(signer)
            #expect(cache.count <= 3)
        }
        #expect(cache.count == 3)
        for region in ["r1", "r5"] {
            let signer = try SigV4Signer(credentials: credentials, region: region, service: "s", keyCache: cache)
            #expect(try sign(signer) == expected[region])
        }
    }

    @Test("keyed by an identity that includes the secret: same key id, different secret, different signature")
    func fingerprint() throws {
        let cache = SigningKeyCache(capacity: 8)
        let a = try SigV4Signer(
            credentials: Credentials(accessKeyId: "AKID", secretAccessKey: "one"),
            region: "r",
            service: "s",
            keyCache: cache
        )
        let b = try SigV4Signer(
            credentials: Credentials(accessKeyId: "AKID", secretAccessKey: "two"),
            region: "r",
            service: "s",
            keyCache: cache
        )
        #expect(try sign(a) != sign(b))
        #expect(cache.count == 2)
    }

    @Test(
        "keyed by an injective identity: fields that concatenate alike, the two schemes and two days of one scope are distinct entries, each signing as with a cache of its own"
    )
    func identityIsInjective() throws {
        let cache = SigningKeyCache(capacity: 32)
        func both(_ accessKeyId: String, _ secret: String, _ region: String, _ service: String) throws -> Bool {
            let credentials = try Credentials(accessKeyId: accessKeyId, secretAccessKey: secret)
            let shared = try SigV4Signer(credentials: credentials, region: region, service: service, keyCache: cache)
            let alone = try SigV4Signer(
                credentials: credentials,
                region: region,
                service: service,
                keyCache: SigningKeyCache(capacity: 1)
            )
            return try sign(shared) == sign(alone)
        }
        // Neighbouring fields of the encoding (key id | region | service | secret) split at
        // different places: without the lengths, each pair would be one identity.
        #expect(try both("AKIDr", "secret", "egion", "s") && both("AKID", "secret", "region", "s"))
        #expect(try both("AKID", "secret", "ab", "c") && both("AKID", "secret", "a", "bc"))
        #expect(try both("AKID", "xsecret", "r", "s") && both("AKID", "secret", "r", "sx"))
        // a region's non-ASCII bytes (é: C3 A9) against its neighbours'
        #expect(try both("AKID", "secret", "r\u{E9}", "s") && both("AKID", "secret", "r", "\u{E9}s"))
        #expect(cache.count == 8)
        // one scope's two days
        let credentials = try Credentials(accessKeyId: "AKID", secretAccessKey: "secret")
        let signer = try SigV4Signer(credentials: credentials, region: "a", service: "bc", keyCache: cache)
        let request = SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "h")])
        let nextDay = try signer.sign(request, at: time.adding(seconds: 86_400)).signature
        #expect(cache.count == 9)
        let alone = try SigV4Signer(credentials: credentials, region: "a", service: "bc", keyCache: SigningKeyCache())
        #expect(try alone.sign(request, at: time.adding(seconds: 86_400)).signature == nextDay)
        // the same key id, secret, region and service under OSS V4: another scheme, another entry
        let ossRequest = OSSRequest(
            method: "GET",
            target: "/k",
            headers: [HTTPHeader("Host", "b.oss-cn-hangzhou.aliyuncs.com")],
            bucket: "b",
            key: "k"
        )
        let sigV4 = try SigV4Signer(credentials: credentials, region: "cn-hangzhou", service: "oss", keyCache: cache)
        _ = try sign(sigV4)
        #expect(cache.count == 10)
        let oss = try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou", keyCache: cache)
        let viaShared = try oss.sign(ossRequest, at: time).signature
        #expect(cache.count == 11)
        #expect(SigningScheme.aws4.cacheTag != SigningScheme.aliyunV4.cacheTag)
        let ossAlone = try OSSSigner(
            credentials: credentials,
            version: .v4,
            region: "cn-hangzhou",
            keyCache: SigningKeyCache()
        )
        #expect(try ossAlone.sign(ossRequest, at: time).signature == viaShared)
    }

    @Test("many tasks signing at once agree with a single-threaded signature")
    func concurrent() async throws {
        let cache = SigningKeyCache(capacity: 2)
        let credentials = try Credentials(accessKeyId: "AKID", secretAccessKey: "secret")
        let signers = try ["r1", "r2", "r3"].map {
            try SigV4Signer(credentials: credentials, region: $0, service: "s", keyCache: cache)
        }
        let reference = try signers.map {
            try SigV4Signer(credentials: credentials, region: $0.region, service: "s", keyCache: SigningKeyCache())
        }
        .map { try sign($0) }
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for i in 0..<600 {
                let index = i % 3
                let signer = signers[index]
                group.addTask { (index, try sign(signer)) }
            }
            var collected: [(Int, String)] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 600)
        #expect(results.allSatisfy { reference[$0.0] == $0.1 })
    }
}

@Suite("Request URLs")
struct RequestURLTests {
    @Test("parses scheme, host, port, path and query without re-encoding")
    func parse() throws {
        let url = try RequestURL("http://127.0.0.1:9000/bucket/a%20b%2Bc?list-type=2&prefix=a%20b#frag")
        #expect(url.scheme == "http" && url.host == "127.0.0.1" && url.port == 9000)
        #expect(url.path == "/bucket/a%20b%2Bc")
        #expect(url.query == "list-type=2&prefix=a%20b")
        #expect(url.hostHeader == "127.0.0.1:9000")
        #expect(try RequestURL("https://Example.COM:443").hostHeader == "example.com")
        #expect(try RequestURL("https://example.com").path == "/")
        #expect(try RequestURL("http://[::1]:8080/x").hostHeader == "[::1]:8080")
    }

    @Test(
        "rejects what is not an absolute http(s) URL",
        arguments: [
            "", "example.com/x", "ftp://example.com/", "http://", "http://user@host/", "http://host:0/",
            "http://host:99999/",
            "http://host:x/", "http://ho st/", "http://host/\u{7f}",
        ]
    )
    func rejects(text: String) {
        #expect(errorCode { try RequestURL(text) } == .malformedInput)
    }
}

@Suite("OSS signer guards")
struct OSSSignerTests {
    let credentials = try! Credentials(accessKeyId: "LTAI5tExample", secretAccessKey: "secret")  // test constant
    let time = Timestamp(year: 2026, month: 3, day: 14, hour: 15, minute: 9, second: 26)!

    @Test("V4 needs a region; expiry bounds; credentials expiry")
    func guards() throws {
        #expect(errorCode { try OSSSigner(credentials: credentials, version: .v4) } == .invalidParameter)
        let signer = try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou")
        let request = OSSRequest(
            method: "GET",
            target: "/k",
            headers: [HTTPHeader("Host", "b.oss-cn-hangzhou.aliyuncs.com")],
            bucket: "b",
            key: "k"
        )
        #expect(errorCode { try signer.presign(request, at: time, expires: 0) } == .invalidParameter)
        #expect(errorCode { try signer.presign(request, at: time, expires: 604_801) } == .invalidParameter)
        let temporary = try Credentials(
            accessKeyId: "STS.x",
            secretAccessKey: "s",
            sessionToken: "t",
            expiration: time.adding(seconds: 60)
        )
        let sts = try OSSSigner(credentials: temporary, version: .v1)
        #expect(errorCode { try sts.presign(request, at: time, expires: 120) } == .expired)
        let url = try sts.presign(request, at: time, expires: 60)
        #expect(url.signedURI?.contains("security-token=t") == true)
        var bad = request
        bad.key = "a\u{0}b"
        #expect(errorCode { try signer.sign(bad, at: time) } == .malformedRequest)
    }
}
