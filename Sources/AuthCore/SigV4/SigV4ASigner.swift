/// AWS SigV4a (`AWS4-ECDSA-P256-SHA256`): request signatures for multi-region endpoints (S3
/// Multi-Region Access Points, CloudFront KeyValueStore), as `Authorization` headers and presigned URLs.
///
/// ```swift
/// let signer = try SigV4ASigner(credentials: credentials, regionSet: ["us-east-1", "eu-west-1"], service: "s3")
/// let signed = try signer.sign(request, at: clock.now())   // X-Amz-Date, X-Amz-Region-Set, …, Authorization
/// ```
///
/// It is SigV4 with three changes (AWS Common Runtime, aws-c-auth's `v4a` signing and test suite):
/// 1. the canonical request signs one more header, `X-Amz-Region-Set` (the regions the signature is
///    valid in: a comma-separated list, or `*`); in a presigned URL it is a query parameter;
/// 2. the credential scope has no region: `YYYYMMDD/service/aws4_request`, and the string to sign
///    is `AWS4-ECDSA-P256-SHA256 \n X-Amz-Date \n scope \n hex(SHA256(canonical request))`;
/// 3. the signature is ECDSA P-256 with SHA-256 over the string to sign, with the key pair
///    ``SigV4AKey`` derives from the credentials, DER-encoded and written in lower-case hex.
///
/// The derived key is cached per credentials (``SigV4AKeyCache``): a signer made per request derives
/// it once. ECDSA signatures are randomized, so signing one request twice gives two signatures, both
/// valid.
public struct SigV4ASigner: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The credentials.
    public let credentials: Credentials
    /// The `X-Amz-Region-Set` value: the regions joined with `,`, or `*`.
    public let regionSet: String
    /// The service of the credential scope (`s3`, `sts`).
    public let service: String
    /// Canonicalisation rules (as for SigV4).
    public let options: SigV4Options
    /// The key pair the credentials derive.
    public let key: SigV4AKey
    /// `/service/aws4_request`: the credential scope after its date.
    let scopeSuffix: [UInt8]
    /// ``regionSet`` as bytes (the `X-Amz-Region-Set` header's value).
    let regionSetBytes: [UInt8]

    /// A signer for the regions `regionSet` (`["*"]` for every region).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an empty region set, a region that is empty
    ///   or has `,`, `/`, whitespace or control characters, or a service like that;
    ///   ``AuthCoreError/Code/libcryptoFailure`` when the key cannot be built.
    public init(
        credentials: Credentials,
        regionSet: [String],
        service: String,
        options: SigV4Options = .standard,
        keyCache: SigV4AKeyCache = .shared
    ) throws(AuthCoreError) {
        guard !regionSet.isEmpty else { throw AuthCoreError(.invalidParameter, "the region set is empty") }
        for region in regionSet { try Self.checkScopePart(region, name: "region") }
        try Self.checkScopePart(service, name: "service")
        self.credentials = credentials
        self.regionSet = regionSet.joined(separator: ",")
        self.regionSetBytes = Array(self.regionSet.utf8)
        self.service = service
        self.options = options
        self.key = try keyCache.key(for: credentials)
        var suffix: [UInt8] = [UInt8(ascii: "/")]
        suffix.append(contentsOf: service.utf8)
        suffix.append(contentsOf: "/aws4_request".utf8)
        self.scopeSuffix = suffix
    }

    /// A region or service: non-empty, without `,`, `/`, whitespace or control characters.
    private static func checkScopePart(_ value: String, name: StaticString) throws(AuthCoreError) {
        let ok = value.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ",") }
        guard !value.isEmpty, ok else {
            throw AuthCoreError(
                .invalidParameter,
                "\(name) must be non-empty, without ',', '/', spaces or control characters"
            )
        }
    }

    // MARK: - Header signing

    /// Signs a request for the `Authorization` header. Existing `Authorization`, `X-Amz-Date`,
    /// `X-Amz-Region-Set` (and, when the signer adds them, `X-Amz-Security-Token` and
    /// `X-Amz-Content-SHA256`) headers are replaced.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for an invalid method, header or payload
    ///   hash; ``AuthCoreError/Code/libcryptoFailure``.
    public func sign(
        _ request: SigV4Request,
        at time: Timestamp,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError)
        -> SigV4ASignature
    {
        try request.validate(checksTargetBytes: false)
        if case .streaming = request.payload {
            throw AuthCoreError(
                .invalidParameter,
                "SigV4a does not sign aws-chunked streams (STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD)"
            )
        }
        let date = AmzDate(time)
        let payloadHash = try PayloadHashText(request.payload)
        let addsHash = options.addContentSHA256Header
        let token = credentials.sessionToken
        var problem: CanonicalHeaderProblem?
        var hash = Digest(count: 0)
        var signedHeaders: [UInt8] = []
        var kept: [UInt8]?
        date.withBytes { dateBytes in
            payloadHash.withUnsafeBytes { hashText in
                regionSetBytes.withUnsafeBytes { regionSetValue in
                    SignerHeaderValues.withTokenBytes(options.omitSessionToken ? nil : token) { tokenBytes in
                        let signer = SignerHeaderValues(
                            date: dateBytes,
                            securityToken: tokenBytes,
                            contentHash: addsHash ? hashText : nil,
                            nonce: regionSetValue,
                            replacesToken: token != nil
                        )
                        CanonicalRequest.with(
                            method: request.method,
                            path: request.path,
                            rawQuery: request.query,
                            headers: request.headers,
                            policy: SigV4AHeaderPolicy(signer: signer),
                            signerHeaders: signer,
                            normalizePath: options.normalizePath,
                            doubleURIEncode: options.doubleURIEncode,
                            payloadHash: hashText,
                            queryHoldsSecret: tokenBytes != nil
                        ) { canonical, signedRange, found in
                            problem = found
                            guard found == nil else { return }
                            hash = LowLevelSHA256.hash(canonical)
                            signedHeaders = Array(canonical[signedRange])
                            if keepingCanonicalRequest { kept = Array(canonical) }
                        }
                    }
                }
            }
        }
        if let problem { throw problem.error(request.headers) }
        let toSign = stringToSign(date: date, hash: hash)
        let signature = try toSign.withUnsafeBytesTyped { message throws(AuthCoreError) in
            try key.signature(for: message)
        }
        let authorization = authorizationHeader(date: date, signedHeaders: signedHeaders, signature: signature)
        var headers = [HTTPHeader("X-Amz-Date", date.string), HTTPHeader("X-Amz-Region-Set", regionSet)]
        if let token { headers.append(HTTPHeader("X-Amz-Security-Token", token)) }
        if addsHash { headers.append(HTTPHeader("X-Amz-Content-SHA256", payloadHash.string)) }
        headers.append(HTTPHeader("Authorization", authorization))
        return SigV4ASignature(
            headers: headers,
            signatureBytes: signature,
            stringToSignBytes: toSign,
            canonicalRequestBytes: kept,
            signedURI: nil,
            amzDate: date.string,
            scope: date.dateString + String(decoding: scopeSuffix, as: UTF8.self)
        )
    }

    /// `AWS4-ECDSA-P256-SHA256 \n date \n YYYYMMDD/service/aws4_request \n hex(hash)`.
    func stringToSign(date: AmzDate, hash: Digest) -> [UInt8] {
        StringToSign.with(algorithm: SigV4AKey.algorithm, date: date, scopeSuffix: scopeSuffix, hash: hash) {
            Array($0)
        }
    }

    /// `AWS4-ECDSA-P256-SHA256 Credential=AKID/date/service/aws4_request, SignedHeaders=…, Signature=…`.
    /// Written in one allocation, as SigV4's: it is on every signature's path.
    func authorizationHeader(date: AmzDate, signedHeaders: [UInt8], signature: [UInt8]) -> String {
        let credentialLabel: StaticString = " Credential="
        let signedHeadersLabel: StaticString = ", SignedHeaders="
        let signatureLabel: StaticString = ", Signature="
        let accessKeyId = credentials.accessKeyId
        let length =
            SigV4AKey.algorithm.utf8CodeUnitCount + credentialLabel.utf8CodeUnitCount + accessKeyId.utf8.count + 9
            + scopeSuffix.count
            + signedHeadersLabel.utf8CodeUnitCount + signedHeaders.count + signatureLabel.utf8CodeUnitCount + 2
            * signature.count
        return String(writing: length) { out in
            out.write(SigV4AKey.algorithm)
            out.write(credentialLabel)
            out.write(accessKeyId)
            out.writeByte(UInt8(ascii: "/"))
            date.withDateBytes { out.write($0) }
            out.write(scopeSuffix)
            out.write(signedHeadersLabel)
            out.write(signedHeaders)
            out.write(signatureLabel)
            signature.withUnsafeBytes { out.writeHex($0) }
        }
    }

    // MARK: - Presigned URLs

    /// Signs a request as a presigned URL (query-string authentication), valid for `expires`
    /// seconds (1...604800) and refused when it would outlive the credentials.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an expiry outside 1...604800;
    ///   ``AuthCoreError/Code/expired`` when the credentials expire before the URL would;
    ///   ``AuthCoreError/Code/malformedRequest``; ``AuthCoreError/Code/libcryptoFailure``.
    public func presign(
        _ request: SigV4Request,
        at time: Timestamp,
        expires: Int,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError)
        -> SigV4ASignature
    {
        try request.validate()
        if case .streaming = request.payload {
            throw AuthCoreError(
                .invalidParameter,
                "SigV4a does not sign aws-chunked streams (STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD)"
            )
        }
        guard (1...SigV4Signer.maximumPresignedExpiry).contains(expires) else {
            throw AuthCoreError(
                .invalidParameter,
                "presigned URL expiry \(expires) s is outside 1...\(SigV4Signer.maximumPresignedExpiry)"
            )
        }
        if let expiration = credentials.expiration, time.seconds(until: expiration) < Int64(expires) {
            throw AuthCoreError(
                .expired,
                "a \(expires) s presigned URL would outlive the credentials, which expire at \(expiration.iso8601)"
            )
        }
        let date = AmzDate(time)
        let payloadHash = try PayloadHashText(request.payload)
        var problem: CanonicalHeaderProblem?
        let signedHeaders = SigV4CanonicalRequest.signedHeaderList(request.headers, problem: &problem)
        if let problem { throw problem.error(request.headers) }
        var credential = Array("\(credentials.accessKeyId)/\(date.dateString)".utf8)
        credential.append(contentsOf: scopeSuffix)
        let token = credentials.sessionToken
        var query = PresignedQuery(
            rawQuery: request.query,
            adding: [
                (PresignedQuery.algorithmKey, SigV4AKey.algorithm.withUTF8Buffer { Array($0) }),
                (
                    PresignedQuery.credentialKey,
                    PercentEncoding.encodedBytes(String(decoding: credential, as: UTF8.self))
                ),
                (PresignedQuery.dateKey, date.withBytes { Array($0) }),
                (PresignedQuery.expiresKey, Array(String(expires).utf8)),
                (PresignedQuery.regionSetKey, PercentEncoding.encodedBytes(regionSet)),
                (
                    PresignedQuery.signedHeadersKey,
                    PercentEncoding.encodedBytes(String(decoding: signedHeaders, as: UTF8.self))
                ),
            ],
            token: token,
            omitSessionToken: options.omitSessionToken,
            ownNames: PresignedQuery.sigV4ANames
        )
        defer { query.wipeToken() }
        let (hash, kept) = query.withCanonicalRequest(request, options: options, payloadHash: payloadHash) {
            canonical in
            (LowLevelSHA256.hash(canonical), keepingCanonicalRequest ? Array(canonical) : nil)
        }
        let toSign = stringToSign(date: date, hash: hash)
        let signature = try toSign.withUnsafeBytesTyped { message throws(AuthCoreError) in
            try key.signature(for: message)
        }
        let uri = signature.withUnsafeBytes { query.uri(path: request.path, signature: $0) }
        return SigV4ASignature(
            headers: [],
            signatureBytes: signature,
            stringToSignBytes: toSign,
            canonicalRequestBytes: kept,
            signedURI: uri,
            amzDate: date.string,
            scope: date.dateString + String(decoding: scopeSuffix, as: UTF8.self)
        )
    }

    /// The access key id, region set and service: never the secret, the token or the key.
    public var description: String { "SigV4ASigner(\(credentials.accessKeyId), \(regionSet), \(service))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["credentials": credentials, "regionSet": regionSet, "service": service],
            displayStyle: .struct
        )
    }
}

/// The result of a SigV4a signature: the headers to add (header mode) or the presigned target, and
/// the intermediate values for debugging and test vectors.
public struct SigV4ASignature: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Headers to add, in this order: `X-Amz-Date`, `X-Amz-Region-Set`, `X-Amz-Security-Token` (if
    /// any), `X-Amz-Content-SHA256` (if any), `Authorization`. Empty for presigned URLs.
    public let headers: [HTTPHeader]
    /// The DER-encoded ECDSA signature.
    public let signatureBytes: [UInt8]
    /// The string to sign, as bytes (what the signature signs).
    public let stringToSignBytes: [UInt8]
    /// The canonical request, when signing was asked to keep it.
    public let canonicalRequestBytes: [UInt8]?
    /// The presigned path and query (query mode).
    public let signedURI: String?
    /// The `X-Amz-Date` value.
    public let amzDate: String
    /// The credential scope `date/service/aws4_request`.
    public let scope: String

    /// The signature in lower-case hex (the `Signature=` or `X-Amz-Signature` value).
    public var signature: String { Hex.encode(signatureBytes) }
    /// The `Authorization` header value (header mode).
    public var authorization: String? { signedURI == nil ? headers.last?.value : nil }
    /// The string to sign.
    public var stringToSign: String { String(decoding: stringToSignBytes, as: UTF8.self) }
    /// The canonical request, when signing was asked to keep it.
    public var canonicalRequest: String? { canonicalRequestBytes.map { String(decoding: $0, as: UTF8.self) } }

    /// Date, scope and the header names: never the `Authorization` value, the session token or the
    /// canonical request (which may hold the token).
    public var description: String {
        "SigV4ASignature(\(amzDate), \(scope), headers: \(headers.map(\.name).joined(separator: ", "))\(signedURI == nil ? "" : ", presigned"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["amzDate": amzDate, "scope": scope, "headerNames": headers.map(\.name)],
            displayStyle: .struct
        )
    }
}

/// Which fields SigV4a signs: SigV4's, with `x-amz-region-set` written by the signer (in the
/// table's fourth signer slot) in place of any the request carries.
struct SigV4AHeaderPolicy: CanonicalHeaderPolicy {
    static var valueForm: CanonicalHeaderValueForm { .trimmedAll }
    static var requiresHost: Bool { true }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        ("x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "x-amz-region-set")
    }

    let base: SigV4HeaderPolicy

    init(signer: SignerHeaderValues) { base = SigV4HeaderPolicy(signer: signer) }

    @inline(__always)
    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        count == 16 ? !asciiEqual(name, 16, "x-amz-region-set") : base.signs(name, count: count)
    }
}

/// The SigV4a key pairs derived so far, by access key id and the SHA-256 fingerprint of the secret
/// (never by the secret): a signer made per request derives its key once. At most ``capacity`` keys
/// are kept; the one used least recently goes first. A key's private scalar lives in its OpenSSL
/// object, freed when the cache has dropped it and no signer holds it.
public final class SigV4AKeyCache: Sendable, CustomStringConvertible, CustomReflectable {
    /// The cache signers use unless they are given another.
    public static let shared = SigV4AKeyCache()
    /// How many keys are kept.
    public let capacity: Int

    private struct Entry {
        let accessKeyId: String
        let fingerprint: Digest
        let key: SigV4AKey
        var lastUse: UInt64
    }
    private struct State {
        var entries: [Entry] = []
        var clock: UInt64 = 0
    }
    private let state = Locked(State())

    public init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// The key of `credentials`, derived on first use. Two callers that miss at once may both derive
    /// it; the first to store it wins and both get that key.
    public func key(for credentials: Credentials) throws(AuthCoreError) -> SigV4AKey {
        let fingerprint = credentials.secretFingerprint
        let accessKeyId = credentials.accessKeyId
        if let found = state.withLock({ Self.use(&$0, accessKeyId, fingerprint) }) { return found }
        let derived = try SigV4AKey(credentials: credentials)
        return state.withLock { state in
            if let found = Self.use(&state, accessKeyId, fingerprint) { return found }  // derived meanwhile
            if state.entries.count >= capacity,
                let oldest = state.entries.indices.min(by: { state.entries[$0].lastUse < state.entries[$1].lastUse })
            {
                state.entries.remove(at: oldest)
            }
            state.clock &+= 1
            state.entries.append(
                Entry(accessKeyId: accessKeyId, fingerprint: fingerprint, key: derived, lastUse: state.clock)
            )
            return derived
        }
    }

    /// Drops every key (after a credentials rotation or a sign-out, say).
    public func removeAll() { state.withLock { $0.entries.removeAll() } }

    /// How many keys are held.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The entry of (`accessKeyId`, `fingerprint`), its last use moved to now.
    private static func use(_ state: inout State, _ accessKeyId: String, _ fingerprint: Digest) -> SigV4AKey? {
        guard
            let index = state.entries.firstIndex(where: {
                $0.fingerprint == fingerprint && $0.accessKeyId == accessKeyId
            })
        else { return nil }
        state.clock &+= 1
        state.entries[index].lastUse = state.clock
        return state.entries[index].key
    }

    /// The capacity and the count: never the access key ids or the keys.
    public var description: String { "SigV4AKeyCache(\(count) of \(capacity))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["capacity": capacity, "count": count], displayStyle: .class)
    }
}
