/// AWS Signature Version 4 for any service: `Authorization` headers and presigned URLs.
///
/// ```swift
/// let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
/// let request = SigV4Request(method: "POST", target: "/", headers: [HTTPHeader("Host", "sts.amazonaws.com")],
///                            payload: .bytes(Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)))
/// let signed = try signer.sign(request, at: clock.now())
/// // add signed.headers to the request: X-Amz-Date, [X-Amz-Security-Token], [X-Amz-Content-SHA256], Authorization
/// ```
///
/// Steps (AWS General Reference, "Signature Version 4 signing process"):
/// 1. canonical request = `METHOD \n URI \n QUERY \n HEADERS \n SIGNED-HEADERS \n PAYLOAD-HASH`;
/// 2. string to sign = `AWS4-HMAC-SHA256 \n X-Amz-Date \n date/region/service/aws4_request \n hex(SHA256(canonical
///    request))`;
/// 3. signing key = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request"),
///    cached in a ``SigningKeyCache`` as its keyed HMAC-SHA256 state (inner and outer SHA-256 states);
/// 4. signature = hex(HMAC(signing key, string to sign)).
///
/// The signer does no I/O and reads no clock: the caller passes the signing time (an injected clock
/// plus any clock-skew correction).
public struct SigV4Signer: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Everything the signer holds, behind one reference: copying a signer (into a closure, a
    /// result, another task) costs one retain, not one per field. It is the scope's signing keys
    /// (``SigningScheme/aws4``: memo, shared cache, derivation) extended with the signer's own
    /// parts, so a signer made per request allocates one object for both.
    final class Storage: ScopedSigningKeys, @unchecked Sendable {
        // invariant (Sendable): lets of Sendable types only, as in ScopedSigningKeys.
        let options: SigV4Options
        /// `AWS4-HMAC-SHA256 Credential=AKID/` ‖ `/region/service/aws4_request, SignedHeaders=`:
        /// the fixed parts of the `Authorization` header before and after the date, in one array
        /// (one allocation per signer); the first `authorizationPrefixCount` bytes come before it.
        let authorizationParts: [UInt8]
        let authorizationPrefixCount: Int
        /// The session token's bytes, lent to each header-mode canonical request (nil without a
        /// token, or with ``SigV4Options/omitSessionToken``, where the token is sent but not signed).
        let token: SessionTokenBytes?
        init(
            credentials: Credentials,
            region: String,
            service: String,
            options: SigV4Options,
            keyCache: SigningKeyCache
        ) {
            self.options = options
            self.token = SessionTokenBytes.copying(options.omitSessionToken ? nil : credentials.sessionToken)
            let scopeSuffix = SigningScheme.aws4.scopeSuffix(region: region, service: service)
            // In one allocation (a signer built per request, on a server, pays for it).
            let algorithm = SigningScheme.aws4.algorithm
            let label: StaticString = " Credential="
            let signedHeadersLabel: StaticString = ", SignedHeaders="
            let prefixCount =
                algorithm.utf8CodeUnitCount + label.utf8CodeUnitCount + credentials.accessKeyId.utf8.count + 1
            // One pass into a temporary block, one copy out (Array(writing:)): no appends, no
            // unspecialised allocation.
            let partsCount = prefixCount + scopeSuffix.count + signedHeadersLabel.utf8CodeUnitCount
            self.authorizationParts = [UInt8](writing: partsCount) { out in
                out.write(algorithm)
                out.write(label)
                out.write(credentials.accessKeyId)
                out.writeByte(UInt8(ascii: "/"))
                out.write(scopeSuffix)
                out.write(signedHeadersLabel)
            }
            self.authorizationPrefixCount = prefixCount
            super.init(
                scheme: .aws4,
                credentials: credentials,
                region: region,
                service: service,
                cache: keyCache,
                scopeSuffix: scopeSuffix
            )
        }

        /// A presigned URL's `X-Amz-Credential` for `date`, percent-encoded:
        /// `AKID/YYYYMMDD/region/service/aws4_request` (built per URL: a signer that only signs
        /// headers, or signs once, never pays for it).
        func encodedCredential(date: AmzDate) -> [UInt8] {
            let accessKeyId = credentials.accessKeyId
            let scopeSuffix = self.scopeSuffix
            // Written in one pass (each encoded byte is at most three): no per-byte append with its
            // uniqueness and capacity checks.
            let capacity = 3 &* accessKeyId.utf8.count &+ 3 &+ 8 &+ 3 &* scopeSuffix.count
            return [UInt8](writing: capacity) { out in
                if accessKeyId.utf8.withContiguousStorageIfAvailable({
                    PercentEncoding.encode($0, .unreserved, into: &out)
                }) == nil {
                    PercentEncoding.encode(accessKeyId.utf8, .unreserved, into: &out)
                }
                out.write("%2F" as StaticString)
                date.withDateBytes { out.write($0) }
                scopeSuffix.withUnsafeBufferPointer { PercentEncoding.encode($0, .unreserved, into: &out) }
            }
        }
    }

    let storage: Storage

    /// The credentials.
    public var credentials: Credentials { storage.credentials }
    /// The region of the credential scope (`us-east-1`).
    public var region: String { storage.region }
    /// The service of the credential scope (`s3`, `sts`, `cognito-identity`).
    public var service: String { storage.service }
    /// Canonicalisation rules.
    public var options: SigV4Options { storage.options }
    /// `/region/service/aws4_request`, precomputed.
    var scopeSuffix: [UInt8] { storage.scopeSuffix }

    /// `AWS4-HMAC-SHA256`, the `X-Amz-Algorithm` value of a presigned URL.
    static let presignAlgorithm = SigningScheme.aws4.algorithm.withUTF8Buffer { Array($0) }

    /// The longest presigned-URL lifetime SigV4 allows (7 days).
    public static let maximumPresignedExpiry = 604_800

    /// A signer.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an empty region or service, or one with
    ///   `/`, whitespace or control characters (they are part of the credential scope).
    public init(
        credentials: Credentials,
        region: String,
        service: String,
        options: SigV4Options = .standard,
        keyCache: SigningKeyCache = .shared
    ) throws(AuthCoreError) {
        try Self.checkScopePart(region, name: "region")
        try Self.checkScopePart(service, name: "service")
        storage = Storage(
            credentials: credentials,
            region: region,
            service: service,
            options: options,
            keyCache: keyCache
        )
    }

    /// A region or service: non-empty, without `/`, whitespace or control characters.
    private static func checkScopePart(_ value: String, name: StaticString) throws(AuthCoreError) {
        @inline(__always) func allowed(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: "/")
        }
        // On the string's bytes in place: a signer made per request checks two parts each time.
        guard !value.isEmpty, value.utf8AllSatisfy(allowed) else {
            throw AuthCoreError(
                .invalidParameter,
                "\(name) must be non-empty, without '/', spaces or control characters"
            )
        }
    }

    // MARK: - Header signing

    /// Signs a request for the `Authorization` header.
    ///
    /// Existing `Authorization`, `X-Amz-Date` (and, when the signer adds them,
    /// `X-Amz-Security-Token`/`X-Amz-Content-SHA256`) headers are replaced, so a request can be signed
    /// again (after a clock-skew correction).
    /// - Parameters:
    ///   - request: the request.
    ///   - time: the signing time.
    ///   - keepingCanonicalRequest: keep a copy of the canonical request in the result
    ///     (``SigV4Signature/canonicalRequest``), for debugging and test vectors. Off by default:
    ///     signing builds it on the stack and keeps only its hash.
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for an invalid method, header or payload hash.
    public func sign(
        _ request: SigV4Request,
        at time: Timestamp,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError)
        -> SigV4Signature
    {
        try request.validate(checksTargetBytes: false)
        let (date, dateText, entry) = storage.dated(time)  // one lock: the memo's
        let payloadHash = try PayloadHashText(request.payload)
        let addsHash = addsContentSHA256(request)
        var problem: CanonicalHeaderProblem?
        var mac = Digest(count: 0)
        var hash = Digest(count: 0)
        var kept: [UInt8]?
        let authorization = withCanonicalRequest(request, date: date, payloadHash: payloadHash, addsHash: addsHash) {
            canonical,
            signedHeaders,
            found -> String in
            if let found {
                problem = found
                return ""
            }
            hash = storage.hash(canonicalRequest: canonical)
            mac = storage.signature(date: date, hash: hash, entry: entry)
            if keepingCanonicalRequest { kept = Array(canonical) }
            return authorizationHeader(
                date: date,
                signedHeaders: UnsafeRawBufferPointer(rebasing: canonical[signedHeaders]),
                mac: mac
            )
        }
        if let problem { throw problem.error(request.headers) }
        let headers: [HTTPHeader]
        let token = storage.credentials.sessionToken
        if token == nil && !addsHash {
            // one allocation
            headers = [HTTPHeader("X-Amz-Date", dateText), HTTPHeader("Authorization", authorization)]
        } else {
            var list: [HTTPHeader] = []
            list.reserveCapacity(4)  // one allocation
            list.append(HTTPHeader("X-Amz-Date", dateText))
            if let token { list.append(HTTPHeader("X-Amz-Security-Token", token)) }
            if addsHash { list.append(HTTPHeader("X-Amz-Content-SHA256", payloadHash.string)) }
            list.append(HTTPHeader("Authorization", authorization))
            headers = list
        }
        return SigV4Signature(
            headers: headers,
            mac: mac,
            canonicalRequestBytes: kept,
            canonicalRequestHash: hash,
            signedURI: nil,
            expires: nil,
            scopeSuffix: scopeSuffix,
            date: date
        )
    }

    /// Builds the header-mode canonical request of `request` on the stack and passes it to `body`
    /// with the range of its signed-header list and the first problem found in its headers.
    @inline(__always)
    func withCanonicalRequest<R>(
        _ request: SigV4Request,
        date: AmzDate,
        payloadHash: PayloadHashText,
        addsHash: Bool,
        _ body: (UnsafeRawBufferPointer, Range<Int>, CanonicalHeaderProblem?) -> R
    ) -> R {
        let token = storage.credentials.sessionToken
        let options = self.options
        let storage = self.storage
        return date.withBytes { dateBytes in
            payloadHash.withUnsafeBytes { hash in
                // The token's bytes stay valid for the call: `self` is borrowed until it returns, and
                // holds `storage` (a `let`), which holds `token` (a `let`): SessionTokenBytes.
                let signer = SignerHeaderValues(
                    date: dateBytes,
                    securityToken: storage.token?.bytes,
                    contentHash: addsHash ? hash : nil,
                    replacesToken: token != nil
                )
                return CanonicalRequest.with(
                    method: request.method,
                    path: request.path,
                    rawQuery: request.query,
                    headers: request.headers,
                    policy: SigV4HeaderPolicy(signer: signer),
                    signerHeaders: signer,
                    normalizePath: options.normalizePath,
                    doubleURIEncode: options.doubleURIEncode,
                    payloadHash: hash,
                    body
                )
            }
        }
    }

    /// `AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request, SignedHeaders=…, Signature=…`
    /// (AWS General Reference, "Add the signature to the HTTP request"), written in one allocation.
    func authorizationHeader(date: AmzDate, signedHeaders: UnsafeRawBufferPointer, mac: Digest) -> String {
        let signatureLabel: StaticString = ", Signature="
        let storage = self.storage
        let parts = storage.authorizationParts
        let prefixCount = storage.authorizationPrefixCount
        let length =
            parts.count + 8 + signedHeaders.count
            + signatureLabel.utf8CodeUnitCount + 64
        return String(writing: length) { out in
            parts.withUnsafeBytes { parts in
                out.write(UnsafeRawBufferPointer(rebasing: parts[..<prefixCount]))
                date.withDateBytes { out.write($0) }
                out.write(UnsafeRawBufferPointer(rebasing: parts[prefixCount...]))
            }
            out.write(signedHeaders)
            out.write(signatureLabel)
            mac.withUnsafeBytes { out.writeHex($0) }
        }
    }

    // MARK: - Presigned URLs

    /// What to do when a presigned URL would outlive the credentials.
    public enum ExpiryPolicy: Sendable {
        /// Throw ``AuthCoreError/Code/expired`` (the default: no URL that dies early).
        case strict
        /// Shorten the expiry to the credentials' remaining lifetime (reported in
        /// ``SigV4Signature/expires``).
        case clampToCredentials
    }

    /// Signs a request as a presigned URL (query-string authentication).
    ///
    /// - Parameters:
    ///   - request: the request; its headers (at least `Host`) are signed, its payload is usually
    ///     ``SigV4Payload/unsigned``.
    ///   - time: the signing time.
    ///   - expires: lifetime in seconds, 1...604800.
    ///   - policy: what to do when the URL would outlive the credentials' expiration.
    ///   - keepingCanonicalRequest: keep a copy of the canonical request in the result, for
    ///     debugging and test vectors.
    /// - Returns: a signature whose ``SigV4Signature/signedURI`` is the path and query to request.
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an expiry outside 1...604800;
    ///   ``AuthCoreError/Code/expired`` when the credentials are expired, or expire before the URL
    ///   would (with ``ExpiryPolicy/strict``).
    public func presign(
        _ request: SigV4Request,
        at time: Timestamp,
        expires: Int,
        policy: ExpiryPolicy = .strict,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError) -> SigV4Signature {
        try request.validate()
        guard (1...Self.maximumPresignedExpiry).contains(expires) else {
            throw AuthCoreError(
                .invalidParameter,
                "presigned URL expiry \(expires) s is outside 1...\(Self.maximumPresignedExpiry)"
            )
        }
        var effectiveExpires = expires
        if let expiration = credentials.expiration {
            let remaining = time.seconds(until: expiration)
            guard remaining > 0 else {
                throw AuthCoreError(.expired, "the credentials expired at \(expiration.iso8601)")
            }
            if Int64(expires) > remaining {
                switch policy {
                case .strict:
                    throw AuthCoreError(
                        .expired,
                        "a \(expires) s presigned URL would outlive the credentials, which expire at \(expiration.iso8601) (\(remaining) s left)"
                    )
                case .clampToCredentials:
                    effectiveExpires = Int(remaining)
                }
            }
        }
        let (date, _, entry) = storage.dated(time)
        let payloadHash = try PayloadHashText(request.payload)
        // The signed-header list is the request's headers (minus any Authorization/X-Amz-Date).
        var problem: CanonicalHeaderProblem?
        let signedHeaders = SigV4CanonicalRequest.signedHeaderList(request.headers, problem: &problem)
        if let problem { throw problem.error(request.headers) }
        var signedHeadersValue: [UInt8] = []
        signedHeadersValue.reserveCapacity(signedHeaders.count + 16)
        PercentEncoding.encode(signedHeaders, .unreserved, into: &signedHeadersValue)
        let token = credentials.sessionToken
        var query = PresignedQuery(
            rawQuery: request.query,
            adding: [
                (PresignedQuery.algorithmKey, Self.presignAlgorithm),
                (PresignedQuery.credentialKey, storage.encodedCredential(date: date)),
                (PresignedQuery.dateKey, date.withBytes { Array($0) }),
                (PresignedQuery.expiresKey, Array(String(effectiveExpires).utf8)),
                (PresignedQuery.signedHeadersKey, signedHeadersValue),
            ],
            token: token,
            omitSessionToken: options.omitSessionToken,
            ownNames: PresignedQuery.sigV4Names
        )
        defer { query.wipeToken() }
        let (hash, mac, kept) = query.withCanonicalRequest(request, options: options, payloadHash: payloadHash) {
            canonical in
            let hash = storage.hash(canonicalRequest: canonical)
            let mac = storage.signature(date: date, hash: hash, entry: entry)
            return (hash, mac, keepingCanonicalRequest ? Array(canonical) : nil)
        }
        let uri = mac.withUnsafeBytes { query.uri(path: request.path, signature: $0) }
        return SigV4Signature(
            headers: [],
            mac: mac,
            canonicalRequestBytes: kept,
            canonicalRequestHash: hash,
            signedURI: uri,
            expires: effectiveExpires,
            scopeSuffix: scopeSuffix,
            date: date
        )
    }

    // MARK: - Pieces

    /// `date/region/service/aws4_request`.
    public func credentialScope(_ time: Timestamp) -> String {
        AmzDate(time).dateString + String(decoding: scopeSuffix, as: UTF8.self)
    }

    /// The signing key of `date`'s day (the chunk signer keys its chain with its seed's date).
    func keyEntry(day date: AmzDate) -> SigningKeyCache.Entry { storage.entry(for: date) }

    /// The hash of the canonical request and the signature: hex(SHA256(canonical request)) goes into
    /// the string to sign (``SigV4Signature/stringToSign``), which is MACed with the signing key.
    package func signatureOf(canonicalRequest: [UInt8], date: AmzDate) -> (hash: Digest, mac: Digest) {
        canonicalRequest.withUnsafeBytes { signatureOf(canonicalRequest: $0, date: date) }
    }

    package func signatureOf(canonicalRequest: UnsafeRawBufferPointer, date: AmzDate) -> (hash: Digest, mac: Digest) {
        let hash = storage.hash(canonicalRequest: canonicalRequest)
        return (hash, storage.signature(date: date, hash: hash))
    }

    func addsContentSHA256(_ request: SigV4Request) -> Bool {
        if options.addContentSHA256Header { return true }
        if case .streaming = request.payload { return true }
        return false
    }

}

/// The result of signing: headers to add (header mode) or the presigned target (query mode), plus
/// the intermediate values for debugging and test vectors (computed on demand).
public struct SigV4Signature: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Headers to add to the request, in this order: `X-Amz-Date`, `X-Amz-Security-Token` (if any),
    /// `X-Amz-Content-SHA256` (if any), `Authorization`. Empty for presigned URLs.
    public let headers: [HTTPHeader]
    /// The `Authorization` header value (header mode): the last of ``headers``.
    public var authorization: String? { signedURI == nil ? headers.last?.value : nil }
    let mac: Digest
    /// The canonical request, as bytes, when signing was asked to keep it (`keepingCanonicalRequest`).
    public let canonicalRequestBytes: [UInt8]?
    let canonicalRequestHash: Digest
    /// The presigned path and query (query mode).
    public let signedURI: String?
    /// The presigned URL's effective lifetime in seconds (query mode).
    public let expires: Int?
    let scopeSuffix: [UInt8]
    let date: AmzDate

    /// The hex signature.
    public var signature: String { mac.hexLowercased }
    /// The `X-Amz-Date` value.
    public var amzDate: String { date.string }
    /// The credential scope `date/region/service/aws4_request`.
    public var scope: String { date.dateString + String(decoding: scopeSuffix, as: UTF8.self) }
    /// The canonical request, when signing was asked to keep it (`keepingCanonicalRequest`).
    public var canonicalRequest: String? { canonicalRequestBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The string to sign.
    public var stringToSign: String {
        StringToSign.with(
            algorithm: SigningScheme.aws4.algorithm,
            date: date,
            scopeSuffix: scopeSuffix,
            hash: canonicalRequestHash
        ) {
            String(decoding: $0, as: UTF8.self)
        }
    }
    /// The string to sign, as bytes.
    public var stringToSignBytes: [UInt8] { Array(stringToSign.utf8) }

    /// Date, scope and the header names: never the `Authorization` value, the session token or the
    /// canonical request (which holds the token).
    public var description: String {
        "SigV4Signature(\(amzDate), \(scope), headers: \(headers.map(\.name).joined(separator: ", "))\(signedURI == nil ? "" : ", presigned"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "amzDate": amzDate, "scope": scope, "headerNames": headers.map(\.name), "expires": expires as Any,
            ],
            displayStyle: .struct
        )
    }
}

extension SigV4Signer {
    /// The access key id, region and service: never the secret, the token or the key cache (whose
    /// keyed MAC states are not reflected).
    public var description: String { "SigV4Signer(\(credentials.accessKeyId), \(region), \(service))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["credentials": credentials, "region": region, "service": service],
            displayStyle: .struct
        )
    }
}
