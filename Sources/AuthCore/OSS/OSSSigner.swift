/// Alibaba Cloud OSS request signing: V1 (`OSS AccessKeyId:Signature`, HMAC-SHA1) and V4
/// (`OSS4-HMAC-SHA256`, scope `date/region/oss/aliyun_v4_request`), headers and signed URLs, with STS
/// security tokens.
///
/// References: OSS documentation "Include a V1 signature in the Authorization header", "Add
/// signatures to URLs (V1)", "Signature Version 4 (recommended)"; conventions pinned by vectors from
/// the oss2 SDK.
public struct OSSSigner: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The signature version.
    public enum Version: String, Sendable {
        /// V1: HMAC-SHA1 over method, Content-MD5, Content-Type, date, `x-oss-*` headers and resource.
        case v1
        /// V4: HMAC-SHA256 with a derived, scoped key over a canonical request.
        case v4
    }

    /// The credentials (`sessionToken` is the STS security token).
    public let credentials: Credentials
    /// The signature version.
    public let version: Version
    /// The region (V4 scope; e.g. `cn-hangzhou`).
    public let region: String?
    let fingerprint: [UInt8]
    let keyCache: SigningKeyCache
    /// The V4 signing key of the last day signed on, with its own keyed HMAC context (one lock per
    /// signature instead of hashing the shared cache's key).
    let memo = SigningKeyMemo()

    /// The sub-resources a V1 signature covers (query parameters outside this set are not signed);
    /// the set of the OSS documentation and oss2 2.19.1.
    public static let v1SubResources: Set<String> = [
        "accessPoint", "accessPointPolicy", "acl", "append", "asyncFetch", "bucketArchiveDirectRead", "bucketInfo", "callback",
        "callback-var", "cname", "comp", "continuation-token", "cors", "delete", "encryption", "endTime", "group",
        "httpsConfig", "inventory", "inventoryId", "lifecycle", "link", "live", "location", "logging", "metaQuery",
        "objectInfo", "objectMeta", "partNumber", "policy", "position", "publicAccessBlock", "qos", "qosInfo",
        "qosRequester", "redundancyTransition", "referer", "regionList", "replication", "replicationLocation",
        "replicationProgress", "requestPayment", "requesterQosInfo", "resourceGroup", "resourcePool",
        "resourcePoolBuckets", "resourcePoolInfo", "response-cache-control", "response-content-disposition",
        "response-content-encoding", "response-content-language", "response-content-type", "response-expires",
        "restore", "security-token", "sequential", "startTime", "stat", "status", "style", "styleName", "symlink",
        "tagging", "transferAcceleration", "uploadId", "uploads", "versionId", "versioning", "versions", "vod", "website",
        "worm", "wormExtend", "wormId", "x-oss-ac-forward-allow", "x-oss-ac-source-ip", "x-oss-ac-subnet-mask",
        "x-oss-ac-vpc-id", "x-oss-access-point-name", "x-oss-async-process", "x-oss-process",
        "x-oss-redundancy-transition-taskid", "x-oss-request-payer", "x-oss-target-redundancy-type",
        "x-oss-traffic-limit", "x-oss-write-get-object-response",
    ]

    /// A signer.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when V4 has no region (or a malformed one).
    public init(credentials: Credentials, version: Version, region: String? = nil, keyCache: SigningKeyCache = .shared)
        throws(AuthCoreError)
    {
        if version == .v4 {
            guard let region, !region.isEmpty, region.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") })
            else { throw AuthCoreError(.invalidParameter, "OSS V4 needs a region (e.g. cn-hangzhou)") }
        }
        self.credentials = credentials
        self.version = version
        self.region = region
        self.keyCache = keyCache
        self.fingerprint = credentials.secretFingerprint.bytes
    }

    // MARK: - Header signing

    /// Signs a request for the `Authorization` header at `time`.
    public func sign(_ request: OSSRequest, at time: Timestamp) throws(AuthCoreError) -> OSSSignature {
        try validate(request)
        switch version {
        case .v1:
            var added = [HTTPHeader("Date", time.rfc1123)]
            if let token = credentials.sessionToken { added.append(HTTPHeader("x-oss-security-token", token)) }
            let headers = request.headers.removingFields(namedLike: added + [HTTPHeader("Authorization", "")]) + added
            let stringToSign = v1StringToSign(request, headers: headers, date: time.rfc1123, extraResource: [])
            let signature = v1Signature(stringToSign)
            let authorization = "OSS \(credentials.accessKeyId):\(signature)"
            return OSSSignature(
                headers: added + [HTTPHeader("Authorization", authorization)], authorization: authorization, signature: signature,
                canonicalRequest: nil, stringToSign: stringToSign, signedURI: nil)
        case .v4:
            let date = AmzDate(time)  // formatted once: the header, the scope and the key cache's day
            let amzDate = date.string
            var added = [HTTPHeader("x-oss-date", amzDate), HTTPHeader("x-oss-content-sha256", "UNSIGNED-PAYLOAD")]
            if let token = credentials.sessionToken { added.append(HTTPHeader("x-oss-security-token", token)) }
            let headers = request.headers.removingFields(namedLike: added + [HTTPHeader("Authorization", "")]) + added
            let additional = v4AdditionalHeaders(requested: request.additionalHeaders, present: nil)
            let (canonical, stringToSign, signature) = v4Sign(
                request, headers: headers, parameters: request.parameters, additional: additional, date: date)
            var authorization = "OSS4-HMAC-SHA256 Credential=" + credentials.accessKeyId + "/" + v4Scope(date)
                + ", Signature=" + signature
            if !additional.isEmpty { authorization += ", AdditionalHeaders=\(additional.joined(separator: ";"))" }
            return OSSSignature(
                headers: added + [HTTPHeader("Authorization", authorization)], authorization: authorization, signature: signature,
                canonicalRequest: canonical, stringToSign: stringToSign, signedURI: nil)
        }
    }

    // MARK: - Signed URLs

    /// Signs a URL valid for `expires` seconds from `time`.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an expiry outside 1...604800 (V4's limit;
    ///   V1 accepts up to 10 years); ``AuthCoreError/Code/expired`` when the URL would outlive the
    ///   credentials.
    public func presign(_ request: OSSRequest, at time: Timestamp, expires: Int) throws(AuthCoreError) -> OSSSignature {
        let limit = version == .v4 ? 604_800 : 315_360_000
        guard (1...limit).contains(expires) else {
            throw AuthCoreError(.invalidParameter, "signed URL expiry \(expires) s is outside 1...\(limit)")
        }
        if let expiration = credentials.expiration {
            let remaining = time.seconds(until: expiration)
            guard Int64(expires) <= remaining else {
                throw AuthCoreError(
                    .expired, "a \(expires) s signed URL would outlive the credentials, which expire at \(expiration.iso8601)")
            }
        }
        switch version {
        case .v1: return try presignV1(request, expiresAt: time.adding(seconds: Int64(expires)))
        case .v4: return try presignV4(request, at: time, expires: expires)
        }
    }

    /// A V1 signed URL expiring at the absolute time `expiresAt` (the `Expires` parameter).
    public func presignV1(_ request: OSSRequest, expiresAt: Timestamp) throws(AuthCoreError) -> OSSSignature {
        try validate(request)
        let expiresText = String(expiresAt.secondsSince1970)
        var extra: [(key: String, value: String)] = []
        if let token = credentials.sessionToken { extra.append(("security-token", token)) }
        let stringToSign = v1StringToSign(request, headers: request.headers, date: expiresText, extraResource: extra)
        let signature = v1Signature(stringToSign)
        var parameters = request.parameters + extra
        parameters.append(("OSSAccessKeyId", credentials.accessKeyId))
        parameters.append(("Expires", expiresText))
        let uri = signedURI(path: request.path, parameters: parameters, signatureName: "Signature", signature: signature)
        return OSSSignature(
            headers: [], authorization: nil, signature: signature, canonicalRequest: nil, stringToSign: stringToSign,
            signedURI: uri)
    }

    func presignV4(_ request: OSSRequest, at time: Timestamp, expires: Int) throws(AuthCoreError) -> OSSSignature {
        try validate(request)
        let present = Set(request.headers.map { $0.name.lowercased() })
        let additional = v4AdditionalHeaders(requested: request.additionalHeaders, present: present)
        var parameters = request.parameters
        if let token = credentials.sessionToken { parameters.append(("x-oss-security-token", token)) }
        let date = AmzDate(time)
        parameters.append(("x-oss-date", date.string))
        parameters.append(("x-oss-expires", String(expires)))
        parameters.append(("x-oss-signature-version", "OSS4-HMAC-SHA256"))
        parameters.append(("x-oss-credential", "\(credentials.accessKeyId)/\(v4Scope(date))"))
        if !additional.isEmpty { parameters.append(("x-oss-additional-headers", additional.joined(separator: ";"))) }
        let (canonical, stringToSign, signature) = v4Sign(
            request, headers: request.headers, parameters: parameters, additional: additional, date: date)
        let uri = signedURI(path: request.path, parameters: parameters, signatureName: "x-oss-signature", signature: signature)
        return OSSSignature(
            headers: [], authorization: nil, signature: signature, canonicalRequest: canonical, stringToSign: stringToSign,
            signedURI: uri)
    }

    // MARK: - V1

    /// `METHOD \n Content-MD5 \n Content-Type \n DATE \n CanonicalizedOSSHeaders CanonicalizedResource`.
    func v1StringToSign(_ request: OSSRequest, headers: [HTTPHeader], date: String, extraResource: [(key: String, value: String)])
        -> String
    {
        var out = request.method + "\n"
        out += (headers.first(named: "content-md5") ?? "") + "\n"
        out += (headers.first(named: "content-type") ?? "") + "\n"
        out += date + "\n"
        out += ossHeaders(headers, include: { $0.hasPrefix("x-oss-") })
        var resource = "/"
        if let bucket = request.bucket, !bucket.isEmpty { resource = "/\(bucket)/\(request.key)" }
        let subresources = (request.parameters + extraResource)
            .filter { Self.v1SubResources.contains($0.key) }
            .sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        if !subresources.isEmpty {
            resource += "?" + subresources.map { $0.value.isEmpty ? $0.key : "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
        return out + resource
    }

    func v1Signature(_ stringToSign: String) -> String {
        credentials.secretAccessKey.withUnsafeBytes { key in
            Array(stringToSign.utf8).withUnsafeBytes { HashAlgorithm.sha1.authenticationCode(for: $0, using: key) }
        }.publishedBase64  // the signature is published in the request
    }

    // MARK: - V4

    /// `date/region/oss/aliyun_v4_request`.
    func v4Scope(_ date: AmzDate) -> String { date.dateString + "/" + (region ?? "") + "/oss/aliyun_v4_request" }

    /// Lower-cased additional headers, without the ones signed anyway, sorted; in URL mode only those present.
    func v4AdditionalHeaders(requested: [String], present: Set<String>?) -> [String] {
        var names = Set<String>()
        for name in requested {
            let lower = name.lowercased()
            if lower.hasPrefix("x-oss-") || lower == "content-type" || lower == "content-md5" { continue }
            if let present, !present.contains(lower) { continue }
            names.insert(lower)
        }
        return names.sorted(by: Self.byteOrder)
    }

    func v4Sign(
        _ request: OSSRequest, headers: [HTTPHeader], parameters: [(key: String, value: String)], additional: [String],
        date: AmzDate
    ) -> (canonical: String, stringToSign: String, signature: String) {
        let amzDate = date.string
        let payload = headers.firstValue(namedIgnoringCase: "x-oss-content-sha256") ?? "UNSIGNED-PAYLOAD"
        let canonical = OSSV4CanonicalRequest.build(
            method: request.method, bucket: request.bucket, key: request.key, parameters: parameters, headers: headers,
            additional: additional, payload: payload)
        // OSS4-HMAC-SHA256 \n timestamp \n date/region/oss/aliyun_v4_request \n hex(SHA256(canonical request))
        let scope = v4Scope(date)
        var stringToSign: [UInt8] = []
        stringToSign.reserveCapacity(17 + amzDate.utf8.count + 1 + scope.utf8.count + 1 + 64)
        stringToSign.append(contentsOf: "OSS4-HMAC-SHA256\n".utf8)
        stringToSign.append(contentsOf: amzDate.utf8)
        stringToSign.append(UInt8(ascii: "\n"))
        stringToSign.append(contentsOf: scope.utf8)
        stringToSign.append(UInt8(ascii: "\n"))
        canonical.withUnsafeBytes { SHA256.hash(bufferPointer: $0) }.withUnsafeBytes { stringToSign.appendHex($0) }
        let signature = stringToSign.withUnsafeBytes { v4Authenticate($0, date: date) }
        return (String(decoding: canonical, as: UTF8.self), String(decoding: stringToSign, as: UTF8.self), signature.hexLowercased)
    }

    /// HMAC-SHA256 under the V4 signing key of `time`'s day: the signer's memo, else the shared cache.
    func v4Authenticate(_ message: UnsafeRawBufferPointer, date amzDate: AmzDate) -> Digest {
        let day = amzDate.day
        if let digest = memo.authenticate(day: day, message) { return digest.published }  // published in the request
        let date = amzDate.dateString
        let key = SigningKeyCache.Key(
            scheme: 1, accessKeyId: credentials.accessKeyId, fingerprint: fingerprint, date: date, region: region ?? "",
            service: "oss")
        let entry = keyCache.entry(for: key) { deriveV4Key(date: date) }
        memo.store(day: day, entry: entry)
        return entry.authenticate(message).published
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("aliyun_v4" + secret, date), region), "oss"), "aliyun_v4_request").
    func deriveV4Key(date: String) -> SecureBytes {
        var seed = SecureBytes(Array("aliyun_v4".utf8))
        credentials.secretAccessKey.withUnsafeBytes { seed.append(contentsOf: $0) }
        return HMACKeyChain.derive(.sha256, seed: seed, parts: [date, region ?? "", "oss", "aliyun_v4_request"])
    }

    // MARK: - Shared

    /// `name:value\n` for the selected headers (lower-case names, values verbatim, repeated names
    /// joined with `,`), sorted by name.
    func ossHeaders(_ headers: [HTTPHeader], include: (String) -> Bool) -> String {
        var grouped: [(String, String)] = []
        for header in headers {
            let name = header.name.lowercased()
            guard include(name) else { continue }
            if let index = grouped.firstIndex(where: { $0.0 == name }) {
                grouped[index].1 += "," + header.value
            } else {
                grouped.append((name, header.value))
            }
        }
        var out = ""
        for (name, value) in grouped.sorted(by: { Self.byteOrder($0.0, $1.0) }) {
            out += name
            out += ":"
            out += value
            out += "\n"
        }
        return out
    }

    /// Byte order of two strings' UTF-8, without copying them into arrays.
    static func byteOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    func signedURI(path: String, parameters: [(key: String, value: String)], signatureName: String, signature: String) -> String {
        let encoded = parameters.map { (SigV4Canonicalizer.encode(Array($0.key.utf8)), SigV4Canonicalizer.encode(Array($0.value.utf8))) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) || ($0.0 == $1.0 && $0.1.lexicographicallyPrecedes($1.1)) }
            .map { $0.1.isEmpty ? String(decoding: $0.0, as: UTF8.self) : "\(String(decoding: $0.0, as: UTF8.self))=\(String(decoding: $0.1, as: UTF8.self))" }
        let base = path.isEmpty ? "/" : path
        return base + "?" + (encoded + ["\(signatureName)=\(PercentEncoding.encoded(signature))"]).joined(separator: "&")
    }

    func validate(_ request: OSSRequest) throws(AuthCoreError) {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy({ ASCIISet.token.contains($0) }) else {
            throw AuthCoreError(.malformedRequest, "method '\(request.method)' is not an HTTP token")
        }
        for header in request.headers { try header.validate() }
        if let bucket = request.bucket {
            guard !bucket.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 }) else {
                throw AuthCoreError(.malformedRequest, "bucket name contains '/' or control characters")
            }
        }
        guard !request.key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw AuthCoreError(.malformedRequest, "object key contains control characters")
        }
    }
}

extension OSSSigner {
    /// The access key id, version and region: never the secret, the token or the key cache (whose
    /// keyed MAC contexts cannot be reflected).
    public var description: String {
        "OSSSigner(\(credentials.accessKeyId), \(version == .v1 ? "V1" : "V4")\(region.map { ", \($0)" } ?? ""))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credentials": credentials, "region": region as Any], displayStyle: .struct) }
}
