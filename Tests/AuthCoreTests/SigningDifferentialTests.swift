import AuthCore
import AuthCoreReferenceModels
import AuthCoreTestSupport
import Testing

/// The signing toolkit's fast paths against slow references written from the specifications
/// (AuthCoreReferenceModels), on seeded random inputs: the SWAR header table under the SigV4
/// policy, the query fast path against the slow path, and the shared builders under the OSS V4
/// and V1 policies.
@Suite("Signing toolkit: differential tests against the reference models")
struct SigningDifferentialTests {
    static let time = Timestamp(year: 2026, month: 12, day: 1, hour: 1, minute: 2, second: 3)!

    /// Random bytes from `alphabet`, `count` long.
    static func text(_ random: SeededRandom, _ alphabet: [UInt8], count: Int) -> String {
        String(decoding: (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
    }

    static func pick<T>(_ random: SeededRandom, _ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    /// Header names: every token byte, mixed case, 1–24 bytes (across the eight-byte words), and a
    /// small pool so names repeat and share their first eight bytes.
    static func headerName(_ random: SeededRandom) -> String {
        // Shared prefixes of 7, 8 and 9 bytes whose next byte sorts below `:` (digits, `!`, `-`),
        // where an eight-byte sort key that reads past the name would misorder.
        let pool = [
            "X-Amz-Meta-Aa", "x-amz-meta-ab", "X-AMZ-META-A", "Accept", "Content-Type", "x-custom", "X-Custom", "a",
            "ZZ",
            "x-amz-a", "x-amz-a0", "X-Amz-A-b", "x-amz-ab", "x-amz-a!", "x-amz-ab1", "x-amz-ab",
        ]
        if random.next() % 3 == 0 { return pick(random, pool) }
        let tokens = Array("abcXYZ019-_.!#$%&'*+^`|~".utf8)
        return text(random, tokens, count: 1 + Int(random.next() % 24))
    }

    /// Values: printable bytes with runs of spaces and tabs anywhere, 0–40 bytes, some non-ASCII.
    static func headerValue(_ random: SeededRandom) -> String {
        let bytes = Array("ab Z9\t  ,;=\"/é".utf8)
        return text(random, bytes, count: Int(random.next() % 41))
    }

    @Test(
        "the SigV4 header table (SWAR lower-casing, trimall, sort keys, repeated names) equals the reference on 3000 random requests"
    )
    func sigV4HeadersMatchTheReference() throws {
        let random = SeededRandom(seed: 0x5167_4E44)
        let credentials = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
        var repeated = 0
        for round in 0..<3000 {
            let s3 = round % 2 == 1
            let signer = try SigV4Signer(
                credentials: credentials,
                region: "us-east-1",
                service: s3 ? "s3" : "iam",
                options: s3 ? .s3 : .standard
            )
            var headers = [HTTPHeader(Self.pick(random, ["Host", "host", "HOST"]), "example.amazonaws.com")]
            for _ in 0..<Int(random.next() % 9) {
                headers.insert(
                    HTTPHeader(Self.headerName(random), Self.headerValue(random)),
                    at: Int(random.next() % UInt64(headers.count + 1))
                )
            }
            if random.next() % 8 == 0 {
                headers.append(HTTPHeader(Self.pick(random, ["Authorization", "X-Amz-Date"]), "replaced"))
            }
            let names = headers.map { $0.name.lowercased() }
            if Set(names).count < names.count { repeated += 1 }
            let request = SigV4Request(method: "GET", target: "/a/b", headers: headers, payload: .bytes([]))
            let expected = ReferenceSigV4.canonicalRequest(
                method: "GET",
                path: "/a/b",
                query: "",
                headers: headers,
                amzDate: Self.time.amzDate,
                s3: s3
            )
            let actual = (try? signer.sign(request, at: Self.time, keepingCanonicalRequest: true))?.canonicalRequest
            #expect(actual == expected, "\(headers)")
        }
        #expect(repeated > 150)  // the merging path was exercised, not only the one-line-per-field path
    }

    /// Raw queries: half built canonical (sorted, unreserved, `k=v`), half anything (escapes,
    /// reserved bytes, valueless and empty pairs, unsorted).
    static func rawQuery(_ random: SeededRandom) -> String {
        if random.next() % 2 == 0 {
            let unreserved = Array("aZ09-._~".utf8)
            let pairs = (0..<(1 + Int(random.next() % 5))).map { _ in
                (
                    text(random, unreserved, count: 1 + Int(random.next() % 6)),
                    text(random, unreserved, count: Int(random.next() % 6))
                )
            }.sorted {
                $0.0 != $1.0
                    ? $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) : $0.1.utf8.lexicographicallyPrecedes($1.1.utf8)
            }
            return pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }
        let bytes = Array("ab~=&&%2F%2f%zz+ /é?".utf8)
        return text(random, bytes, count: Int(random.next() % 30))
    }

    @Test(
        "the canonical query's fast path copies only queries the slow path leaves unchanged (exactly so over unreserved bytes, = and &); both equal the reference on 5000 random queries"
    )
    func queryFastPathMatchesTheSlowPath() {
        let random = SeededRandom(seed: 0x5155_4552)
        var fast = 0
        var plain = 0
        let plainBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~=&".utf8)
        for _ in 0..<5000 {
            let query = Self.rawQuery(random)
            let reference = ReferenceSigV4.canonicalQuery(query)
            let isCanonical = Array(query.utf8).withUnsafeBufferPointer { CanonicalQuery.isAlreadyCanonical($0) }
            if isCanonical {
                fast += 1
                #expect(Array(query.utf8) == reference, "\(query)")
            }
            // Over unreserved bytes, `=` and `&` the fast path is exact: it takes every query the
            // slow path leaves unchanged.
            if query.utf8.allSatisfy({ plainBytes.contains($0) }) {
                plain += 1
                #expect(isCanonical == (Array(query.utf8) == reference), "\(query)")
            }
            #expect(CanonicalQuery.reencoded(query) == reference, "\(query)")
            #expect(CanonicalQuery.fromRawQuery(query) == reference, "\(query)")
        }
        #expect(fast > 1500)  // half the inputs are built canonical
        #expect(plain > 2700)  // those, and the short or lucky others
    }

    @Test(
        "HMAC-SHA1 on stack SHA_CTXs equals EVP's on 3000 random keys (0-150 bytes: shorter and longer than a block) and messages; RFC 2202 case 6"
    )
    func lowLevelHMACSHA1MatchesEVP() {
        let random = SeededRandom(seed: 0x484D_4131)
        for _ in 0..<3000 {
            let key = (0..<Int(random.next() % 151)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let message = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let fast = key.withUnsafeBytes { k in
                message.withUnsafeBytes { LowLevelHMACSHA1.authenticationCode(for: $0, using: k) }
            }
            let evp = key.withUnsafeBytes { k in
                message.withUnsafeBytes { HashAlgorithm.sha1.authenticationCode(for: $0, using: k) }
            }
            #expect(fast == evp, "key \(key.count) bytes, message \(message.count) bytes")
        }
        // RFC 2202 §3, test case 6: an 80-byte key (hashed first).
        let key = [UInt8](repeating: 0xAA, count: 80)
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        let mac = key.withUnsafeBytes { k in
            message.withUnsafeBytes { LowLevelHMACSHA1.authenticationCode(for: $0, using: k) }
        }
        #expect(mac.hexLowercased == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test(
        "the canonical query of pairs equals the reference on 2000 random pair lists (short keys, and long ones sharing their first eight bytes and more; short lists and ones past the insertion sort's limit; key= and key-only forms), and a repeated key is reported exactly when two keys are the same bytes"
    )
    func canonicalQueryOfPairsMatchesTheReference() {
        let random = SeededRandom(seed: 0x5041_4952)
        let alphabet = Array("abZ09-._~ %&=+/".utf8) + [0xC3, 0xA9]
        for _ in 0..<2000 {
            // One list in eight is longer than the insertion sort takes (the standard sort's path).
            let pairCount =
                random.next() % 8 == 0
                ? CanonicalQuery.insertionSortLimit + 1 + Int(random.next() % 8) : Int(random.next() % 12)
            let pairs: [(key: String, value: String)] = (0..<pairCount).map { _ in
                // A quarter of the keys share a ten-byte prefix: the sort's first-eight-bytes numbers tie.
                let key =
                    random.next() % 4 == 0
                    ? "Signature%" + Self.text(random, alphabet, count: Int(random.next() % 3))
                    : Self.text(random, alphabet, count: Int(random.next() % 3))
                return (key, Self.text(random, alphabet, count: Int(random.next() % 20)))
            }
            var repeated = false
            let canonical = CanonicalQuery.fromPairs(pairs, emptyValue: .keyEquals, hasRepeatedKey: &repeated)
            let sorted = pairs.map {
                (
                    ReferenceSigV4.encode(Array($0.key.utf8), keepSlash: false),
                    ReferenceSigV4.encode(Array($0.value.utf8), keepSlash: false)
                )
            }
            .sorted { $0.0 != $1.0 ? $0.0.lexicographicallyPrecedes($1.0) : $0.1.lexicographicallyPrecedes($1.1) }
            let reference = sorted.map { $0.0 + [UInt8(ascii: "=")] + $0.1 }
            #expect(canonical == Array(reference.joined(separator: [UInt8(ascii: "&")])))
            // OSS's form: a key with an empty value is written alone.
            let keyOnly = sorted.map { $0.1.isEmpty ? $0.0 : $0.0 + [UInt8(ascii: "=")] + $0.1 }
            #expect(
                CanonicalQuery.fromPairs(pairs, emptyValue: .keyOnly)
                    == Array(keyOnly.joined(separator: [UInt8(ascii: "&")]))
            )
            #expect(repeated == (Set(pairs.map { Array($0.key.utf8) }).count < pairs.count))
        }
    }

    @Test(
        "the percent encoder's word-at-a-time path equals the reference (RFC 3986 by byte) on 5000 random byte strings, both encode sets"
    )
    func percentEncodingMatchesTheReference() {
        let random = SeededRandom(seed: 0x5043_5421)
        // Mostly unreserved runs (the fast path), with `/`, `%`, spaces, controls and high bytes.
        let alphabet =
            Array("abcXYZ019-._~".utf8) + Array("abcXYZ019-._~".utf8) + [
                0x2F, 0x2F, 0x25, 0x20, 0x00, 0x7F, 0x80, 0xC3, 0xFF, 0x2B, 0x3D,
            ]
        for _ in 0..<5000 {
            let count = Int(random.next() % 41)
            let bytes = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            for (set, keepSlash) in [(PercentEncoding.EncodeSet.unreserved, false), (.unreservedAndSlash, true)] {
                let fast = [UInt8](unsafeUninitializedCapacity: 3 * count + 1) { buffer, initialized in
                    var out = OutputCursor(buffer: buffer)
                    bytes.withUnsafeBufferPointer { PercentEncoding.encode($0, set, into: &out) }
                    initialized = out.position
                }
                let reference = ReferenceSigV4.encode(bytes, keepSlash: keepSlash)
                #expect(fast == reference, "\(bytes) \(set)")
                // Into a buffer of exactly the encoded length: no word store reaches past it.
                let exact = [UInt8](unsafeUninitializedCapacity: reference.count) { buffer, initialized in
                    var out = OutputCursor(buffer: buffer)
                    bytes.withUnsafeBufferPointer { PercentEncoding.encode($0, set, into: &out) }
                    initialized = out.position
                }
                #expect(exact == reference, "\(bytes) \(set), exact room")
            }
        }
    }

    @Test("OSS V4 canonical requests (header and URL mode) equal the reference on 2000 random requests")
    func ossV4MatchesTheReference() throws {
        let random = SeededRandom(seed: 0x4F53_5334)
        let names = [
            "x-oss-meta-a", "X-OSS-Meta-B", "x-oss-meta-a", "Content-Type", "content-md5", "Host", "User-Agent",
            "x-oss-date",
            "Authorization", "X-Custom", "x-oss-security-token", "x-oss-content-sha256",
        ]
        for round in 0..<2000 {
            let token: String? = round % 3 == 0 ? nil : "sts-token"
            let credentials = try Credentials(
                accessKeyId: "LTAIEXAMPLE",
                secretAccessKey: "secret",
                sessionToken: token
            )
            let signer = try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou")
            let headers = (0..<Int(random.next() % 8)).map { _ in
                HTTPHeader(Self.pick(random, names), Self.headerValue(random))
            }
            let key = Self.text(random, Array("ab/ é~%+".utf8), count: Int(random.next() % 12))
            let query = Self.rawQuery(random)
            var request = OSSRequest(
                method: "PUT",
                target: "/" + key + (query.isEmpty ? "" : "?" + query),
                headers: headers,
                bucket: "bucket",
                key: key
            )
            request.additionalHeaders = (0..<Int(random.next() % 3)).map { _ in
                Self.pick(random, ["host", "User-Agent", "x-custom", "x-oss-meta-a"])
            }
            let signed = try signer.sign(request, at: Self.time, keepingCanonicalRequest: true)
            let additional = ReferenceOSS.additionalHeaders(request.additionalHeaders, present: nil)
            #expect(
                signed.canonicalRequest
                    == ReferenceOSS.v4CanonicalRequest(
                        method: "PUT",
                        bucket: "bucket",
                        key: key,
                        parameters: request.parameters,
                        headers: headers,
                        additional: additional,
                        headerMode: Self.time.amzDate,
                        token: token
                    ),
                "\(headers)"
            )
            #expect(
                signed.authorization?.hasSuffix(
                    additional.isEmpty ? signed.signature : "AdditionalHeaders=" + additional.joined(separator: ";")
                ) == true
            )
            // URL mode: the request's headers as they are; the signature's parameters are in the query.
            let presigned = try signer.presign(request, at: Self.time, expires: 600, keepingCanonicalRequest: true)
            let presignAdditional = ReferenceOSS.additionalHeaders(request.additionalHeaders, present: headers)
            var parameters = request.parameters
            if let token { parameters.append(("x-oss-security-token", token)) }
            parameters += [
                ("x-oss-date", Self.time.amzDate), ("x-oss-expires", "600"),
                ("x-oss-signature-version", "OSS4-HMAC-SHA256"),
                ("x-oss-credential", "LTAIEXAMPLE/20261201/cn-hangzhou/oss/aliyun_v4_request"),
            ]
            if !presignAdditional.isEmpty {
                parameters.append(("x-oss-additional-headers", presignAdditional.joined(separator: ";")))
            }
            #expect(
                presigned.canonicalRequest
                    == ReferenceOSS.v4CanonicalRequest(
                        method: "PUT",
                        bucket: "bucket",
                        key: key,
                        parameters: parameters,
                        headers: headers,
                        additional: presignAdditional,
                        headerMode: nil,
                        token: nil
                    ),
                "\(headers)"
            )
        }
    }

    @Test(
        "OSS V1 CanonicalizedOSSHeaders equal the reference on 2000 random requests (header mode, with and without a token)"
    )
    func ossV1HeadersMatchTheReference() throws {
        let random = SeededRandom(seed: 0x4F53_5331)
        let names = [
            "x-oss-meta-a", "X-OSS-Meta-A", "x-oss-acl", "Content-Type", "Date", "x-oss-security-token", "X-Other",
        ]
        for round in 0..<2000 {
            let token: String? = round % 2 == 0 ? nil : "sts-token"
            let credentials = try Credentials(
                accessKeyId: "LTAIEXAMPLE",
                secretAccessKey: "secret",
                sessionToken: token
            )
            let signer = try OSSSigner(credentials: credentials, version: .v1)
            let headers = (0..<Int(random.next() % 7)).map { _ in
                HTTPHeader(Self.pick(random, names), Self.headerValue(random))
            }
            let request = OSSRequest(method: "GET", target: "/k", headers: headers, bucket: "bucket", key: "k")
            let signed = try signer.sign(request, at: Self.time)
            let fixed =
                "GET\n\(headers.first(named: "content-md5") ?? "")\n\(headers.first(named: "content-type") ?? "")\n\(Self.time.rfc1123)\n"
            #expect(
                signed.stringToSign == fixed + ReferenceOSS.v1HeaderLines(headers, token: token) + "/bucket/k",
                "\(headers)"
            )
        }
    }

    @Test(
        "a raw query's decoded pairs: split on & bytes (a combining mark after & still separates), the first = only, both sides percent-decoded, empty parts kept or skipped"
    )
    func decodedQueryPairs() {
        func pairs(_ query: String, omittingEmpty: Bool) -> [String] {
            CanonicalQuery.decodedPairs(query, omittingEmpty: omittingEmpty).map { "\($0.key)|\($0.value)" }
        }
        #expect(pairs("a=1&b&c=%20x%3D&d==2", omittingEmpty: true) == ["a|1", "b|", "c| x=", "d|=2"])
        #expect(pairs("a=1&&b=", omittingEmpty: true) == ["a|1", "b|"])
        #expect(pairs("a=1&&b=", omittingEmpty: false) == ["a|1", "|", "b|"])
        #expect(pairs("", omittingEmpty: true).isEmpty)
        // "&\u{301}" is one grapheme cluster: a Character split would read one pair, x = "1&\u{301}acl".
        #expect(pairs("x=1&\u{301}acl", omittingEmpty: true) == ["x|1", "\u{301}acl|"])
        #expect(pairs("k=%E2%82%AC&%FF=v", omittingEmpty: true) == ["k|€", "\u{FFFD}|v"])
    }
}
