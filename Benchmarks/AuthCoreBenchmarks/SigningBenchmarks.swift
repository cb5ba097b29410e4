import AuthCore
import CAuthCoreBaselines

/// SigV4 and OSS signing: header signing with a warm key cache, presigning, payload hashing,
/// aws-chunked streaming, beside the C hashing floor and botocore.
func signingBenchmarks() -> [BenchmarkCase] {
    guard
        let credentials = try? Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        ),
        let signer = try? SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3),
        let service = try? SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api"),
        let oss = try? OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou"),
        // STS credentials: a session token of a typical length (a few hundred bytes of base64).
        let temporary = try? Credentials(
            accessKeyId: "ASIAIOSFODNN7EXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            sessionToken: "IQoJb3JpZ2luX2VjE" + String(repeating: "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/", count: 16)
        ),
        let tokenService = try? SigV4Signer(credentials: temporary, region: "us-east-1", service: "execute-api")
    else { return [] }
    let time = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0) ?? Timestamp.now()
    // A typical GET: 5 headers, empty body (the same request botocore signs in py.sigv4.sign.get).
    let get = SigV4Request(
        method: "GET",
        target: "/prod/users/42/profile?fields=name&verbose=true",
        headers: [
            HTTPHeader("Host", "abc123.execute-api.us-east-1.amazonaws.com"), HTTPHeader("Accept", "application/json"),
            HTTPHeader("User-Agent", "authcore-bench/1.0"),
            HTTPHeader("X-Request-Id", "7f9c2d5e-8a41-4b5e-9c77-2f1e3d4c5b6a"),
            HTTPHeader("Content-Type", "application/json"),
        ]
    )
    let put = SigV4Request(
        method: "PUT",
        target: "/bucket/objects/report%202026.json",
        headers: [HTTPHeader("Host", "bucket.s3.amazonaws.com"), HTTPHeader("Content-Type", "application/json")],
        payload: .bytes([UInt8](repeating: 0x61, count: 1024))
    )
    let presign = SigV4Request(
        method: "GET",
        target: "/bucket/photos/2026/holiday%20photo.jpg",
        headers: [HTTPHeader("Host", "bucket.s3.amazonaws.com")],
        payload: .unsigned
    )
    let megabyte = [UInt8](repeating: 0x5A, count: 1 << 20)
    let ossGet = OSSRequest(
        method: "GET",
        target: "/photos/2026/holiday.jpg",
        headers: [HTTPHeader("Host", "bucket.oss-cn-hangzhou.aliyuncs.com"), HTTPHeader("Content-Type", "image/jpeg")],
        bucket: "bucket",
        key: "photos/2026/holiday.jpg"
    )

    // Alibaba Cloud API signatures and the self-signed mode's authority.
    let rpc = AliyunRPCSigner(credentials: credentials)
    let assumeRole: [(key: String, value: String)] = [
        ("RoleArn", "acs:ram::1234567890123456:role/oss-app-role"), ("RoleSessionName", "user-42"),
        ("DurationSeconds", "3600"),
    ]
    let acs3 = AliyunACS3Signer(credentials: credentials)
    let acs3Request = SigV4Request(
        method: "POST",
        target: "/",
        headers: [
            HTTPHeader("host", "sts.aliyuncs.com"), HTTPHeader("x-acs-action", "AssumeRole"),
            HTTPHeader("x-acs-version", "2015-04-01"),
            HTTPHeader("content-type", "application/x-www-form-urlencoded"),
        ],
        payload: .bytes(
            Array(
                "DurationSeconds=3600&RoleArn=acs%3Aram%3A%3A1234567890123456%3Arole%2Foss-app-role&RoleSessionName=user-42"
                    .utf8
            )
        )
    )
    let authority = try? OSSSigningAuthority(
        credentials: credentials,
        policy: OSSSigningPolicy(buckets: ["bucket"], keyPrefixes: ["photos/"], regions: ["cn-hangzhou"])
    )
    let pending = try? OSSDetachedSigner(version: .v4, region: "cn-hangzhou").prepare(ossGet, at: time)
    let selfSigned = pending.map { OSSSignatureRequest($0) } ?? OSSSignatureRequest(version: .v4, stringToSign: "")

    // The hashing floor's inputs: the same canonical request and string-to-sign prefix, and the signing key.
    let reference = try? service.sign(get, at: time, keepingCanonicalRequest: true)
    let canonical = reference?.canonicalRequestBytes ?? []
    let prefix = Array(("AWS4-HMAC-SHA256\n\(time.amzDate)\n\(service.credentialScope(time))\n").utf8)
    let signingKey = signingKeyBytes(
        credentials: credentials,
        date: time.dateStamp,
        region: "us-east-1",
        service: "execute-api"
    )
    let secret = credentials.secretAccessKey.withUnsafeBytes { Array($0) }
    /// A warm twin (`c_authcore_baseline_sigv4_hashing[_evp]`) run `n` times; its signature, in hex.
    func warmTwin(
        _ twin: (
            UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, Int, UnsafeMutablePointer<CChar>?
        ) -> Void,
        _ n: Int
    ) -> String {
        var out = [CChar](repeating: 0, count: 65)
        canonical.withUnsafeBytes { c in
            prefix.withUnsafeBytes { p in
                signingKey.withUnsafeBytes { k in
                    twin(c.baseAddress, c.count, p.baseAddress, p.count, k.baseAddress, k.count, n, &out)
                }
            }
        }
        return String(decoding: out.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    /// A cold twin (`c_authcore_baseline_sigv4_cold[_evp]`) run `n` times; its signature, in hex.
    func coldTwin(
        _ twin: (
            UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?
        ) -> Void,
        _ n: Int
    ) -> String {
        var out = [CChar](repeating: 0, count: 65)
        canonical.withUnsafeBytes { c in
            prefix.withUnsafeBytes { p in
                secret.withUnsafeBytes { s in
                    twin(
                        c.baseAddress,
                        c.count,
                        p.baseAddress,
                        p.count,
                        s.baseAddress,
                        s.count,
                        time.dateStamp,
                        "us-east-1",
                        "execute-api",
                        n,
                        &out
                    )
                }
            }
        }
        return String(decoding: out.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    // Each twin computes the signature the signer computes, or it measures something else.
    let twinSignatures = [
        warmTwin(c_authcore_baseline_sigv4_hashing, 1), warmTwin(c_authcore_baseline_sigv4_hashing_evp, 1),
        coldTwin(c_authcore_baseline_sigv4_cold, 1), coldTwin(c_authcore_baseline_sigv4_cold_evp, 1),
    ]
    guard let expected = reference?.signature, twinSignatures.allSatisfy({ $0 == expected }) else {
        fatalError(
            "a SigV4 C twin's signature differs from the signer's: \(twinSignatures) vs \(reference?.signature ?? "none")"
        )
    }
    /// A signature by a new signer with an empty key cache (a server signing for many users' credentials).
    @inline(__always) func coldSignature(_ credentials: Credentials) -> [HTTPHeader]? {
        let cold = try? SigV4Signer(
            credentials: credentials,
            region: "us-east-1",
            service: "execute-api",
            keyCache: SigningKeyCache(capacity: 1)
        )
        return (try? cold?.sign(get, at: time))?.headers
    }
    // Each row's operation succeeds, or the row (which discards errors) would time its error path.
    let succeeds: [(String, Bool)] = [
        ("sigv4.sign.put.1KiB", (try? signer.sign(put, at: time)) != nil),
        ("sigv4.presign", (try? signer.presign(presign, at: time, expires: 3600)) != nil),
        ("sigv4.sign.get.token", (try? tokenService.sign(get, at: time)) != nil),
        ("sigv4.sign.get.cold.token", coldSignature(temporary) != nil),
        ("oss.v4.sign.get", (try? oss.sign(ossGet, at: time)) != nil),
        (
            "aliyun.rpc.assume-role",
            (try? rpc.sign(
                action: "AssumeRole",
                version: "2015-04-01",
                parameters: assumeRole,
                at: time,
                nonce: "3f2b6c1e9d4a4e57"
            )) != nil
        ),
        ("aliyun.acs3.assume-role", (try? acs3.sign(acs3Request, at: time, nonce: "3f2b6c1e9d4a4e57")) != nil),
        ("oss.v4.self-signed.authority", (try? authority?.sign(selfSigned, at: time)) != nil),
    ]
    if let failing = succeeds.first(where: { !$0.1 }) {
        fatalError("benchmark \(failing.0): its operation fails, so it would time the error path")
    }

    return [
        BenchmarkCase(name: "sigv4.sign.get", note: "5 headers, empty body, warm key cache") { n in
            for _ in 0..<n { blackHole((try? service.sign(get, at: time))?.headers) }  // the headers a client adds
        },
        BenchmarkCase(
            name: "c.sigv4.sign.get",
            note: "hashing floor, the signer's calls: SHA256_CTX hash + HMAC from saved states"
        ) { n in
            blackHole(warmTwin(c_authcore_baseline_sigv4_hashing, n))
        },
        evpTwin(
            of: "sigv4.sign.get",
            note: "the same floor over EVP: EVP_Digest + a reused EVP_MAC_CTX (issue 14's floor)"
        ) { n in
            blackHole(warmTwin(c_authcore_baseline_sigv4_hashing_evp, n))
        },
        // Cold: a server signing for many users' credentials — a new signer and an empty key cache
        // each time (the key is derived, its cache entry built, then the signature made).
        BenchmarkCase(name: "sigv4.sign.get.cold", note: "new signer, empty key cache: key derivation + signature") {
            n in
            for _ in 0..<n { blackHole(coldSignature(credentials)) }
        },
        BenchmarkCase(
            name: "c.sigv4.sign.get.cold",
            note: "the signer's calls: four HMACs from stack schedules, the key's schedule + the floor"
        ) { n in
            blackHole(coldTwin(c_authcore_baseline_sigv4_cold, n))
        },
        evpTwin(of: "sigv4.sign.get.cold", note: "the same over EVP: a re-keyed EVP_MAC_CTX, a keyed one, EVP_Digest") {
            n in
            blackHole(coldTwin(c_authcore_baseline_sigv4_cold_evp, n))
        },
        // With STS credentials: the signer adds X-Amz-Security-Token and signs its line (its bytes
        // lent from the signer, SessionTokenBytes); a new signer copies the token once.
        BenchmarkCase(
            name: "sigv4.sign.get.token",
            note: "the same GET with a 625-byte session token, warm",
            pairedWith: "sigv4.sign.get"
        ) { n in
            for _ in 0..<n { blackHole((try? tokenService.sign(get, at: time))?.headers) }
        },
        BenchmarkCase(name: "sigv4.sign.get.cold.token", note: "new signer with the session token, empty key cache") {
            n in
            for _ in 0..<n { blackHole(coldSignature(temporary)) }
        },
        BenchmarkCase(name: "sigv4.sign.put.1KiB", bytesPerIteration: 1024, note: "S3 PUT, 1 KiB body hashed") { n in
            for _ in 0..<n { blackHole(try? signer.sign(put, at: time)) }
        },
        BenchmarkCase(name: "sigv4.presign", note: "presigned S3 GET, 1 hour", pairedWith: "sigv4.sign.get") { n in
            for _ in 0..<n { blackHole(try? signer.presign(presign, at: time, expires: 3600)) }
        },
        BenchmarkCase(name: "sigv4.payload.1MiB", bytesPerIteration: 1 << 20, note: "PUT signing with a 1 MiB body") {
            n in
            let request = SigV4Request(
                method: "PUT",
                target: "/b/k",
                headers: [HTTPHeader("Host", "b.s3.amazonaws.com")],
                payload: .bytes(megabyte)
            )
            for _ in 0..<n { blackHole(try? signer.sign(request, at: time)) }
        },
        BenchmarkCase(
            name: "sigv4.chunked.64MiB",
            bytesPerIteration: 64 << 20,
            note: "aws-chunked, 64 KiB chunks from a generator",
            measuresPeakRSS: true
        ) { n in
            for _ in 0..<n {
                blackHole(chunkedUpload(signer: signer, time: time, total: 64 << 20, chunkSize: 64 << 10))
            }
        },
        BenchmarkCase(name: "oss.v4.sign.get", note: "OSS4-HMAC-SHA256 header signature", pairedWith: "sigv4.sign.get")
        { n in
            for _ in 0..<n { blackHole(try? oss.sign(ossGet, at: time)) }
        },
        BenchmarkCase(
            name: "aliyun.rpc.assume-role",
            note: "RPC signature 1.0 of an STS AssumeRole call (HMAC-SHA1)",
            pairedWith: "sigv4.sign.get"
        ) { n in
            for _ in 0..<n {
                blackHole(
                    try? rpc.sign(
                        action: "AssumeRole",
                        version: "2015-04-01",
                        parameters: assumeRole,
                        at: time,
                        nonce: "3f2b6c1e9d4a4e57"
                    )
                )
            }
        },
        BenchmarkCase(
            name: "aliyun.acs3.assume-role",
            note: "ACS3-HMAC-SHA256 of the same call, form body",
            pairedWith: "sigv4.sign.get"
        ) { n in
            for _ in 0..<n { blackHole(try? acs3.sign(acs3Request, at: time, nonce: "3f2b6c1e9d4a4e57")) }
        },
        BenchmarkCase(
            name: "oss.v4.self-signed.authority",
            note: "self-signed mode, server side: policy check of a V4 request + signature"
        ) { n in
            for _ in 0..<n { blackHole(try? authority?.sign(selfSigned, at: time)) }
        },
    ] + sigV4ABenchmarks(credentials: credentials, get: get, time: time)
}

/// SigV4a: a warm header signature (derived key cached) beside its floor, the ECDSA P-256 signature of
/// the same string to sign over EVP, and the key derivation alone (cold).
func sigV4ABenchmarks(credentials: Credentials, get: SigV4Request, time: Timestamp) -> [BenchmarkCase] {
    guard
        let signer = try? SigV4ASigner(
            credentials: credentials,
            regionSet: ["us-east-1", "us-west-2"],
            service: "execute-api"
        ),
        let stringToSign = (try? signer.sign(get, at: time))?.stringToSignBytes,
        let scalar = try? SigV4AKey.withDerivedPrivateScalar(credentials, { d throws(AuthCoreError) in Array(d) })
    else { fatalError("benchmark sigv4a.sign.get: its operation fails, so it would time the error path") }
    return [
        BenchmarkCase(name: "sigv4a.sign.get", note: "the same GET, region set us-east-1,us-west-2, derived key cached")
        { n in
            for _ in 0..<n { blackHole((try? signer.sign(get, at: time))?.headers) }
        },
        BenchmarkCase(
            name: "c.sigv4a.sign.get",
            note:
                "the floor: SHA-256 + ECDSA P-256 of the same string to sign (EVP_PKEY_sign; key and context built once)"
        ) { n in
            blackHole(
                scalar.withUnsafeBytes { d in
                    stringToSign.withUnsafeBytes {
                        c_authcore_baseline_ecdsa_p256_sign(d.baseAddress, $0.baseAddress, $0.count, n)
                    }
                }
            )
        },
        BenchmarkCase(
            name: "sigv4a.derive",
            note: "the key pair from the credentials, cold: HMAC-SHA256 KDF + d·G + OpenSSL key import"
        ) { n in
            for _ in 0..<n { blackHole(try? SigV4AKey(credentials: credentials)) }
        },
    ]
}

/// Streams `total` bytes from a generator through aws-chunked signing in `chunkSize` chunks, reusing
/// one buffer (constant memory); returns the last signature.
func chunkedUpload(signer: SigV4Signer, time: Timestamp, total: Int, chunkSize: Int) -> String {
    let request = SigV4Request(
        method: "PUT",
        target: "/bucket/big-object",
        headers: [
            HTTPHeader("Host", "bucket.s3.amazonaws.com"), HTTPHeader("Content-Encoding", "aws-chunked"),
            HTTPHeader("x-amz-decoded-content-length", String(total)),
        ],
        payload: .streaming
    )
    guard let seed = try? signer.sign(request, at: time) else { return "" }
    var chunks = SigV4ChunkSigner(signer: signer, seed: seed)
    var buffer = [UInt8](repeating: 0, count: chunkSize)
    var produced = 0
    var generator: UInt64 = 0x9E37_79B9_7F4A_7C15
    var headerBytes = 0
    while produced < total {
        let size = min(chunkSize, total - produced)
        // The generator: a fresh 64-bit value stamped every 4 KiB of the reused buffer (the rest of
        // the chunk keeps earlier contents), so producing data costs little next to hashing it.
        buffer.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + 8 <= size {
                generator ^= generator << 13
                generator ^= generator >> 7
                generator ^= generator << 17
                raw.storeBytes(of: generator, toByteOffset: offset, as: UInt64.self)
                offset += 4096
            }
        }
        headerBytes +=
            buffer.withUnsafeBytes { chunks.header(forChunk: UnsafeRawBufferPointer(rebasing: $0[0..<size])) }.count
        produced += size
    }
    headerBytes += [UInt8]().withUnsafeBytes { chunks.header(forChunk: $0) }.count
    blackHole(headerBytes)
    return chunks.previousSignature
}

/// The SigV4 signing key, the C baseline's input: derived by the library's one key chain
/// (``SigningScheme/aws4``), not a copy of it.
/// A second C twin of `engine`, `c.<engine>.evp`: the same work over OpenSSL 3's EVP API, reported
/// against the engine row (the signer left EVP for the hot path; this keeps the old floor in view).
func evpTwin(of engine: String, note: String, _ body: @escaping (Int) -> Void) -> BenchmarkCase {
    BenchmarkCase(name: "c.\(engine).evp", note: note, pairedWith: engine, body: body)
}

func signingKeyBytes(credentials: Credentials, date: String, region: String, service: String) -> [UInt8] {
    SigningScheme.aws4.deriveSigningKey(
        secret: credentials.secretAccessKey,
        date: date,
        region: region,
        service: service
    )
    .withUnsafeBytes { Array($0) }
}
