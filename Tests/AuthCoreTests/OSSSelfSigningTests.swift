import AuthCore
import AuthCoreTestSupport
import Testing

/// OSS self-signed mode in process: the detached signer and the signing authority together give
/// what a local OSSSigner gives, and the authority's policy refuses what it must, including strings
/// to sign crafted to look allowed.
@Suite("OSS self-signed mode: detached signer and signing authority")
struct OSSSelfSigningTests {
    static let credentials = try! Credentials(
        accessKeyId: "LTAI5tSelfSignKey01",
        secretAccessKey: "SelfSignedModeSecretForTests0001"
    )  // test constant
    static let time = Timestamp(year: 2026, month: 12, day: 1, hour: 12, minute: 0, second: 0)!
    static let policy = OSSSigningPolicy(
        buckets: ["app-bucket"],
        keyPrefixes: ["users/alice/"],
        methods: ["GET", "PUT", "HEAD"],
        regions: ["cn-hangzhou"],
        maximumURLLifetime: 3600
    )

    static func authority() throws -> OSSSigningAuthority {
        try OSSSigningAuthority(credentials: credentials, policy: policy)
    }

    @Test("prepare + authority + complete equals the local signer on 400 random requests (V1/V4, headers and URLs)")
    func matchesTheLocalSigner() throws {
        let random = SeededRandom(seed: 0x5E1F)
        let authority = try Self.authority()
        let keyBytes = Array("abcXYZ019-_/ é+%".utf8)  // no '.' segments (the policy refuses them)
        for round in 0..<400 {
            let version: OSSSigner.Version = round % 2 == 0 ? .v1 : .v4
            let region = version == .v4 ? "cn-hangzhou" : nil
            let key =
                "users/alice/"
                + String(
                    decoding: (0..<(1 + Int(random.next() % 20))).map { _ in
                        keyBytes[Int(random.next() % UInt64(keyBytes.count))]
                    },
                    as: UTF8.self
                ) + ".txt"
            var headers = [HTTPHeader("Host", "app-bucket.oss-cn-hangzhou.aliyuncs.com")]
            if random.next() % 2 == 0 { headers.append(HTTPHeader("Content-Type", "text/plain")) }
            if random.next() % 2 == 0 { headers.append(HTTPHeader("x-oss-meta-owner", "alice \(round)")) }
            let method = ["GET", "PUT", "HEAD"][Int(random.next() % 3)]
            var request = OSSRequest(
                method: method,
                target: "/" + key,
                headers: headers,
                bucket: "app-bucket",
                key: key
            )
            if random.next() % 3 == 0 { request.parameters = [("versionId", "v\(round)")] }
            let local = try OSSSigner(
                credentials: Self.credentials,
                version: version,
                region: region,
                keyCache: SigningKeyCache(capacity: 1)
            )
            let detached = try OSSDetachedSigner(
                version: version,
                region: region,
                accessKeyId: Self.credentials.accessKeyId
            )
            let time = Self.time.adding(seconds: Int64(round))
            let now = time.adding(seconds: Int64(random.next() % 60))  // the server's clock, a little later

            let pending = try detached.prepare(request, at: time)
            let remote = try detached.complete(pending, with: try authority.sign(OSSSignatureRequest(pending), at: now))
            let expected = try local.sign(request, at: time)
            #expect(remote.headers == expected.headers, "\(version) \(key)")
            #expect(remote.stringToSign == expected.stringToSign)

            let expires = 61 + Int(random.next() % 3500)  // still valid on the server's later clock
            let pendingURL = try detached.preparePresigned(request, at: time, expires: expires)
            let remoteURL = try detached.complete(
                pendingURL,
                with: try authority.sign(OSSSignatureRequest(pendingURL), at: now)
            )
            #expect(
                remoteURL.signedURI == (try local.presign(request, at: time, expires: expires)).signedURI,
                "\(version) \(key)"
            )
        }
    }

    /// The code of the error `authority.sign` throws, or nil.
    static func refusal(_ request: OSSSignatureRequest, at now: Timestamp = time) -> AuthCoreError.Code? {
        do {
            _ = try authority().sign(request, at: now)
            return nil
        } catch {
            return (error as? AuthCoreError)?.code
        }
    }

    @Test(
        "V1 refusals: bucket, prefix, method, sub-resource, OSS headers (copy source, ACL), stale date, long or expired URLs, crafted lines"
    )
    func v1Refusals() {
        let date = Self.time.rfc1123
        func v1(_ text: String) -> OSSSignatureRequest { OSSSignatureRequest(version: .v1, stringToSign: text) }
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/alice/a.txt")) == nil)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/other/users/alice/a.txt")) == .notPermitted)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/bob/a.txt")) == .notPermitted)
        #expect(Self.refusal(v1("DELETE\n\n\n\(date)\n/app-bucket/users/alice/a.txt")) == .notPermitted)
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\n/app-bucket/users/alice/a.txt?acl")) == .notPermitted)
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\n/app-bucket/users/alice/a.txt?partNumber=1&uploadId=x")) == nil)
        #expect(
            Self.refusal(
                v1("PUT\n\n\n\(date)\nx-oss-copy-source:/app-bucket/users/bob/secret\n/app-bucket/users/alice/a.txt")
            ) == .notPermitted
        )
        #expect(
            Self.refusal(v1("PUT\n\n\n\(date)\nx-oss-object-acl:public-read\n/app-bucket/users/alice/a.txt"))
                == .notPermitted
        )
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\nx-oss-meta-owner:alice\n/app-bucket/users/alice/a.txt")) == nil)
        #expect(
            Self.refusal(v1("GET\n\n\n\(Self.time.adding(seconds: 1200).rfc1123)\n/app-bucket/users/alice/a.txt"))
                == .notPermitted
        )
        let soon = Self.time.adding(seconds: 600).secondsSince1970
        #expect(Self.refusal(v1("GET\n\n\n\(soon)\n/app-bucket/users/alice/a.txt")) == nil)
        #expect(
            Self.refusal(
                v1("GET\n\n\n\(Self.time.adding(seconds: 7200).secondsSince1970)\n/app-bucket/users/alice/a.txt")
            ) == .notPermitted
        )
        #expect(
            Self.refusal(
                v1("GET\n\n\n\(Self.time.adding(seconds: -5).secondsSince1970)\n/app-bucket/users/alice/a.txt")
            ) == .notPermitted
        )
        // A key with a newline that would smuggle another resource line: the line before the last
        // reads as a header named "/evil/…", which is refused.
        #expect(
            Self.refusal(v1("GET\n\n\n\(date)\n/evil/x-oss-meta-a:b\n/app-bucket/users/alice/a.txt"))
                == .malformedRequest
        )
        #expect(
            Self.refusal(v1("GET\n\n\n\(date)\n/evil/no-colon\n/app-bucket/users/alice/a.txt")) == .malformedRequest
        )
        // A `?` inside the key: the key checked is a prefix of the real one, so the prefix still binds.
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/ali?ce/a.txt")) == .notPermitted)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/")) == .notPermitted)
        #expect(Self.refusal(v1("GET\n\n\(date)\n/app-bucket/users/alice/a.txt")) == .malformedRequest)
        #expect(Self.refusal(v1("GET\n\n\nnot a date\n/app-bucket/users/alice/a.txt")) == .malformedRequest)
    }

    @Test(
        "found in review: a bare '=' in a V4 query, x-oss-date in V1, repeated names, CR, URL parameters in header mode, Unicode look-alikes, dot segments"
    )
    func reviewFindings() throws {
        let date = Self.time.rfc1123
        func v1(_ text: String) -> OSSSignatureRequest { OSSSignatureRequest(version: .v1, stringToSign: text) }
        /// A V4 request for a hand-written canonical request (its hash and scope made here).
        func v4(_ canonical: String) -> OSSSignatureRequest {
            let amz = Self.time.amzDate
            let scope = "\(Self.time.dateStamp)/cn-hangzhou/oss/aliyun_v4_request"
            let text = "OSS4-HMAC-SHA256\n\(amz)\n\(scope)\n" + SHA256.hash(bytes: Array(canonical.utf8)).hexLowercased
            return OSSSignatureRequest(version: .v4, stringToSign: text, canonicalRequest: canonical)
        }
        let amz = Self.time.amzDate
        let headerTail = "x-oss-content-sha256:UNSIGNED-PAYLOAD\nx-oss-date:\(amz)\n\n\nUNSIGNED-PAYLOAD"
        #expect(Self.refusal(v4("GET\n/app-bucket/users/alice/a\n\n" + headerTail)) == nil)
        // 1. A query item that is only '=' (crashed the reader): now refused as a sub-resource named "".
        #expect(Self.refusal(v4("GET\n/app-bucket/users/alice/a\n=\n" + headerTail)) == .notPermitted)
        #expect(Self.refusal(v4("GET\n/app-bucket/users/alice/a\nx=1&=\n" + headerTail)) == .notPermitted)
        // 2. V1: an x-oss-date far from now is held to the skew like Date.
        #expect(
            Self.refusal(v1("GET\n\n\n\(date)\nx-oss-date:Fri, 01 Jan 2027 00:00:00 GMT\n/app-bucket/users/alice/a"))
                == .notPermitted
        )
        #expect(Self.refusal(v1("GET\n\n\n\(date)\nx-oss-date:\(date)\n/app-bucket/users/alice/a")) == nil)
        // 3. Repeated names: V4 query and headers, V1 headers and sub-resources.
        let urlQuery =
            "x-oss-credential=\(Self.credentials.accessKeyId)%2F\(Self.time.dateStamp)%2Fcn-hangzhou%2Foss%2Faliyun_v4_request&x-oss-date=\(amz)"
            + "&x-oss-expires=604800&x-oss-expires=60&x-oss-signature-version=OSS4-HMAC-SHA256"
        #expect(
            Self.refusal(v4("GET\n/app-bucket/users/alice/a\n\(urlQuery)\n\n\nUNSIGNED-PAYLOAD")) == .malformedRequest
        )
        #expect(
            Self.refusal(v4("GET\n/app-bucket/users/alice/a\n\nx-oss-meta-a:1\nx-oss-meta-a:2\n" + headerTail))
                == .malformedRequest
        )
        #expect(
            Self.refusal(v1("GET\n\n\n\(date)\nx-oss-meta-a:1\nx-oss-meta-a:2\n/app-bucket/users/alice/a"))
                == .malformedRequest
        )
        #expect(
            Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/alice/a?versionId=1&versionId=2")) == .malformedRequest
        )
        // 4. A CR that would hide a second header line from this reader.
        #expect(
            Self.refusal(
                v1("GET\n\n\n\(date)\nx-oss-meta-a:v\r\nx-oss-object-acl:public-read-write\n/app-bucket/users/alice/a")
            ) == .malformedRequest
        )
        // 5. URL parameters in header mode; a URL with another key's credential or without its version.
        #expect(
            Self.refusal(v4("GET\n/app-bucket/users/alice/a\nx-oss-credential=x\n" + headerTail)) == .malformedRequest
        )
        let otherKey =
            "x-oss-credential=LTAIother%2F\(Self.time.dateStamp)%2Fcn-hangzhou%2Foss%2Faliyun_v4_request&x-oss-date=\(amz)&x-oss-expires=60&x-oss-signature-version=OSS4-HMAC-SHA256"
        #expect(
            Self.refusal(v4("GET\n/app-bucket/users/alice/a\n\(otherKey)\n\n\nUNSIGNED-PAYLOAD")) == .malformedRequest
        )
        let noVersion =
            "x-oss-credential=\(Self.credentials.accessKeyId)%2F\(Self.time.dateStamp)%2Fcn-hangzhou%2Foss%2Faliyun_v4_request&x-oss-date=\(amz)&x-oss-expires=60"
        #expect(
            Self.refusal(v4("GET\n/app-bucket/users/alice/a\n\(noVersion)\n\n\nUNSIGNED-PAYLOAD")) == .malformedRequest
        )
        // 6. A bucket spelled with a Unicode look-alike (U+212A KELVIN SIGN for K) is another bucket.
        let kelvin = try OSSSigningAuthority(
            credentials: Self.credentials,
            policy: OSSSigningPolicy(buckets: ["K-bucket"], keyPrefixes: [""])
        )
        #expect(throws: AuthCoreError(.notPermitted, "")) {
            try kelvin.sign(v1("GET\n\n\n\(date)\n/\u{212A}-bucket/a"), at: Self.time)
        }
        // 7. Dot segments in keys.
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/alice/../bob/a")) == .notPermitted)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/alice/./a")) == .notPermitted)
        // 8. Separators inside grapheme clusters (U+0600 ARABIC NUMBER SIGN prepends to what follows):
        // OSS reads bytes, so `?acl` and `&acl` are sub-resources however they render.
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\n/app-bucket/users/alice/x\u{600}?acl")) == .notPermitted)
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\n/app-bucket/users/alice/x?partNumber=\u{600}&acl")) == .notPermitted)
        #expect(Self.refusal(v1("PUT\n\n\n\(date)\n/app-bucket/users/alice/x?partNumber=1\u{600}&uploadId=x")) == nil)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket\u{600}/users/alice/a")) == .notPermitted)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\nx-oss-meta-a:\u{301}v\n/app-bucket/users/alice/a")) == nil)
        #expect(Self.refusal(v1("GET\n\n\n\(date)\n/app-bucket/users/alice/x\u{600}/../\u{301}b")) == .notPermitted)
    }

    @Test(
        "V4 refusals: no canonical request, a forged one, another region or date, policy rules read from the canonical request"
    )
    func v4Refusals() throws {
        let detached = try OSSDetachedSigner(
            version: .v4,
            region: "cn-hangzhou",
            accessKeyId: Self.credentials.accessKeyId
        )
        func pending(
            _ method: String,
            key: String,
            bucket: String = "app-bucket",
            headers: [HTTPHeader] = [],
            parameters: [(key: String, value: String)] = [],
            expires: Int? = nil,
            region: String = "cn-hangzhou"
        ) throws -> OSSSignatureRequest {
            let signer = try OSSDetachedSigner(version: .v4, region: region, accessKeyId: Self.credentials.accessKeyId)
            var request = OSSRequest(
                method: method,
                target: "/" + key,
                headers: [HTTPHeader("Host", "h")] + headers,
                bucket: bucket,
                key: key
            )
            request.parameters = parameters
            let prepared =
                try expires.map { try signer.preparePresigned(request, at: Self.time, expires: $0) }
                ?? signer.prepare(request, at: Self.time)
            return OSSSignatureRequest(prepared)
        }
        #expect(Self.refusal(try pending("GET", key: "users/alice/a")) == nil)
        #expect(Self.refusal(try pending("GET", key: "users/alice/a", expires: 3600)) == nil)
        var blind = try pending("GET", key: "users/alice/a")
        blind.canonicalRequest = nil
        #expect(Self.refusal(blind) == .notPermitted)
        var forged = try pending("GET", key: "users/bob/a")
        let good = try pending("GET", key: "users/alice/a")
        forged.canonicalRequest = good.canonicalRequest
        #expect(Self.refusal(forged) == .malformedRequest)
        #expect(Self.refusal(try pending("GET", key: "users/alice/a", region: "cn-beijing")) == .notPermitted)
        var otherDate = try pending("GET", key: "users/alice/a")
        otherDate.date = "20261202"
        #expect(Self.refusal(otherDate) == .malformedRequest)
        #expect(Self.refusal(try pending("GET", key: "users/bob/a")) == .notPermitted)
        #expect(Self.refusal(try pending("GET", key: "users/alice/a", bucket: "other")) == .notPermitted)
        #expect(Self.refusal(try pending("DELETE", key: "users/alice/a")) == .notPermitted)
        #expect(
            Self.refusal(
                try pending(
                    "PUT",
                    key: "users/alice/a",
                    headers: [HTTPHeader("x-oss-copy-source", "/app-bucket/users/bob/s")]
                )
            ) == .notPermitted
        )
        #expect(Self.refusal(try pending("PUT", key: "users/alice/a", parameters: [("acl", "")])) == .notPermitted)
        #expect(Self.refusal(try pending("GET", key: "users/alice/a", expires: 7200)) == .notPermitted)
        #expect(
            Self.refusal(try pending("GET", key: "users/alice/a"), at: Self.time.adding(seconds: 1000)) == .notPermitted
        )
        // The answer must be well formed and from the expected key.
        let prepared = try detached.prepare(
            OSSRequest(method: "GET", target: "/a", headers: [], bucket: "app-bucket", key: "users/alice/a"),
            at: Self.time
        )
        #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try detached.complete(
                prepared,
                with: OSSProvidedSignature(accessKeyId: Self.credentials.accessKeyId, signature: "zz")
            )
        }
        #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try detached.complete(
                prepared,
                with: OSSProvidedSignature(accessKeyId: "LTAIother", signature: String(repeating: "a", count: 64))
            )
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try OSSDetachedSigner(version: .v4, region: "cn-hangzhou").preparePresigned(
                OSSRequest(method: "GET", target: "/a", headers: [], bucket: "b", key: "a"),
                at: Self.time,
                expires: 60
            )
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try OSSSigningAuthority(
                credentials: try Credentials(accessKeyId: "a", secretAccessKey: "b", sessionToken: "t"),
                policy: Self.policy
            )
        }
    }
}
