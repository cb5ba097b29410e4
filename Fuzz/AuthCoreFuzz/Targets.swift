import AuthCore
import AuthCoreClients
import AuthCoreHTTP
import AuthCoreReferenceModels
import AuthCoreServer
import AuthCoreVectors
import Foundation

enum FuzzTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "timestamp", run: timestamp),
        FuzzTarget(name: "skew", run: skew),
        FuzzTarget(name: "credentials-json", run: credentialsJSON),
        FuzzTarget(name: "cognito-sign-in", run: cognitoSignIn),
        FuzzTarget(name: "codecs", run: codecs),
        FuzzTarget(name: "request-url", run: requestURL),
        FuzzTarget(name: "sigv4-canonical", run: sigV4Canonical),
        FuzzTarget(name: "sigv4a-canonical", run: sigV4ACanonical),
        FuzzTarget(name: "oss-sign", run: ossSign),
        FuzzTarget(name: "oss-authority", run: ossAuthority),
        FuzzTarget(name: "aliyun-sign", run: aliyunSign),
        FuzzTarget(name: "srp-public", run: srpPublic),
        FuzzTarget(name: "bigint", run: bigint),
        FuzzTarget(name: "secret-power", run: secretPower),
        FuzzTarget(name: "srp-any-length", run: srpAnyLength),
        FuzzTarget(name: "vectors", run: vectors),
        FuzzTarget(name: "cognito-stored", run: cognitoStored),
        FuzzTarget(name: "identity", run: identity),
        FuzzTarget(name: "http1-response", run: http1Response),
        FuzzTarget(name: "app-server", run: appServer),
        FuzzTarget(name: "secret-json", run: secretJSON),
        FuzzTarget(name: "server-input", run: serverInput),
        FuzzTarget(name: "aws-config", run: awsConfig),
        FuzzTarget(name: "hosted-ui", run: hostedUI),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

// MARK: - Timestamps

/// Every parser on the input text; every value parsed re-formats and re-parses to itself; any two
/// 64-bit numbers as seconds and an offset go through `adding`, `seconds(until:)` and every formatter.
@Sendable func timestamp(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let t = try? Timestamp(amzDate: text), (try? Timestamp(amzDate: t.amzDate)) != t {
        fuzzFailure("amzDate round trip: \(text)")
    }
    if let t = try? Timestamp(rfc1123: text), (try? Timestamp(rfc1123: t.rfc1123)) != t {
        fuzzFailure("rfc1123 round trip: \(text)")
    }
    if let t = try? Timestamp(iso8601: text) {
        guard let back = try? Timestamp(iso8601: t.iso8601), back.secondsSince1970 == t.secondsSince1970 else {
            fuzzFailure("iso8601 round trip: \(text)")
        }
    }
    var reader = ByteReader(bytes)
    let seconds = Int64(bitPattern: reader.uint64())
    let offset = Int64(bitPattern: reader.uint64())
    let nanos = Int32(truncatingIfNeeded: Int64(bitPattern: reader.uint64()))
    let base = Timestamp(secondsSince1970: seconds, nanoseconds: nanos)
    for t in [base, base.adding(seconds: offset), base.adding(seconds: 0 &- offset)] {
        guard t >= .minimum, t <= .maximum, (0..<1_000_000_000).contains(t.nanoseconds) else {
            fuzzFailure("out of range: \(seconds) \(offset)")
        }
        let basic = t.iso8601.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        guard t.amzDate == basic, t.amzDate.utf8.count == 16 else {
            fuzzFailure("AmzDate differs from the calendar code at \(t.secondsSince1970)")
        }
        guard (try? Timestamp(rfc1123: t.rfc1123)) == Timestamp(secondsSince1970: t.secondsSince1970) else {
            fuzzFailure("rfc1123 at \(t.secondsSince1970)")
        }
        _ = t.cognitoTimestamp
        _ = t.dateStamp
        _ = base.seconds(until: t)
    }
    if let checked = try? Timestamp(checkedSecondsSince1970: seconds, nanoseconds: nanos),
        checked.secondsSince1970 != seconds
    {
        fuzzFailure("checked init changed \(seconds)")
    }
    if let t = Timestamp(checkedEpochSeconds: Double(bitPattern: UInt64(bitPattern: seconds))),
        !(t >= .minimum && t <= .maximum)
    {
        fuzzFailure("checked epoch seconds out of range")
    }
}

// MARK: - Skew learning

/// A fuzzed `Date` header, status and error body: whatever is learned is a recognised skew answer
/// and within the bound.
@Sendable func skew(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let status = 300 + Int(reader.byte()) % 300
    let bound = Int64(reader.byte()) * 3600
    let date = reader.string()
    let body = reader.rest()
    let response = HTTPResponse(status: status, headers: [HTTPHeader("Date", date)], body: body)
    let local = Timestamp(year: 2026, month: 12, day: 1)!
    let tracker = ClockSkewTracker(maximumOffsetSeconds: bound)
    if let offset = tracker.learn(from: response, host: "example.com", signedAt: local, localNow: local) {
        guard ClockSkewTracker.isSkewAnswer(response), abs(offset) <= bound, abs(offset) > tracker.threshold else {
            fuzzFailure("learned \(offset) from status \(status) with bound \(bound)")
        }
        guard tracker.offset(for: "EXAMPLE.com") == offset else { fuzzFailure("offset not stored per host") }
    }
}

// MARK: - Credentials answers

/// A transport that answers from the fuzz input.
final class FuzzTransport: HTTPTransport {
    private let answers: Locked<[HTTPResponse]>
    init(_ answers: [HTTPResponse]) { self.answers = Locked(answers) }
    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        try answers.withLock { list throws(AuthCoreError) in
            guard !list.isEmpty else { throw AuthCoreError(.transportFailure, "no more answers") }
            return list.removeFirst()
        }
    }
}

func checkCredentials(_ credentials: Credentials) {
    if let expiration = credentials.expiration, !(expiration >= .minimum && expiration <= .maximum) {
        fuzzFailure("expiration out of range")
    }
}

/// The same body as a token-vending answer, a `GetCredentialsForIdentity` answer and an STS XML answer.
@Sendable func credentialsJSON(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let status = [200, 200, 200, 301, 400, 403, 500][Int(reader.byte()) % 7]
    let body = reader.rest()
    let answer = HTTPResponse(
        status: status,
        headers: [HTTPHeader("Date", "Tue, 01 Dec 2026 00:00:00 GMT")],
        body: body
    )
    runBlocking {
        let clock = FixedClock(Timestamp(year: 2026, month: 12, day: 1)!)
        if let vending = try? TokenVendingCredentialsProvider(
            url: try RequestURL("https://vend.example.com/sts"),
            transport: FuzzTransport([answer]),
            clock: clock
        ),
            let credentials = try? await vending.credentials()
        {
            checkCredentials(credentials)
        }
        let sender = SignedRequestSender(
            transport: FuzzTransport([answer, answer]),
            clock: clock,
            skew: ClockSkewTracker()
        )
        if let identity = try? CognitoIdentityClient(region: "us-east-1", sender: sender),
            let credentials = try? await identity.credentialsForIdentity(identityId: "us-east-1:x", logins: ["k": "t"])
        {
            checkCredentials(credentials)
        }
        if let sts = try? STSClient(region: "us-east-1", sender: sender),
            let credentials = try? await sts.assumeRoleWithWebIdentity(
                roleArn: "arn:aws:iam::1:role/r",
                sessionName: "s",
                webIdentityToken: "t"
            )
        {
            checkCredentials(credentials)
        }
    }
}

// MARK: - Cognito sign-in

/// The sign-in state machine over a scripted transport: up to four answers (split at 0xFF), each a
/// 200 or 400; sign in with every flow's first step, then answer a next step if one comes.
@Sendable func cognitoSignIn(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let flow = [CognitoAuthFlow.userSRP, .userPassword, .customWithSRP, .customWithoutSRP, .userAuth][
        Int(reader.byte()) % 5
    ]
    var answers: [HTTPResponse] = []
    while !reader.isAtEnd && answers.count < 4 {
        let status = reader.byte() & 1 == 0 ? 200 : 400
        answers.append(HTTPResponse(status: status, body: reader.field(0xFF)))
    }
    let script = answers
    runBlocking {
        guard
            let configuration = try? CognitoUserPoolConfiguration(
                region: "us-east-1",
                userPoolId: "us-east-1_fuzz",
                clientId: "client"
            )
        else { fuzzFailure("configuration") }
        let signIn = CognitoSignIn(
            configuration: configuration,
            transport: FuzzTransport(script),
            clock: FixedClock(Timestamp(year: 2026, month: 12, day: 1)!)
        )
        let password = SecureBytes(Array("correct horse".utf8))
        let result = try? await signIn.signIn(
            username: "alice",
            password: flow == .customWithoutSRP ? nil : password,
            flow: flow
        )
        if case .nextStep? = result {
            _ = try? await signIn.confirmSignIn(challengeResponse: "123456")
        }
    }
}

// MARK: - Codecs

/// Hex and Base64: whatever decodes re-encodes to the canonical text (so only canonical text
/// decodes), and every byte string round-trips.
@Sendable func codecs(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = try? Hex.decode(text, allowEmpty: true), Hex.encode(decoded) != text.lowercased() {
        fuzzFailure("hex decode accepted non-canonical text")
    }
    if let decoded = try? Hex.decodeNumber(text) {
        let digits = text.lowercased()
        let expected = digits.utf8.count % 2 == 1 ? "0" + digits : digits
        guard Hex.encode(decoded) == expected else { fuzzFailure("hex number decode") }
    }
    if let decoded = try? Base64.decode(text, allowEmpty: true), Base64.encode(decoded) != text {
        fuzzFailure("base64 decode accepted non-canonical text")
    }
    if let decoded = try? Base64.decode(text, alphabet: .urlSafe, allowEmpty: true) {
        let again = Base64.encode(decoded, alphabet: .urlSafe, padding: text.hasSuffix("="))
        guard again == text else { fuzzFailure("base64url decode accepted non-canonical text") }
    }
    guard (try? Hex.decode(Hex.encode(bytes), allowEmpty: true)) == bytes,
        (try? Hex.decode(Hex.encode(bytes, uppercase: true), allowEmpty: true)) == bytes,
        (try? Base64.decode(Base64.encode(bytes), allowEmpty: true)) == bytes,
        (try? Base64.decode(Base64.encode(bytes, alphabet: .urlSafe), alphabet: .urlSafe, allowEmpty: true)) == bytes
    else { fuzzFailure("round trip of \(bytes.count) bytes") }
}

// MARK: - URLs

/// `RequestURL` against Foundation's `URL`: when both parse, they name the same scheme, host and
/// port (the place the credentials go), and `RequestURL` round-trips through its description.
@Sendable func requestURL(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let parsed = try? RequestURL(text) else { return }
    // The description is the URL with session tokens redacted: it parses to the same origin and path,
    // and redacting again changes nothing (a URL without a credential parameter comes back whole).
    guard let again = try? RequestURL(parsed.description), again.origin == parsed.origin, again.path == parsed.path,
        again.description == parsed.description
    else { fuzzFailure("round trip: \(text)") }
    let redacts = parsed.query.utf8.split(separator: UInt8(ascii: "&")).contains { piece in
        let name = piece.prefix { $0 != UInt8(ascii: "=") }
        return ["x-amz-security-token", "security-token", "x-oss-security-token"].contains {
            $0.utf8.elementsEqual(name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        } && name.count < piece.count
    }
    if !redacts, again.target != parsed.target { fuzzFailure("round trip changed the target: \(text)") }
    guard let foundation = URL(string: parsed.description), let host = foundation.host else { return }
    let ours = parsed.host.hasPrefix("[") ? String(parsed.host.dropFirst().dropLast()) : parsed.host
    guard foundation.scheme?.lowercased() == parsed.scheme, host.lowercased() == ours else {
        fuzzFailure("Foundation reads host '\(host)' where RequestURL reads '\(parsed.host)': \(text)")
    }
    guard
        (foundation.port ?? (parsed.scheme == "https" ? 443 : 80))
            == (parsed.port ?? (parsed.scheme == "https" ? 443 : 80))
    else { fuzzFailure("port \(String(describing: foundation.port)) vs \(String(describing: parsed.port)): \(text)") }
}

// MARK: - Signing

/// A fuzzed request for the SigV4 targets: a flags byte (bit 0: S3's rules; the rest: the method),
/// the path (a `?` in it becomes `Q`), the query, then up to 11 headers after `Host`, the names the
/// signer sets itself skipped.
func fuzzedSigV4Request(
    _ reader: inout ByteReader
) -> (s3: Bool, method: String, path: String, query: String, headers: [HTTPHeader]) {
    let flags = reader.byte()
    let method = ["GET", "PUT", "POST", "DELETE"][Int(flags >> 1) % 4]
    let path = String(decoding: reader.field().map { $0 == UInt8(ascii: "?") ? UInt8(ascii: "Q") : $0 }, as: UTF8.self)
    let query = reader.string()
    var headers = [HTTPHeader("Host", "example.amazonaws.com")]
    while !reader.isAtEnd && headers.count < 12 {
        let name = reader.string()
        let value = reader.string()
        if ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"].contains(name.lowercased()) {
            continue
        }
        headers.append(HTTPHeader(name, value))
    }
    return (flags & 1 != 0, method, path, query, headers)
}

/// The SigV4 canonical request of the byte paths against the slow reference in Reference.swift.
@Sendable func sigV4Canonical(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let (s3, method, path, query, headers) = fuzzedSigV4Request(&reader)
    let target = query.isEmpty ? path : path + "?" + query
    let time = Timestamp(year: 2026, month: 12, day: 1, hour: 1, minute: 2, second: 3)!
    guard let credentials = try? Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"),
        let signer = try? SigV4Signer(
            credentials: credentials,
            region: "us-east-1",
            service: s3 ? "s3" : "iam",
            options: s3 ? .s3 : SigV4Options()
        )
    else { fuzzFailure("signer") }
    let request = SigV4Request(method: method, target: target, headers: headers, payload: .bytes([]))
    let expected = ReferenceSigV4.canonicalRequest(
        method: method,
        path: path,
        query: query,
        headers: headers,
        amzDate: time.amzDate,
        s3: s3
    )
    let actual = try? signer.sign(request, at: time, keepingCanonicalRequest: true).canonicalRequest
    switch (expected, actual) {
    case (nil, nil): break
    case (let e?, let a?) where e == a: break
    default:
        fuzzFailure(
            "canonical request differs\n--- reference\n\(expected ?? "(refused)")\n--- AuthCore\n\(actual.map { $0 } ?? "(refused)")"
        )
    }
}

/// SigV4a on a fuzzed region set, method, path, query and headers: the canonical request equals
/// the SigV4 reference model's with `X-Amz-Region-Set` signed (ReferenceSigV4), the signer refuses
/// exactly the region sets the reference refuses, the string to sign is the SigV4a one, and the
/// signature verifies under the derived key; a presigned URL never traps.
@Sendable func sigV4ACanonical(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let regionSetBytes = reader.field()
    let (s3, method, path, query, headers) = fuzzedSigV4Request(&reader)
    let regions = regionSetBytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    // A region set is one or more parts, each non-empty, of bytes above space but DEL, without `/` or `,`.
    let regionSetValid = regions.allSatisfy { part in
        !part.utf8.isEmpty && part.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") }
    }
    let time = Timestamp(year: 2026, month: 12, day: 1, hour: 1, minute: 2, second: 3)!
    guard let credentials = try? Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret") else {
        fuzzFailure("credentials")
    }
    let signer = try? SigV4ASigner(
        credentials: credentials,
        regionSet: regions,
        service: s3 ? "s3" : "iam",
        options: s3 ? .s3 : SigV4Options(),
        keyCache: sigV4AFuzzKeys
    )
    guard let signer else {
        if regionSetValid { fuzzFailure("a valid region set was refused: \(regions)") }
        return
    }
    if !regionSetValid { fuzzFailure("an invalid region set was accepted: \(regions)") }
    let target = query.isEmpty ? path : path + "?" + query
    let request = SigV4Request(method: method, target: target, headers: headers, payload: .bytes([]))
    let expected = ReferenceSigV4.canonicalRequest(
        method: method,
        path: path,
        query: query,
        headers: headers,
        amzDate: time.amzDate,
        s3: s3,
        regionSet: String(decoding: regionSetBytes, as: UTF8.self)
    )
    let signature = try? signer.sign(request, at: time, keepingCanonicalRequest: true)
    switch (expected, signature?.canonicalRequest) {
    case (nil, nil): break
    case (let e?, let a?) where e == a: break
    default:
        fuzzFailure(
            "canonical request differs\n--- reference\n\(expected ?? "(refused)")\n--- AuthCore\n\(signature?.canonicalRequest ?? "(refused)")"
        )
    }
    guard let signature, let expected else { return }
    let hash = SHA256.hash(string: expected).hexLowercased
    let toSign = "AWS4-ECDSA-P256-SHA256\n\(time.amzDate)\n\(time.dateStamp)/\(s3 ? "s3" : "iam")/aws4_request\n\(hash)"
    if signature.stringToSign != toSign {
        fuzzFailure("string to sign differs\n\(toSign)\n---\n\(signature.stringToSign)")
    }
    let valid = try? SigV4AKey.isValidSignature(
        signature.signatureBytes,
        for: Array(toSign.utf8),
        publicKey: signer.key.publicKey
    )
    if valid != true { fuzzFailure("the signature does not verify") }
    _ = try? signer.presign(request, at: time, expires: 600)
}

/// One key cache for the SigV4a target: the fuzzed requests all sign with one key.
let sigV4AFuzzKeys = SigV4AKeyCache(capacity: 1)

/// OSS V1 and V4 signatures over fuzzed keys, queries and headers: errors, never traps; a V4
/// header signature's canonical request equals the slow reference's (ReferenceOSS).
@Sendable func ossSign(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let v4 = reader.byte() & 1 != 0
    let key = reader.string()
    let query = reader.string()
    var headers: [HTTPHeader] = []
    while !reader.isAtEnd && headers.count < 8 { headers.append(HTTPHeader(reader.string(), reader.string())) }
    guard
        let credentials = try? Credentials(
            accessKeyId: "LTAIEXAMPLE",
            secretAccessKey: "secret",
            sessionToken: v4 ? "token" : nil
        ),
        let signer = try? OSSSigner(credentials: credentials, version: v4 ? .v4 : .v1, region: "cn-hangzhou")
    else { fuzzFailure("signer") }
    let time = Timestamp(year: 2026, month: 12, day: 1)!
    let target = "/bucket/\(key)" + (query.isEmpty ? "" : "?\(query)")
    let request = OSSRequest(method: "GET", target: target, headers: headers, bucket: "bucket", key: key)
    if let signed = try? signer.sign(request, at: time, keepingCanonicalRequest: true), v4 {
        let expected = ReferenceOSS.v4CanonicalRequest(
            method: "GET",
            bucket: "bucket",
            key: key,
            parameters: request.parameters,
            headers: headers,
            additional: [],
            headerMode: time.amzDate,
            token: "token"
        )
        if signed.canonicalRequest != expected {
            fuzzFailure(
                "OSS V4 canonical request differs\n--- reference\n\(expected)\n--- AuthCore\n\(signed.canonicalRequest ?? "(none)")"
            )
        }
    }
    _ = try? signer.presign(request, at: time, expires: 600)
}

/// The self-signed mode's signing authority on any caller text (a version byte, the string to sign,
/// a NUL, the V4 canonical request): it refuses or signs, never traps; and what it signs names an
/// allowed bucket, key prefix and method (a second, independent look at the signed text).
@Sendable func ossAuthority(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let v4 = reader.byte() & 1 != 0
    let stringToSign = reader.string()
    let canonical = reader.string()
    let policy = OSSSigningPolicy(
        buckets: ["bucket"],
        keyPrefixes: ["users/alice/"],
        methods: ["GET", "PUT"],
        regions: ["cn-hangzhou"]
    )
    guard let credentials = try? Credentials(accessKeyId: "LTAIEXAMPLE", secretAccessKey: "secret"),
        let authority = try? OSSSigningAuthority(credentials: credentials, policy: policy)
    else { fuzzFailure("authority") }
    let request = OSSSignatureRequest(
        version: v4 ? .v4 : .v1,
        stringToSign: stringToSign,
        canonicalRequest: v4 ? canonical : nil
    )
    guard (try? authority.sign(request, at: Timestamp(year: 2026, month: 12, day: 1)!)) != nil else { return }
    let signed = v4 ? canonical : stringToSign
    let lines = signed.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    let resource =
        (v4
            ? lines.dropFirst().first.map { String(decoding: PercentEncoding.decode(Array($0.utf8)), as: UTF8.self) }
            : lines.last) ?? ""
    guard ["GET", "PUT"].contains(lines.first ?? ""), resource.hasPrefix("/bucket/users/alice/") else {
        fuzzFailure("signed outside the policy: \(signed)")
    }
}

/// Alibaba Cloud RPC and ACS3 signing of arbitrary parameters, headers and targets: a signature or a
/// typed refusal, never a trap; the RPC canonical query equals the reference model's.
@Sendable func aliyunSign(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let flags = reader.byte()
    let target = reader.string()
    var pairs: [(key: String, value: String)] = []
    while !reader.isAtEnd && pairs.count < 12 { pairs.append((reader.string(), reader.string())) }
    guard
        let credentials = try? Credentials(
            accessKeyId: "LTAIEXAMPLE",
            secretAccessKey: "secret",
            sessionToken: flags & 2 != 0 ? "token" : nil
        )
    else { fuzzFailure("credentials") }
    let time = Timestamp(year: 2026, month: 12, day: 1)!
    if let signed = try? AliyunRPCSigner(credentials: credentials).sign(
        method: flags & 1 != 0 ? "GET" : "POST",
        parameters: pairs
    ),
        signed.canonicalizedQuery != ReferenceAliyun.rpcCanonicalizedQuery(pairs)
    {
        fuzzFailure("RPC canonical query differs from the reference for \(pairs)")
    }
    let headers =
        [HTTPHeader("host", "h"), HTTPHeader("x-acs-action", "A"), HTTPHeader("x-acs-version", "1")]
        + pairs.map { HTTPHeader($0.key, $0.value) }
    _ = try? AliyunACS3Signer(credentials: credentials).sign(
        SigV4Request(method: "POST", target: target, headers: headers, payload: .bytes(Array(target.utf8))),
        at: time,
        nonce: "n",
        keepingCanonicalRequest: true
    )
}

// MARK: - Big integers and SRP

/// 3072-bit group, SHA-256: A = g^a and B = k·v + g^b from the engine equal plain variable-time GMP
/// (`mpz_powm`) results; a hostile B (0, N, ≥ N, any bytes) is refused or processed, never a trap.
@Sendable func srpPublic(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let a = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(128))
    let b = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(128))
    let v = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(384))
    let hostileB = reader.rest().prefix(400)
    guard let configuration = try? SRPConfiguration(group: .rfc5054Group3072, hash: .sha256) else {
        fuzzFailure("configuration")
    }
    let group = configuration.group
    let client = SRPClient(configuration: configuration)
    if let ephemeral = try? client.ephemeral(privateValue: a) {
        guard let plain = try? group.generator.powerVariableTime(a, modulo: group.modulus),
            plain == ephemeral.publicValue
        else {
            fuzzFailure("A = g^a differs from mpz_powm")
        }
        _ = try? client.processChallenge(
            username: Array("alice".utf8),
            password: SecureBytes(Array("pw".utf8)),
            salt: [UInt8](repeating: 7, count: 16),
            serverPublicValue: Array(hostileB),
            ephemeral: ephemeral
        )
    }
    if let reduced = try? v.modulo(group.modulus), !reduced.isZero {
        let server = SRPServer(configuration: configuration)
        let verifier = SRPVerifier(salt: [UInt8](repeating: 7, count: 16), verifier: reduced)
        if let ephemeral = try? server.ephemeral(privateValue: b, verifier: verifier) {
            guard let gb = try? group.generator.powerVariableTime(b, modulo: group.modulus),
                let expected = try? (configuration.multiplier * reduced + gb).modulo(group.modulus),
                expected == ephemeral.serverPublicValue
            else { fuzzFailure("B = k·v + g^b differs from mpz arithmetic") }
        }
    }
}

/// A whole handshake in a group of any length from 1025 to 2112 bits (N from the input, odd, g = 2;
/// prime or not, the algebra holds): the verifier at N's byte length and equal to `g^x` by `mpz_powm`,
/// `B = k·v + g^b` by mpz arithmetic, and the client's and server's `S` equal to `(A·v^u)^b` by mpz,
/// with the proofs accepted both ways; every refusal (u = 0, B ≡ k·g^x) a typed error.
@Sendable func srpAnyLength(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    var modulusBytes = Array(reader.field(0xFF).prefix(264))
    guard modulusBytes.count >= 129 else { return }
    modulusBytes[0] |= 0x01  // at least 1025 bits
    modulusBytes[modulusBytes.count - 1] |= 0x01
    let a = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(64))
    let b = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(64))
    let salt = Array(reader.field(0xFF).prefix(32))
    let password = SecureBytes(Array(reader.rest().prefix(64)))
    let padding: SRPProofPadding = (salt.first ?? 0) & 1 == 0 ? .minimal : .padded
    guard let group = try? SRPGroup(modulus: BigUInt(bigEndianBytes: modulusBytes), generator: BigUInt(2)),
        let configuration = try? SRPConfiguration(group: group, hash: .sha256, proofPadding: padding)
    else { fuzzFailure("an odd N of over 1024 bits is a group") }
    let n = group.modulus
    let user = Array("carol".utf8)
    guard let verifier = try? configuration.makeVerifier(username: user, password: password, salt: salt) else {
        fuzzFailure("verifier")
    }
    let inner = password.withUnsafeBytes { SHA256.hash(bytes: user + [UInt8(ascii: ":")] + Array($0)).bytes }
    let x = BigUInt(bigEndianBytes: SHA256.hash(bytes: salt + inner).bytes)
    guard verifier.verifierBytes.count == group.byteCount, let v = try? group.generator.powerVariableTime(x, modulo: n),
        v == verifier.verifier
    else { fuzzFailure("v = g^x at N's byte length") }
    guard !a.isZero, !b.isZero, !v.isZero,
        let serverEphemeral = try? SRPServer(configuration: configuration).ephemeral(
            privateValue: b,
            verifier: verifier
        ),
        let clientEphemeral = try? SRPClient(configuration: configuration).ephemeral(privateValue: a)
    else { return }
    let bigB = serverEphemeral.serverPublicValue
    let bigA = clientEphemeral.publicValue
    guard let gb = try? group.generator.powerVariableTime(b, modulo: n),
        (try? (configuration.multiplier * v + gb).modulo(n)) == bigB
    else {
        fuzzFailure("B = k·v + g^b differs from mpz arithmetic")
    }
    let session: SRPClientSession
    do {
        session = try SRPClient(configuration: configuration).processChallenge(
            username: user,
            password: password,
            salt: salt,
            serverPublicValue: bigB,
            ephemeral: clientEphemeral,
            recordingIntermediates: true
        )
    } catch { return }  // u = 0 or B ≡ k·g^x (A or B not invertible when N is not prime): refused, typed
    guard let paddedA = try? bigA.bigEndianBytes(paddedTo: group.byteCount),
        let paddedB = try? bigB.bigEndianBytes(paddedTo: group.byteCount)
    else {
        fuzzFailure("A and B fit N's byte length")
    }
    let u = BigUInt(bigEndianBytes: SHA256.hash(bytes: paddedA + paddedB).bytes)  // u = H(PAD(A) | PAD(B))
    guard let vu = try? v.powerVariableTime(u, modulo: n), let base = try? (bigA * vu).modulo(n),
        let s = try? base.powerVariableTime(b, modulo: n),
        session.intermediates?.premasterSecret == s
    else { fuzzFailure("the client's S differs from (A·v^u)^b by mpz") }
    guard
        let serverSession = try? SRPServer(configuration: configuration).verifyClient(
            username: user,
            verifier: verifier,
            clientPublicValue: bigA,
            clientProof: session.clientProof,
            ephemeral: serverEphemeral,
            recordingIntermediates: true
        ),
        serverSession.premasterSecret == s,
        (try? session.verifyServerProof(serverSession.serverProof)) == serverSession.sessionKey
    else { fuzzFailure("the server refused the client's proof, or the keys differ") }
}

/// The secret-power kernels (issue 42: AVX-512 IFMA where this processor has it, its portable twin,
/// the 64-bit-limb MULX/ADX kernel where it has BMI2 and ADX, GMP's `mpn_sec_powm`) against `mpz_powm`: any odd modulus of up to 8192 bits, a base anywhere below
/// 2^(64·n) (never reduced first), an exponent declared at 1…1024 bits with any leading zeros.
/// Input: a declared-length byte, then modulus 0xFF base 0xFF exponent.
@Sendable func secretPower(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let declared = Int(reader.byte())
    var modulusBytes = Array(reader.field(0xFF).prefix(1024))
    guard !modulusBytes.isEmpty else { return }
    modulusBytes[modulusBytes.count - 1] |= 1
    let modulus = BigUInt(bigEndianBytes: modulusBytes)
    guard modulus > BigUInt(1) else { return }
    let limbBytes = 8 * ((modulus.bitWidth + 63) / 64)
    let base = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(limbBytes))
    let exponentBytes = Array(reader.rest().prefix(128))
    let exponent = BigUInt(bigEndianBytes: exponentBytes)
    // The declared length: the exponent's own bits plus 0…255 spare ones, at most 1024 + 255.
    let bitCount = Swift.max(1, exponent.bitWidth + declared)
    guard let expected = try? base.powerVariableTime(exponent, modulo: modulus) else { fuzzFailure("mpz_powm") }
    let domain = MontgomeryDomain(modulus: modulus)
    for kernel in SecretPowerKernel.allCases where kernel.isAvailable {
        guard domain.secretPower(base, exponent: exponent, bitCount: bitCount, kernel: kernel) == expected else {
            fuzzFailure("\(kernel) differs from mpz_powm (\(modulus.bitWidth)-bit N, \(bitCount)-bit exponent)")
        }
    }
}

/// The constant-time modular exponentiation (the preferred kernel with the context's scratch) against
/// `mpz_powm` on random odd moduli, with exponents up to the context's bit count; and the checked
/// modular helpers against plain arithmetic.
@Sendable func bigint(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    var modulusBytes = Array(reader.field(0xFF).prefix(256))
    guard !modulusBytes.isEmpty else { return }
    modulusBytes[modulusBytes.count - 1] |= 1
    let modulus = BigUInt(bigEndianBytes: modulusBytes)
    guard modulus > BigUInt(1) else { return }
    let base = BigUInt(bigEndianBytes: reader.field(0xFF).prefix(300))
    let exponentBytes = Array(reader.field(0xFF).prefix(64))
    let exponent = BigUInt(bigEndianBytes: exponentBytes)
    let other = BigUInt(bigEndianBytes: reader.rest().prefix(300))
    let bitCount = Swift.max(1, exponentBytes.count * 8)
    guard let context = try? ModularContext(modulus: modulus, maximumExponentBitCount: 512) else {
        fuzzFailure("context for an odd modulus")
    }
    guard let reducedBase = try? base.modulo(modulus),
        let plain = try? reducedBase.powerVariableTime(exponent, modulo: modulus)
    else {
        fuzzFailure("mpz_powm")
    }
    guard let secret = try? context.power(reducedBase, secretExponent: exponent, exponentBitCount: bitCount),
        secret == plain
    else {
        fuzzFailure("the context's secret power (\(SecretPowerKernel.preferred)) differs from mpz_powm")
    }
    guard context.powerVariableTime(reducedBase, publicExponent: exponent) == plain else {
        fuzzFailure("variable-time context power")
    }
    if let x = try? other.modulo(modulus), let difference = try? reducedBase.subtracting(x, modulo: modulus) {
        guard (try? (difference + x).modulo(modulus)) == reducedBase else { fuzzFailure("modular subtraction") }
        // The Montgomery kernels (montmul with REDC, constant-time subtraction) and the fixed-base
        // comb against plain mpz arithmetic.
        let domain = MontgomeryDomain(modulus: modulus)
        guard domain.multiplyModN(reducedBase, x) == (try? (reducedBase * x).modulo(modulus)) else {
            fuzzFailure("Montgomery multiplication")
        }
        guard domain.subtractModN(reducedBase, x) == difference else {
            fuzzFailure("constant-time modular subtraction")
        }
        let window = 1 + Int(exponentBytes.first ?? 0) % 6
        for kernel in SecretPowerKernel.allCases where kernel.isAvailable {
            let table = FixedBaseTable(
                base: reducedBase,
                domain: domain,
                window: window,
                maximumExponentBitCount: bitCount,
                kernel: kernel
            )
            guard table.power(exponent, exponentBitCount: bitCount) == plain else {
                fuzzFailure("fixed-base comb (\(kernel), window \(window))")
            }
        }
    }
}

// MARK: - Vector runner

/// Any bytes as a vector file: a summary, never a trap or an endless loop.
@Sendable func vectors(_ bytes: [UInt8]) {
    var summary = VectorRunner.Summary()
    VectorRunner().check(name: "fuzz", data: bytes, into: &summary) { _ in }
}

// MARK: - Stored Cognito state and tokens

/// First byte: 0 a stored session, 1 a pending sign-in, 2 an amplify_outputs.json, 3 a token checked
/// by the verifier against a fuzzed JWKS answer (field 1: the key set, rest: the token). Whatever
/// decodes re-encodes and decodes to the same values; a token never verifies against a key set the
/// fuzzer wrote unless it also wrote a matching RSA signature (it cannot): every verify throws.
@Sendable func cognitoStored(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    switch reader.byte() % 4 {
    case 0:
        guard let session = try? CognitoStoredSession(decoding: SecureBytes(reader.rest())) else { return }
        guard let again = try? CognitoStoredSession(decoding: try session.encoded()) else {
            fuzzFailure("stored session does not re-decode")
        }
        guard again.tokens.accessToken == session.tokens.accessToken, again.expiresAt == session.expiresAt,
            again.username == session.username,
            again.tokens.refreshToken == session.tokens.refreshToken
        else { fuzzFailure("stored session round trip changed a value") }
    case 1:
        guard let pending = try? CognitoPendingSignIn(decoding: SecureBytes(reader.rest())) else { return }
        guard let again = try? CognitoPendingSignIn(decoding: try pending.encoded()) else {
            fuzzFailure("pending sign-in does not re-decode")
        }
        guard again.challengeName == pending.challengeName, again.typedUsername == pending.typedUsername,
            again.flow == pending.flow
        else {
            fuzzFailure("pending sign-in round trip changed a value")
        }
    case 2:
        _ = try? AmplifyAuthOutputs(parsing: reader.rest())
    default:
        let jwks = HTTPResponse(status: 200, body: reader.field())
        let token = String(decoding: reader.rest(), as: UTF8.self)
        runBlocking {
            guard
                let verifier = try? CognitoTokenVerifier(
                    region: "us-east-1",
                    userPoolId: "us-east-1_Abc123",
                    clientIds: ["client"],
                    transport: FuzzTransport([jwks]),
                    clock: FixedClock(Timestamp(year: 2026, month: 12, day: 1)!)
                )
            else { fuzzFailure("verifier init") }
            if (try? await verifier.verify(token, as: .access)) != nil { fuzzFailure("a fuzzed token verified") }
        }
    }
}

// MARK: - Identity pools

/// A fuzzed token through both `Logins`-key readers (a key read from a token is always one the
/// reader's own rules accept again); then two fuzzed answers to the identity provider's GetId and
/// GetCredentialsForIdentity (unauthenticated) and to its user-pool login with the fuzzed token:
/// never a crash, and credentials handed out are in range.
@Sendable func identity(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let token = String(decoding: reader.field(), as: UTF8.self)
    if let key = try? CognitoIdentityIssuer.userPoolLoginsKey(forIDToken: token) {
        guard key.hasPrefix("cognito-idp."), key.contains("/") else {
            fuzzFailure("user-pool key \(key) is not a cognito-idp key")
        }
    }
    for region in ["us-east-1", "eu-south-2", "cn-north-1"] {
        if let key = try? CognitoIdentityIssuer.loginsKey(for: token, explicitKey: nil, region: region),
            (try? CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: region)) != key
        {
            fuzzFailure("the key read from a token is refused when given back")
        }
    }
    let answers = [
        HTTPResponse(status: 200, body: reader.field()),
        HTTPResponse(status: Int(reader.byte()) + 200, body: reader.rest()),
    ]
    runBlocking {
        let clock = FixedClock(Timestamp(year: 2026, month: 12, day: 1)!)
        for login in [IdentityLogin.unauthenticated, .userPool(FixedIDToken(token: token))] {
            let sender = SignedRequestSender(
                transport: FuzzTransport(answers),
                clock: clock,
                skew: ClockSkewTracker(),
                retryPolicy: .none
            )
            guard let client = try? CognitoIdentityClient(region: "us-east-1", sender: sender) else {
                fuzzFailure("identity client init")
            }
            let provider = CognitoIdentityCredentialsProvider(
                client: client,
                identityPoolId: "us-east-1:pool",
                login: login,
                clock: clock
            )
            if let credentials = try? await provider.credentials() {
                checkCredentials(credentials)
                guard await provider.currentIdentityId()?.isEmpty == false else {
                    fuzzFailure("credentials without an identity id")
                }
            }
        }
    }
}

/// An ID-token source that always answers one token.
struct FixedIDToken: CognitoIDTokenSource {
    let token: String
    func idToken(forceRefresh: Bool) async throws(AuthCoreError) -> String { token }
}

// MARK: - HTTP/1.1 responses

/// The response parser on any bytes: the first byte picks the body cap (0–255 × 64 bytes) and the
/// method (HEAD for odd values of the second byte), the third the piece size the bytes are fed in
/// (1–64). The oracle: fed whole and fed in pieces, the parser ends the same way (same failure, or
/// the same status, fields and body); the body never holds more than the cap; a completed fixed-length
/// body has exactly its `Content-Length`.
@Sendable func http1Response(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let cap = Int(reader.byte()) * 64
    let method = reader.byte() & 1 == 1 ? "HEAD" : "GET"
    let piece = Int(reader.byte() % 64) + 1
    let input = reader.rest()
    func run(step: Int) -> (HTTP1ResponseParser, HTTP1ResponseParser.Failure?) {
        var parser = HTTP1ResponseParser(method: method, maximumHeadBytes: 1024, maximumBodyBytes: cap)
        do throws(HTTP1ResponseParser.Failure) {
            var index = 0
            while index < input.count, !parser.isComplete {
                let end = Swift.min(input.count, index + step)
                let used = try Array(input[index..<end]).withUnsafeBytesTyped {
                    (raw) throws(HTTP1ResponseParser.Failure) in
                    try parser.consume(raw)
                }
                if parser.body.count > cap {
                    fuzzFailure("body of \(parser.body.count) bytes over the \(cap)-byte cap")
                }
                if used < end - index { break }
                index = end
            }
            try parser.finishAtEndOfStream()
            return (parser, nil)
        } catch {
            return (parser, error)
        }
    }
    let (whole, wholeFailure) = run(step: Swift.max(1, input.count))
    let (pieces, piecesFailure) = run(step: piece)
    if wholeFailure != piecesFailure {
        fuzzFailure(
            "whole: \(String(describing: wholeFailure)), in \(piece)-byte pieces: \(String(describing: piecesFailure))"
        )
    }
    guard wholeFailure == nil else { return }
    if whole.status != pieces.status || whole.headers != pieces.headers || whole.body != pieces.body {
        fuzzFailure("whole and \(piece)-byte pieces disagree")
    }
    if !(200...999).contains(whole.status) { fuzzFailure("final status \(whole.status)") }
    if method == "HEAD" && !whole.body.isEmpty { fuzzFailure("a body for HEAD") }
    let lengths = whole.headers.filter { $0.name.lowercased() == "content-length" }
    let chunked = whole.headers.contains { $0.name.lowercased() == "transfer-encoding" }
    if method == "GET", !chunked, let length = lengths.first.flatMap({ Int($0.value) }),
        ![204, 304].contains(whole.status), whole.body.count != length
    {
        fuzzFailure("Content-Length \(length), body \(whole.body.count)")
    }
}

// MARK: - The app server

/// One app server for every input (a 1024-bit group keeps `begin` cheap), with the in-memory store
/// and a self-signing policy.
let fuzzAppServer: AppServer = {
    do {
        let configuration = try SRPConfiguration(group: .rfc5054Group1024, hash: .sha256)
        let store = InMemoryHandshakeStore()
        let users = try StaticVerifierStore(
            [
                "alice": try configuration.makeVerifier(
                    username: Array("alice".utf8),
                    password: SecureBytes(Array("pw".utf8))
                )
            ],
            configuration: configuration
        )
        let authority = try PerUserOSSSigning(
            credentials: try Credentials(accessKeyId: "LTAI5tFuzz", secretAccessKey: "fuzz-secret"),
            template: OSSSigningPolicy(buckets: ["b"], keyPrefixes: ["k/${username}/"], regions: ["cn-hangzhou"])
        )
        let keys = try ServerKeys(serverSecret: SecureBytes([UInt8](repeating: 1, count: 32)))
        return AppServer(
            logins: SRPLoginService(configuration: configuration, verifiers: users, handshakes: store, keys: keys),
            sessions: try AppSessions(store: store, keys: keys),
            ossSigning: authority
        )
    } catch {
        fuzzFailure("the fuzz app server cannot be made: \(error)")
    }
}()

/// First byte even: the bytes are a server configuration file, which parses or is refused as
/// `malformedInput` naming the source. Odd: a request — method and path chosen by the next bytes,
/// an optional bearer token, the rest the body — which `AppServer.handle` answers with a JSON object
/// and a status in 200…599; only `/srp/begin` and `/srp/finish` can be 200 without a session.
@Sendable func appServer(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let selector = reader.byte()
    if selector & 1 == 0 {
        do {
            _ = try AppServerConfiguration(json: reader.rest(), source: "fuzz.json", directory: "/d")
        } catch {
            if error.code != .malformedInput || !error.reason.hasPrefix("fuzz.json") {
                fuzzFailure("configuration refused as \(error.code): \(error.reason)")
            }
        }
        return
    }
    let paths = [
        "/srp/begin", "/srp/finish", "/distribute-token.json", "/oss/sign", "/cognito/developer-identity", "/",
        "/srp/begin/", "/session/revoke",
    ]
    let methods = ["POST", "GET", "HEAD", "PUT"]
    let path = paths[Int(reader.byte()) % paths.count]
    let method = methods[Int(reader.byte()) % methods.count]
    var headers: [HTTPHeader] = []
    let tokenLength = Int(reader.byte() % 64)
    if tokenLength > 0 {
        headers.append(
            HTTPHeader("Authorization", "Bearer " + String(decoding: reader.take(tokenLength), as: UTF8.self))
        )
    }
    let request = HTTPServerRequest(method: method, path: path, headers: headers, body: reader.rest())
    // A login body read from the byte scan (when plain) and by JSONDecoder: the same value or refusal.
    if path == "/srp/begin" {
        samePlainReading(SRPLoginWire.BeginRequest.self, request.body) {
            [$0.username, $0.clientPublicValue, $0.deviceToken]
        }
    }
    if path == "/srp/finish" {
        samePlainReading(SRPLoginWire.FinishRequest.self, request.body) { [$0.loginId, $0.clientProof] }
    }
    let box = Locked<HTTPResponse?>(nil)
    runBlocking {
        let response = await fuzzAppServer.handle(request)
        box.withLock { $0 = response }
    }
    guard let response = box.withLock({ $0 }) else { fuzzFailure("no answer") }
    guard (200...599).contains(response.status) else { fuzzFailure("status \(response.status)") }
    guard (try? JSONObject(parsing: response.body.plainBytes, context: "answer")) != nil else {
        fuzzFailure("a body that is not a JSON object: \(response.status)")
    }
    if response.status == 200, method != "POST" || !path.hasPrefix("/srp/") || path.hasSuffix("/") {
        fuzzFailure("200 for \(method) \(path) without a session")
    }
}

/// `JSONAnswer.decode` with and without the plain-object path: the same fields or the same refusal.
func samePlainReading<T: Decodable>(_ type: T.Type, _ body: [UInt8], fields: (T) -> [String?]) {
    func outcome(_ scanned: Bool) -> String {
        // As bytes: String equality would take "é" and "e\u{301}" for one another.
        do {
            return
                "\(fields(try JSONAnswer.decode(type, from: body, plainObjectsScanned: scanned)).map { $0.map { Array($0.utf8) } })"
        } catch {
            return "\(error.status) \(error.code) \(error.message)"
        }
    }
    let (fast, slow) = (outcome(true), outcome(false))
    guard fast == slow else { fuzzFailure("the scan read \(fast), JSONDecoder \(slow)") }
}

// MARK: - Secret members of JSON answers

/// The secret-member scanner against a second JSON reader (`JSONSerialization`). What the scanner
/// accepts, the reader reads the same with the secrets blanked: the redacted document is the
/// original with `""` at each secret path, and each secret is the string the reader finds there
/// (so the decoder never sees a secret, and sees the member the scanner took). A refusal is a typed
/// `malformedResponse` (the scanner follows RFC 8259 and is stricter than the reader, which takes
/// trailing commas).
@Sendable func secretJSON(_ bytes: [UInt8]) {
    let paths = [["Credentials", "SecretKey"], ["AccessKeySecret"]]
    let original = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    let members: SecretJSONMembers
    do {
        members = try SecretJSONMembers(parsing: SecureBytes(bytes), paths: paths, context: "fuzz", keys: .asDeclared)
    } catch {
        // Refused: stricter than Foundation's readers is allowed (they take trailing commas, which
        // RFC 8259 does not); the decoder then reads nothing. The errors are typed (no trap).
        guard error.code == .malformedResponse, error.reason.hasPrefix("fuzz: ") else {
            fuzzFailure("refused as \(error.code)")
        }
        return
    }
    guard let original else { return }  // the decoder refuses it too: nothing is read
    guard let redacted = try? JSONSerialization.jsonObject(with: Data(members.redacted), options: [.fragmentsAllowed])
    else {
        fuzzFailure("the redacted document is not JSON")
    }
    var expected: Any = original
    for (index, path) in paths.enumerated() {
        let found = secretString(in: original, at: path)
        let taken = members.values[index].map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        guard found == taken else {
            fuzzFailure(
                "secret \(index): the reader finds \(found == nil ? "none" : "one"), the scanner took \(taken == nil ? "none" : "one")"
            )
        }
        if found != nil { expected = blanking(expected, at: path) }
    }
    guard sameJSON(expected, redacted) else {
        fuzzFailure("the redacted document differs from the original beyond the secrets")
    }
}

/// The string at `path` (object members only) in a `JSONSerialization` tree.
private func secretString(in tree: Any, at path: [String]) -> String? {
    var node: Any? = tree
    for name in path { node = (node as? [String: Any])?[name] }
    return node as? String
}

/// `tree` with the string at `path` replaced by `""`.
private func blanking(_ tree: Any, at path: [String]) -> Any {
    guard let name = path.first, var object = tree as? [String: Any], let child = object[name] else { return tree }
    object[name] = path.count == 1 ? "" : blanking(child, at: Array(path.dropFirst()))
    return object
}

/// Whether two `JSONSerialization` trees are the same JSON value.
private func sameJSON(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case let (x as [String: Any], y as [String: Any]):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
    case let (x as [Any], y as [Any]):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    case let (x as String, y as String):
        return x == y
    case (is NSNull, is NSNull):
        return true
    case let (x as NSNumber, y as NSNumber):
        return x.isEqual(y)
    default:
        return false
    }
}

// MARK: - The app server's own readers

/// A 2048-bit configuration for the verifier tables read here (only their checks run, no SRP).
let fuzzTableConfiguration: SRPConfiguration = {
    do { return try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256) } catch {
        fuzzFailure("configuration: \(error)")
    }
}()

/// First byte selects what the rest is:
/// - 0: a request head's fields (`name\0value\0…`): RequestFraming refuses it with a 400 JSON answer
///   that names the problem, or accepts it, and then its Content-Length is 1…18 digits read as bytes;
/// - 1: a verifier table: it loads, and every name in it is found by its bytes and no other name of
///   the input is, or it is refused as `malformedInput`;
/// - 2: a username and a policy template: a name placed is one `canPlace` accepts, and the result
///   holds it where the placeholder was; a template is checked without a crash;
/// - 3: 4 or 16 address bytes and a prefix length: a network key is the family, the length and the
///   masked address, the same for every address of that network.
@Sendable func serverInput(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    switch reader.byte() % 4 {
    case 0:
        var headers: [HTTPHeader] = []
        while !reader.isAtEnd && headers.count < 32 { headers.append(HTTPHeader(reader.string(), reader.string())) }
        if let refusal = RequestFraming.refusal(headers) {
            guard refusal.status == 400,
                (try? JSONObject(parsing: refusal.body.plainBytes, context: "refusal"))?.has("message") == true
            else {
                fuzzFailure("a framing refusal that is not a 400 JSON answer")
            }
        } else if let length = headers.first(where: { $0.hasName("content-length") }) {
            let digits = length.value.trimmingASCIISpaces
            guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                fuzzFailure("accepted Content-Length '\(length.value)'")
            }
        }
    case 1:
        let json = reader.rest()
        do {
            let table = try StaticVerifierStore(json: json, configuration: fuzzTableConfiguration, source: "fuzz")
            if let members = try? JSONMemberNames.members(of: json, at: ["users"]) {
                for (name, _) in members where table.verifier(for: String(decoding: name, as: UTF8.self)) == nil {
                    fuzzFailure("a loaded name is not found")
                }
                let probe = String(decoding: json.prefix(16), as: UTF8.self)
                if table.verifier(for: probe) != nil, !members.contains(where: { $0.name == Array(probe.utf8) }) {
                    fuzzFailure("found a name that is not in the table")
                }
            }
        } catch {
            guard error.code == .malformedInput else { fuzzFailure("table refused as \(error.code)") }
        }
    case 2:
        let name = reader.string()
        let template = reader.string()
        if let placed = try? PerUserPolicy.place(name, in: template) {
            guard PerUserPolicy.canPlace(name) else { fuzzFailure("placed a name canPlace refuses") }
            if template.utf8.elementsEqual("${username}".utf8), !placed.utf8.elementsEqual(name.utf8) {
                fuzzFailure("placement changed the name")
            }
        }
        _ = try? PerUserOSSSigning.check(
            template: OSSSigningPolicy(buckets: ["b"], keyPrefixes: [template, name]),
            sharedAcrossUsers: reader.byte() & 1 == 1
        )
    default:
        let family = reader.byte()
        let raw = reader.take(family & 1 == 0 ? 4 : 16)
        let bits = Int(reader.byte())
        guard let address = try? ClientAddress(bytes: raw) else { return }
        let key = address.network(prefixBits: bits)
        guard key.count == 2 + address.bytes.count, key[0] == (address.isIPv4 ? 4 : 6) else {
            fuzzFailure("network key layout")
        }
        var other = address.bytes
        let kept = Swift.max(0, Swift.min(bits, other.count * 8))
        if kept < other.count * 8 { other[other.count - 1] ^= 1 }  // a bit past the prefix
        if let neighbour = try? ClientAddress(bytes: other), neighbour.isIPv4 == address.isIPv4,
            neighbour.network(prefixBits: bits) != key
        {
            fuzzFailure("two addresses of one network got different keys")
        }
    }
}

// MARK: - AWS shared configuration

/// The first byte picks: 0, the INI dialect of the AWS shared files (sections unique, keys without
/// upper-case ASCII, each section name and text value then split into shell words); 1, a
/// `credential_process` output; 2, path expansion. Nothing may crash; errors are typed.
@Sendable func awsConfig(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let mode = reader.byte() % 3
    let rest = reader.rest()
    switch mode {
    case 0:
        guard let file = try? SharedConfigFile(parsing: rest, path: "fuzz") else { return }
        let names = file.sections.map(\.name)
        precondition(Set(names).count == names.count, "a section twice")
        for section in file.sections {
            _ = try? ShellWords.split(section.name, context: "fuzz")
            for (key, value) in section.values {
                precondition(!key.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }, "an upper-case key")
                if let text = value.text { _ = try? ShellWords.split(text, context: "fuzz") }
            }
        }
    case 1:
        if let credentials = try? CredentialProcessRunner.parse(
            rest,
            profile: "fuzz",
            now: Timestamp(year: 2026, month: 12, day: 1)!
        ) {
            checkCredentials(credentials)
        }
    default:
        let environment = ConfigurationEnvironment(["HOME": "/home/fuzz", "A": "x"])
        _ = environment.expandedPath(String(decoding: rest, as: UTF8.self))
    }
}

// MARK: - Hosted UI

/// A fixed sign-in whose redirect the input claims to be.
let fuzzAuthorizationRequest: CognitoAuthorizationRequest = {
    // fixed inputs
    let verifier = try! CognitoTokenVerifier(region: "us-east-1", userPoolId: "us-east-1_Fuzz", clientIds: ["c"])
    let configuration = try! CognitoHostedUIConfiguration(
        domain: "auth.example.test",
        clientId: "c",
        redirectURI: "myapp://cb"
    )  // fixed inputs
    // system randomness
    return try! CognitoHostedUI(configuration: configuration, tokenVerifier: verifier).authorizationRequest()
}()

/// The redirect reader (a code comes back only with this sign-in's state, once), the token
/// endpoint's answer (tokens within their bounds), the `oauth` section of amplify_outputs.json, and
/// PKCE verifiers (an accepted one has a 43-character challenge).
@Sendable func hostedUI(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let mode = reader.byte() % 4
    let rest = reader.rest()
    let text = String(decoding: rest, as: UTF8.self)
    switch mode {
    case 0:
        let request = fuzzAuthorizationRequest
        // Half the inputs get the right state appended, so the code path past the state check runs.
        let redirect = rest.first.map { $0 & 1 == 0 } == true ? text + "&state=" + request.state : text
        if let code = try? request.authorizationCode(fromRedirect: redirect) {
            guard !code.isEmpty, redirect.utf8.starts(with: "myapp://cb?".utf8) else {
                fuzzFailure("a code from a redirect that is not this one's")
            }
        }
        let pairs = CanonicalQuery.decodedPairs(text, omittingEmpty: false)
        if (try? request.authorizationCode(fromRedirectParameters: pairs)) != nil {
            guard pairs.filter({ $0.key == "state" }).map(\.value) == [request.state] else {
                fuzzFailure("a code without this sign-in's state")
            }
        }
    case 1:
        if let tokens = try? CognitoTokenEndpoint.tokens(from: SecureBytes(rest), previousRefreshToken: "previous") {
            guard CognitoTokens.expiresInRange.contains(Int64(tokens.expiresIn)), tokens.refreshToken != nil else {
                fuzzFailure("tokens out of bounds")
            }
        }
    case 2:
        if let outputs = try? AmplifyAuthOutputs(parsing: rest), let oauth = outputs.oauth {
            _ = try? oauth.hostedUIConfiguration(clientId: outputs.userPoolClientId)
        }
    default:
        if let pair = try? PKCECodeVerifier(verifier: SecureBytes(rest)) {
            guard PKCECodeVerifier.lengthRange.contains(rest.count), pair.challenge.utf8.count == 43 else {
                fuzzFailure("PKCE pair: \(rest.count)")
            }
        }
    }
}
