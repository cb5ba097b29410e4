import AuthCore
import AuthCoreReferenceModels
import AuthCoreTestSupport
import Testing

/// The Alibaba Cloud API signers: RPC 1.0 and ACS3 against the slow references on random inputs,
/// the common parameters against an oracle-made signature, and every refusal.
@Suite("Alibaba Cloud API signatures (RPC 1.0, ACS3-HMAC-SHA256)")
struct AliyunSigningTests {
    static let time = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!
    static let credentials = try! Credentials(
        accessKeyId: "LTAI5tFakeAccessKeyId0001",
        secretAccessKey: "FakeAccessKeySecretForTestVectors000001"
    )  // test constant

    static func text(_ random: SeededRandom, _ alphabet: [UInt8], count: Int) -> String {
        String(decoding: (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
    }

    static func pick<T>(_ random: SeededRandom, _ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    @Test(
        "RPC canonicalised query and string to sign equal the reference on 1000 random parameter sets (unicode, reserved bytes, empty values)"
    )
    func rpcMatchesTheReference() throws {
        let random = SeededRandom(seed: 0xA11_C0DE)
        let keys = Array("AZaz09-._~".utf8) + Array("é*+ =&%/".utf8)
        let values = Array("ab Z9*~+=&%/:\"'()!é☃".utf8)
        let signer = AliyunRPCSigner(credentials: Self.credentials)
        for _ in 0..<1000 {
            var parameters: [(key: String, value: String)] = []
            for _ in 0..<(1 + Int(random.next() % 12)) {
                let key = Self.text(random, keys, count: 1 + Int(random.next() % 10))
                guard !key.isEmpty, key != "Signature", !parameters.contains(where: { $0.key == key }) else { continue }
                parameters.append((key, Self.text(random, values, count: Int(random.next() % 16))))
            }
            let method = Self.pick(random, ["GET", "POST"])
            let signature = try signer.sign(method: method, parameters: parameters)
            #expect(signature.canonicalizedQuery == ReferenceAliyun.rpcCanonicalizedQuery(parameters))
            #expect(signature.stringToSign == ReferenceAliyun.rpcStringToSign(method: method, parameters))
        }
    }

    @Test(
        "ACS3 canonical requests equal the reference on 2000 random requests (x-acs-* names, blanks at the ends, tokens, replaced fields)"
    )
    func acs3MatchesTheReference() throws {
        let random = SeededRandom(seed: 0xAC53)
        let names = [
            "x-acs-action", "X-Acs-Version", "x-acs-meta-a", "X-ACS-META-A", "x-acs-b", "content-type", "Content-Type",
            "accept", "user-agent", "x-acs-date", "x-acs-signature-nonce", "x-acs-content-sha256",
            "x-acs-security-token", "x-acsfoo", "x-oss-meta",
        ]
        let valueBytes = Array("ab Z9\t  ,;=\"/é".utf8)
        for round in 0..<2000 {
            let token: String? = round % 3 == 0 ? "CAISFakeToken+/=\(round)" : nil
            let credentials = try Credentials(accessKeyId: "LTAI5tFake", secretAccessKey: "secret", sessionToken: token)
            var headers = [
                HTTPHeader(Self.pick(random, ["host", "Host"]), "ecs.cn-hangzhou.aliyuncs.com"),
                HTTPHeader("x-acs-action", "Describe"),
                HTTPHeader("x-acs-version", "2014-05-26"),
            ]
            for _ in 0..<Int(random.next() % 8) {
                headers.insert(
                    HTTPHeader(Self.pick(random, names), Self.text(random, valueBytes, count: Int(random.next() % 20))),
                    at: Int(random.next() % UInt64(headers.count + 1))
                )
            }
            let query = Self.pick(random, ["", "b=2&a=1", "k&j=", "x=%2a%7E+y&x=a", "é=ü ☃"])
            let body = Array("body-\(round)".utf8)
            let nonce = "nonce-\(round)"
            let request = SigV4Request(method: "POST", target: "/a/b?" + query, headers: headers, payload: .bytes(body))
            let payloadHash = SHA256.hash(bytes: body).hexLowercased
            let expected = ReferenceAliyun.acs3CanonicalRequest(
                method: "POST",
                path: "/a/b",
                query: query,
                headers: headers,
                date: Self.time.iso8601,
                nonce: nonce,
                token: token,
                payloadHash: payloadHash
            )
            let signed = try? AliyunACS3Signer(credentials: credentials).sign(
                request,
                at: Self.time,
                nonce: nonce,
                keepingCanonicalRequest: true
            )
            #expect(signed?.canonicalRequest == expected, "\(headers)")
            if let signed {
                // The string to sign and the signature follow from the canonical request by the documented formulas.
                let hash = SHA256.hash(bytes: signed.canonicalRequestBytes ?? []).hexLowercased
                #expect(signed.stringToSign == "ACS3-HMAC-SHA256\n" + hash)
                #expect(
                    signed.signature
                        == HMAC<SHA256>.authenticationCode(
                            for: Array(signed.stringToSign.utf8),
                            using: Array("secret".utf8)
                        ).hexLowercased
                )
            }
        }
    }

    @Test("the signer's headers: x-acs-date, nonce, content hash, token (STS credentials), Authorization last")
    func acs3Headers() throws {
        let sts = try Credentials(
            accessKeyId: "STS.NUgYrLnoC37mZZCNnAbezFake",
            secretAccessKey: "FakeStsSecret3jJ9Xw/ab+cdEFG",
            sessionToken:
                "CAIS8gF1q6Ft5B2yfSjIr5bSEsPl+/xFakeToken/with+plus/and/slash1xo2VxGoABb3Jp+FakeSTS/TokenBody=="
        )
        let request = SigV4Request(
            method: "GET",
            target: "/?RegionId=cn-shanghai",
            headers: [
                HTTPHeader("host", "ecs.cn-hangzhou.aliyuncs.com"), HTTPHeader("x-acs-action", "DescribeRegions"),
                HTTPHeader("x-acs-version", "2014-05-26"),
            ]
        )
        let signed = try AliyunACS3Signer(credentials: sts).sign(request, at: Self.time, nonce: "nonce-0005")
        #expect(
            signed.headers.map(\.name) == [
                "x-acs-date", "x-acs-signature-nonce", "x-acs-content-sha256", "x-acs-security-token", "Authorization",
            ]
        )
        #expect(signed.headers[0].value == "2026-11-29T22:00:00Z")
        // The oracle's value for this request (vectors/aliyun-acs3-openapi-util.json, case security-token).
        #expect(
            signed.authorization
                == "ACS3-HMAC-SHA256 Credential=STS.NUgYrLnoC37mZZCNnAbezFake,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-security-token;x-acs-signature-nonce;x-acs-version,Signature=1987a93c5510ff7772212a623280c835ac04549057149c576258f5d60053479b"
        )
    }

    @Test(
        "sign(action:…) adds the common parameters; the result is the oracle's signature and a form body with Signature last"
    )
    func rpcCommonParameters() throws {
        let signer = AliyunRPCSigner(credentials: Self.credentials)
        let signed = try signer.sign(
            action: "AssumeRole",
            version: "2015-04-01",
            parameters: [
                ("RoleArn", "acs:ram::1234567890123456:role/oss-app-role"), ("RoleSessionName", "alice"),
                ("DurationSeconds", "3600"),
            ],
            at: Self.time,
            nonce: "3f2b6c1e-9d4a-4e57-8b1f-0c2d3e4f5a6b"
        )
        // aliyun-python-sdk-core 2.16.1 (vectors/aliyun-rpc-sdkcore.json, case sts-assume-role-post).
        #expect(signed.signature == "Vo2mzWPUSb6NS96vYB7yhXhknjY=")
        #expect(
            signed.query.hasPrefix(
                "AccessKeyId=LTAI5tFakeAccessKeyId0001&Action=AssumeRole&DurationSeconds=3600&Format=JSON&"
            )
        )
        #expect(signed.query.hasSuffix("&Signature=Vo2mzWPUSb6NS96vYB7yhXhknjY%3D"))
        let sts = try Credentials(accessKeyId: "STS.id", secretAccessKey: "s", sessionToken: "tok+en")
        let withToken = try AliyunRPCSigner(credentials: sts).sign(
            action: "A",
            version: "1",
            parameters: [],
            at: Self.time,
            nonce: "n"
        )
        #expect(withToken.parameters.contains { $0 == ("SecurityToken", "tok+en") })
        #expect(withToken.parameters.contains { $0 == ("Timestamp", "2026-11-29T22:00:00Z") })
    }

    @Test(
        "RPC refusals name the first offending parameter, in order; names are compared as bytes, not as equivalent Unicode"
    )
    func rpcRefusalMessages() throws {
        let rpc = AliyunRPCSigner(credentials: Self.credentials)
        func message(_ body: () throws -> AliyunRPCSignature) -> String? {
            do {
                _ = try body()
                return nil
            } catch { return (error as? AuthCoreError)?.reason }
        }
        #expect(
            message {
                try rpc.sign(
                    action: "A",
                    version: "1",
                    parameters: [("b", "1"), ("Format", "XML")],
                    at: Self.time,
                    nonce: "n"
                )
            }
                == "parameter 'Format' is set by the signer"
        )
        #expect(
            message { try rpc.sign(method: "GET", parameters: [("z", "1"), ("b", "2"), ("z", "3"), ("", "4")]) }
                == "parameter 'z' is repeated"
        )
        #expect(
            message { try rpc.sign(method: "GET", parameters: [("b", "1"), ("", "2"), ("b", "3")]) }
                == "parameter name is empty"
        )
        #expect(
            message { try rpc.sign(method: "GET", parameters: [("Signature", "1"), ("b", "2"), ("b", "3")]) }
                == "parameter 'Signature' is written by the signer"
        )
        #expect(
            message {
                try rpc.sign(
                    action: "A",
                    version: "1",
                    parameters: [("Format", "x")],
                    method: "PUT",
                    format: "JSON",
                    at: Self.time,
                    nonce: "n"
                )
            }
                == "parameter 'Format' is set by the signer"
        )
        #expect(
            message {
                try rpc.sign(
                    action: "A",
                    version: "1",
                    parameters: [("b", "x")],
                    method: "PUT",
                    format: "JSON",
                    at: Self.time,
                    nonce: "n"
                )
            }
                == "RPC method must be GET or POST"
        )
        // With a Kelvin sign (U+212A, canonically equivalent to K) the name is another parameter on the wire.
        let kelvin = try rpc.sign(
            action: "A",
            version: "1",
            parameters: [("Access\u{212A}eyId", "x")],
            at: Self.time,
            nonce: "n"
        )
        #expect(kelvin.canonicalizedQuery.contains("Access%E2%84%AAeyId=x"))
        // "é" precomposed and decomposed are equal Strings but different bytes: two parameters on the wire.
        let both = try rpc.sign(method: "GET", parameters: [("\u{E9}", "1"), ("e\u{301}", "2")])
        #expect(both.canonicalizedQuery == "%C3%A9=1&e%CC%81=2")
    }

    @Test(
        "refusals: bad nonce, method, repeated, empty or reserved names, missing action/version, unsigned payload, missing host, control bytes"
    )
    func refusals() throws {
        let rpc = AliyunRPCSigner(credentials: Self.credentials)
        func rpcCode(_ body: () throws -> AliyunRPCSignature) -> AuthCoreError.Code? {
            do {
                _ = try body()
                return nil
            } catch { return (error as? AuthCoreError)?.code }
        }
        #expect(rpcCode { try rpc.sign(method: "PUT", parameters: [("a", "1")]) } == .malformedRequest)
        #expect(rpcCode { try rpc.sign(method: "GET", parameters: [("a", "1"), ("a", "2")]) } == .malformedRequest)
        #expect(rpcCode { try rpc.sign(method: "GET", parameters: [("", "1")]) } == .malformedRequest)
        #expect(rpcCode { try rpc.sign(method: "GET", parameters: [("Signature", "x")]) } == .malformedRequest)
        #expect(
            rpcCode {
                try rpc.sign(action: "A", version: "1", parameters: [("Timestamp", "x")], at: Self.time, nonce: "n")
            } == .malformedRequest
        )
        #expect(
            rpcCode { try rpc.sign(action: "A", version: "1", parameters: [], at: Self.time, nonce: "") }
                == .malformedRequest
        )
        #expect(
            rpcCode { try rpc.sign(action: "A", version: "1", parameters: [], at: Self.time, nonce: "a b") }
                == .malformedRequest
        )
        #expect(
            rpcCode {
                try rpc.sign(
                    action: "A",
                    version: "1",
                    parameters: [],
                    at: Self.time,
                    nonce: String(repeating: "n", count: 65)
                )
            } == .malformedRequest
        )

        let acs3 = AliyunACS3Signer(credentials: Self.credentials)
        let good = [HTTPHeader("host", "h"), HTTPHeader("x-acs-action", "A"), HTTPHeader("x-acs-version", "1")]
        func acs3Code(_ request: SigV4Request, nonce: String = "n") -> AuthCoreError.Code? {
            do {
                _ = try acs3.sign(request, at: Self.time, nonce: nonce)
                return nil
            } catch { return error.code }
        }
        #expect(acs3Code(SigV4Request(method: "GET", target: "/", headers: good)) == nil)
        #expect(acs3Code(SigV4Request(method: "GET", target: "/", headers: good), nonce: "n\n") == .malformedRequest)
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: Array(good.dropLast()))) == .malformedRequest
        )
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: Array(good.dropFirst()))) == .malformedRequest
        )
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: good, payload: .unsigned)) == .malformedRequest
        )
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: good, payload: .precomputedHash("xyz")))
                == .malformedRequest
        )
        #expect(acs3Code(SigV4Request(method: "G T", target: "/", headers: good)) == .malformedRequest)
        #expect(acs3Code(SigV4Request(method: "GET", target: "/a\u{1}b", headers: good)) == .malformedRequest)
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: good + [HTTPHeader("x-acs-meta", "a\u{7F}")]))
                == .malformedRequest
        )
        #expect(
            acs3Code(SigV4Request(method: "GET", target: "/", headers: good + [HTTPHeader("bad name", "v")]))
                == .malformedRequest
        )
    }
}
