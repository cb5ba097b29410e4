/// Alibaba Cloud's V3 request signature, `ACS3-HMAC-SHA256` ("Request syntax and signature method
/// V3", Alibaba Cloud API documentation).
///
/// ```
/// CanonicalRequest = METHOD \n CanonicalURI \n CanonicalQueryString \n CanonicalHeaders \n SignedHeaders \n HashedRequestPayload
/// StringToSign     = "ACS3-HMAC-SHA256" \n hex(SHA-256(CanonicalRequest))
/// Signature        = hex(HMAC-SHA256(AccessKeySecret, StringToSign))
/// Authorization    = ACS3-HMAC-SHA256 Credential=<AccessKeyId>,SignedHeaders=<names>,Signature=<signature>
/// ```
///
/// The canonical request has SigV4's layout and is built by the same canonical-request builder,
/// under the ACS3 header policy: `host`, `content-type` and every `x-acs-*` header are signed, names
/// lower-cased, values with their leading and trailing blanks removed. The path is taken as sent on
/// the request line (already percent-encoded, `/` when empty); the query is decoded, re-encoded per
/// RFC 3986 and sorted, a key without a value written `k=`. The signer writes `x-acs-date` (ISO
/// 8601 UTC), `x-acs-signature-nonce`, `x-acs-content-sha256` (hex SHA-256 of the body) and, with
/// STS credentials, `x-acs-security-token`; the request's own fields with these names are replaced.
/// Pinned by vectors from `alibabacloud-openapi-util`.
///
/// Deterministic: the caller passes the time and the nonce.
public struct AliyunACS3Signer: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The algorithm name, on the string to sign's first line and in `Authorization`.
    public static let algorithm: StaticString = "ACS3-HMAC-SHA256"

    /// The key that signs.
    public let credentials: Credentials

    /// A signer for `credentials`.
    public init(credentials: Credentials) {
        self.credentials = credentials
    }

    /// Signs `request` at `time` with `nonce` (once-only per request; the service refuses a repeat).
    ///
    /// The request must carry `Host`, `x-acs-action` and `x-acs-version` (the API names the call by
    /// them). `keepingCanonicalRequest` keeps a copy of the canonical request for debugging (it holds
    /// the session token, when there is one).
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for a bad method, path, header, a missing
    ///   `Host`/`x-acs-action`/`x-acs-version`, a nonce that is not 1–64 unreserved characters, or a
    ///   payload other than bytes or a precomputed hash.
    public func sign(
        _ request: SigV4Request,
        at time: Timestamp,
        nonce: String,
        keepingCanonicalRequest: Bool = false
    )
        throws(AuthCoreError) -> AliyunACS3Signature
    {
        try request.validate(checksTargetBytes: false)
        for header in request.headers { try header.validate() }  // the unsigned ones are sent too
        try AliyunSignatureNonce.check(nonce)
        switch request.payload {
        case .bytes, .precomputedHash: break
        case .unsigned, .streaming:
            throw AuthCoreError(.malformedRequest, "ACS3 signs the body's SHA-256: give the bytes or their hash")
        }
        for name: StaticString in ["x-acs-action", "x-acs-version"]
        where !request.headers.contains(where: { $0.hasName(name) }) {
            throw AuthCoreError(.malformedRequest, "the \(name) header is required (it names the API call)")
        }
        let payloadHash = try PayloadHashText(request.payload)
        let date = time.iso8601
        let token = credentials.sessionToken
        var problem: CanonicalHeaderProblem?
        var kept: [UInt8]?
        var hash = Digest(count: 0)
        var nonceText = nonce
        var dateText = date
        let authorization = dateText.withUTF8 { dateBytes in
            nonceText.withUTF8 { nonceBytes in
                payloadHash.withUnsafeBytes { hashBytes in
                    SignerHeaderValues.withTokenBytes(token) { tokenBytes in
                        let signer = SignerHeaderValues(
                            date: UnsafeRawBufferPointer(dateBytes),
                            securityToken: tokenBytes,
                            contentHash: hashBytes,
                            nonce: UnsafeRawBufferPointer(nonceBytes),
                            replacesToken: token != nil
                        )
                        return CanonicalRequest.with(
                            method: request.method,
                            path: request.path,
                            rawQuery: request.query,
                            headers: request.headers,
                            policy: ACS3HeaderPolicy(replacesToken: token != nil),
                            signerHeaders: signer,
                            normalizePath: false,
                            doubleURIEncode: false,
                            payloadHash: hashBytes
                        ) { canonical, signedHeaders, found -> String in
                            if let found {
                                problem = found
                                return ""
                            }
                            // Both on stack contexts (wiped), as SigV4's: no EVP context or HMAC fetch per signature.
                            hash = LowLevelSHA256.hash(UnsafeRawBufferPointer(canonical))
                            if keepingCanonicalRequest { kept = Array(canonical) }
                            let mac = StringToSign.withUnscoped(algorithm: Self.algorithm, hash: hash) { stringToSign in
                                credentials.secretAccessKey.withUnsafeBytes { secret in
                                    Digest(count: LowLevelSHA256.byteCount) {
                                        HMACSHA256Schedule.authenticationCode(
                                            key: secret,
                                            message: UnsafeRawBufferPointer(stringToSign),
                                            into: $0
                                        )
                                    }
                                }
                            }.published  // the signature is published in the request
                            return authorizationHeader(
                                signedHeaders: UnsafeRawBufferPointer(rebasing: canonical[signedHeaders]),
                                mac: mac
                            )
                        }
                    }
                }
            }
        }
        if let problem { throw problem.error(request.headers) }
        var headers = [
            HTTPHeader("x-acs-date", date), HTTPHeader("x-acs-signature-nonce", nonce),
            HTTPHeader("x-acs-content-sha256", payloadHash.string),
        ]
        if let token { headers.append(HTTPHeader("x-acs-security-token", token)) }
        headers.append(HTTPHeader("Authorization", authorization))
        return AliyunACS3Signature(
            headers: headers,
            authorization: authorization,
            canonicalRequestBytes: kept,
            canonicalRequestHash: hash
        )
    }

    /// `ACS3-HMAC-SHA256 Credential=<id>,SignedHeaders=<names>,Signature=<hex>`, in one allocation.
    func authorizationHeader(signedHeaders: UnsafeRawBufferPointer, mac: Digest) -> String {
        let credentialLabel: StaticString = " Credential="
        let signedHeadersLabel: StaticString = ",SignedHeaders="
        let signatureLabel: StaticString = ",Signature="
        let id = credentials.accessKeyId
        let length =
            Self.algorithm.utf8CodeUnitCount + credentialLabel.utf8CodeUnitCount + id.utf8.count
            + signedHeadersLabel.utf8CodeUnitCount + signedHeaders.count + signatureLabel.utf8CodeUnitCount + 64
        return String(writing: length) { out in
            out.write(Self.algorithm)
            out.write(credentialLabel)
            out.write(id)
            out.write(signedHeadersLabel)
            out.write(signedHeaders)
            out.write(signatureLabel)
            mac.withUnsafeBytes { out.writeHex($0) }
        }
    }

    /// The access key id only.
    public var description: String { "AliyunACS3Signer(\(credentials.accessKeyId))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credentials": credentials], displayStyle: .struct) }
}

/// ACS3's header policy: `host`, `content-type` and `x-acs-*`, values trimmed at both ends; the
/// signer's own `x-acs-date`, `x-acs-signature-nonce`, `x-acs-content-sha256` (and, with STS
/// credentials, `x-acs-security-token`) replace the request's.
struct ACS3HeaderPolicy: CanonicalHeaderPolicy {
    static var valueForm: CanonicalHeaderValueForm { .trimmedEnds }
    static var requiresHost: Bool { true }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        ("x-acs-date", "x-acs-security-token", "x-acs-content-sha256", "x-acs-signature-nonce")
    }

    let replacesToken: Bool

    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        if asciiEqual(name, count, "host") || asciiEqual(name, count, "content-type") { return true }
        guard asciiHasPrefix(name, count, "x-acs-") else { return false }
        let names = Self.signerNames
        return
            !(asciiEqual(name, count, names.date) || asciiEqual(name, count, names.nonce)
            || asciiEqual(name, count, names.contentHash)
            || (replacesToken && asciiEqual(name, count, names.token)))
    }
}

/// An ACS3 signature: the headers to add and the intermediate values.
public struct AliyunACS3Signature: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Headers to add, in this order: `x-acs-date`, `x-acs-signature-nonce`, `x-acs-content-sha256`,
    /// `x-acs-security-token` (STS credentials), `Authorization`.
    public let headers: [HTTPHeader]
    /// The `Authorization` value.
    public let authorization: String
    /// The canonical request, when signing was asked to keep it.
    public let canonicalRequestBytes: [UInt8]?
    let canonicalRequestHash: Digest

    /// The hex signature (the end of ``authorization``).
    public var signature: String { String(authorization.suffix(64)) }
    /// The canonical request, when kept.
    public var canonicalRequest: String? { canonicalRequestBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// `ACS3-HMAC-SHA256 \n hex(SHA-256(canonical request))`.
    public var stringToSign: String {
        StringToSign.withUnscoped(algorithm: AliyunACS3Signer.algorithm, hash: canonicalRequestHash) {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The header names only: the token and the canonical request (which holds it) are never shown.
    public var description: String { "AliyunACS3Signature(headers: \(headers.map(\.name).joined(separator: ", ")))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["headerNames": headers.map(\.name)], displayStyle: .struct)
    }
}
