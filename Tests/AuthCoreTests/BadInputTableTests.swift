import AuthCore
import AuthCoreTestSupport
import Testing

/// One table per public entry point of the engine that reads outside data: malformed, truncated,
/// oversized, wrong-kind and out-of-range values each give their documented error code (never a trap).
@Suite("Bad-input tables: the engine's entry points")
struct BadInputTableTests {
    static let hundredKilobyteHex = String(repeating: "f", count: 100_000)

    @Test("hex and Base64 codecs")
    func codecs() {
        let hex: [(String, AuthCoreError.Code)] = [
            ("", .invalidHex), ("0", .invalidHex), ("zz", .invalidHex), ("0g", .invalidHex), ("00 ", .invalidHex),
            ("é0", .invalidHex),
        ]
        for (text, code) in hex { #expect(throws: AuthCoreError(code, ""), "\(text)") { try Hex.decode(text) } }
        #expect(throws: AuthCoreError(.invalidHex, "")) { try Hex.decodeNumber("") }
        #expect(throws: AuthCoreError(.invalidHex, "")) { try Hex.decodeNumber(Self.hundredKilobyteHex + "x") }
        #expect((try? Hex.decodeNumber(Self.hundredKilobyteHex))?.count == 50_000)
        for text in ["", "A", "AB", "ABC", "A===", "AB=C", "ABC*", "QUJ=\n", "QUI=QUI=", "QR=="] {
            #expect(throws: AuthCoreError(.invalidBase64, ""), "\(text)") { try Base64.decode(text) }
        }
    }

    @Test("big numbers and SRP public values: oversized, zero, N, above N, truncated")
    func srp() throws {
        #expect(throws: AuthCoreError(.inputTooLarge, "")) {
            try CognitoSRP.number(fromHex: Self.hundredKilobyteHex, parameter: "SRP_B")
        }
        #expect(throws: AuthCoreError(.invalidHex, "")) { try CognitoSRP.number(fromHex: "", parameter: "SRP_B") }
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let n = configuration.group.modulus
        let client = SRPClient(configuration: configuration)
        let hostile: [[UInt8]] = [
            [], [0], try BigUInt(0).bigEndianBytes(paddedTo: 256), try n.bigEndianBytes(paddedTo: 256),
            try (n + n).bigEndianBytes(paddedTo: 257),
            [UInt8](repeating: 0xFF, count: 100_000),
        ]
        for b in hostile {
            #expect(throws: AuthCoreError.self, "B of \(b.count) bytes") {
                let ephemeral = try client.makeEphemeral(random: SeededRandom(seed: 3))
                _ = try client.processChallenge(
                    username: Array("alice".utf8),
                    password: SecureBytes(Array("pw".utf8)),
                    salt: [UInt8](repeating: 1, count: 16),
                    serverPublicValue: b,
                    ephemeral: ephemeral
                )
            }
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, privateValueBitCount: 1 << 40)
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, saltByteCount: -1)
        }
        #expect(throws: AuthCoreError.self) { try ModularContext(modulus: BigUInt(10), maximumExponentBitCount: 64) }
        #expect(throws: AuthCoreError.self) { try ModularContext(modulus: BigUInt(11), maximumExponentBitCount: -1) }
    }

    @Test("HKDF output lengths out of range")
    func hkdf() {
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: [1, 2, 3], salt: [])
        for length in [-1, 0, 255 * 32 + 1, Int.max, Int.min] {
            #expect(throws: AuthCoreError.self, "\(length)") {
                try HKDF<SHA256>.expand(pseudoRandomKey: prk, info: [], outputByteCount: length)
            }
        }
    }

    @Test("request signing: a 10 MB header value, a huge target, bad expiries, out-of-range times")
    func signing() throws {
        let signer = try SigV4Signer(
            credentials: try Credentials(accessKeyId: "AKID", secretAccessKey: "secret"),
            region: "us-east-1",
            service: "s3"
        )
        let time = Timestamp(year: 2026, month: 3, day: 3)!
        let big = String(repeating: "v", count: 10_000_000)
        let signed = try signer.sign(
            SigV4Request(
                method: "GET",
                target: "/",
                headers: [HTTPHeader("Host", "h"), HTTPHeader("X-Big", big)],
                payload: .bytes([])
            ),
            at: time
        )
        #expect(signed.headers.count >= 2)
        _ = try signer.sign(
            SigV4Request(
                method: "GET",
                target: "/" + String(repeating: "%zz", count: 300_000),
                headers: [HTTPHeader("Host", "h")],
                payload: .bytes([])
            ),
            at: time
        )
        let request = SigV4Request(method: "GET", target: "/", headers: [HTTPHeader("Host", "h")], payload: .bytes([]))
        for expires in [0, -1, 604_801, Int.max, Int.min] {
            #expect(throws: AuthCoreError(.invalidParameter, ""), "\(expires)") {
                try signer.presign(request, at: time, expires: expires)
            }
        }
        for edge in [Timestamp.minimum, Timestamp.maximum] {
            _ = try signer.sign(request, at: edge)
            _ = try signer.presign(request, at: edge, expires: 60)
        }
        #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try signer.sign(
                SigV4Request(
                    method: "GET",
                    target: "no-slash",
                    headers: [HTTPHeader("Host", "h")],
                    payload: .bytes([])
                ),
                at: time
            )
        }
        #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try signer.sign(
                SigV4Request(
                    method: "GET",
                    target: "/",
                    headers: [HTTPHeader("Bad Name", "v"), HTTPHeader("Host", "h")],
                    payload: .bytes([])
                ),
                at: time
            )
        }
        let oss = try OSSSigner(
            credentials: try Credentials(accessKeyId: "LTAI", secretAccessKey: "s"),
            version: .v4,
            region: "cn-hangzhou"
        )
        let ossRequest = OSSRequest(
            method: "GET",
            target: "/b/k",
            headers: [HTTPHeader("Host", "b.oss")],
            bucket: "b",
            key: "k"
        )
        for expires in [0, -1, 604_801, Int.max] {
            #expect(throws: AuthCoreError(.invalidParameter, ""), "\(expires)") {
                try oss.presign(ossRequest, at: time, expires: expires)
            }
        }
        _ = try oss.sign(ossRequest, at: .maximum)
    }

    @Test("URLs: malformed, truncated, hostile hosts and ports")
    func urls() {
        for text in [
            "", "https", "https://", "https:///x", "ftp://h/", "https://u@h/", "https://[::1/", "https://h:0/",
            "https://h:65536/",
            "https://h:-1/", "https://h:99999999999999999999/", "https://h:/", "https://h x/", "https://h\u{7F}/",
            "https://\u{410}.com/",
            "https://%65vil.com/", "https://[::1]x/", "https://[zz]/", "https://h\\@evil.com/",
        ] {
            #expect(throws: AuthCoreError(.malformedInput, ""), "\(text)") { try RequestURL(text) }
        }
    }
}
