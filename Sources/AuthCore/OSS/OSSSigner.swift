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
    /// V4: the scope's signing keys (``SigningScheme/aliyunV4``, service `oss`): memo, shared cache,
    /// derivation. Nil for V1, which MACs with the secret itself.
    let keys: ScopedSigningKeys?

    // bytes-lint: the published list; a parameter is looked up in ``v1SubResourceBytes`` by its bytes.
    /// The sub-resources a V1 signature covers (query parameters outside this set are not signed);
    /// the set of the OSS documentation and oss2 2.19.1.
    public static let v1SubResources: Set<String> = [
        "accessPoint", "accessPointPolicy", "acl", "append", "asyncFetch", "bucketArchiveDirectRead", "bucketInfo",
        "callback",
        "callback-var", "cname", "comp", "continuation-token", "cors", "delete", "encryption", "endTime", "group",
        "httpsConfig", "inventory", "inventoryId", "lifecycle", "link", "live", "location", "logging", "metaQuery",
        "objectInfo", "objectMeta", "partNumber", "policy", "position", "publicAccessBlock", "qos", "qosInfo",
        "qosRequester", "redundancyTransition", "referer", "regionList", "replication", "replicationLocation",
        "replicationProgress", "requestPayment", "requesterQosInfo", "resourceGroup", "resourcePool",
        "resourcePoolBuckets", "resourcePoolInfo", "response-cache-control", "response-content-disposition",
        "response-content-encoding", "response-content-language", "response-content-type", "response-expires",
        "restore", "security-token", "sequential", "startTime", "stat", "status", "style", "styleName", "symlink",
        "tagging", "transferAcceleration", "uploadId", "uploads", "versionId", "versioning", "versions", "vod",
        "website",
        "worm", "wormExtend", "wormId", "x-oss-ac-forward-allow", "x-oss-ac-source-ip", "x-oss-ac-subnet-mask",
        "x-oss-ac-vpc-id", "x-oss-access-point-name", "x-oss-async-process", "x-oss-process",
        "x-oss-redundancy-transition-taskid", "x-oss-request-payer", "x-oss-target-redundancy-type",
        "x-oss-traffic-limit", "x-oss-write-get-object-response",
    ]

    /// A signer.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when V4 has no region (or a malformed one).
    public init(
        credentials: Credentials,
        version: Version,
        region: String? = nil,
        keyCache: SigningKeyCache = .shared
    )
        throws(AuthCoreError)
    {
        try Self.checkRegion(version: version, region: region)
        self.credentials = credentials
        self.version = version
        self.region = region
        self.keys =
            version == .v4
            ? ScopedSigningKeys(
                scheme: .aliyunV4,
                credentials: credentials,
                region: region ?? "",
                service: "oss",
                cache: keyCache
            )
            : nil
    }

    /// V4 needs a region: non-empty, no space, control byte or `/` (it is part of the scope).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` otherwise.
    package static func checkRegion(version: Version, region: String?) throws(AuthCoreError) {
        guard version == .v4 else { return }
        guard let region, !region.isEmpty,
            region.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") })
        else { throw AuthCoreError(.invalidParameter, "OSS V4 needs a region (e.g. cn-hangzhou)") }
    }

    // MARK: - Header signing

    /// Signs a request for the `Authorization` header at `time`.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - time: the signing time.
    ///   - keepingCanonicalRequest: V4: keep the canonical request in the result
    ///     (``OSSSignature/canonicalRequest``), for debugging and test vectors. Off by default: it is
    ///     built on the stack and only its hash kept.
    public func sign(
        _ request: OSSRequest,
        at time: Timestamp,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError)
        -> OSSSignature
    {
        try Self.validate(request)
        switch version {
        case .v1:
            let date = time.rfc1123
            let token = credentials.sessionToken
            let stringToSign = Self.v1StringToSign(
                request,
                contentHeaders: request.headers,
                date: date,
                securityToken: token,
                extraResource: []
            )
            let signature = v1Signature(stringToSign)
            let authorization = "OSS \(credentials.accessKeyId):\(signature)"
            return OSSSignature(
                headers: Self.v1Headers(date: date, token: token, authorization: authorization),
                authorization: authorization,
                signature: signature,
                canonicalRequest: nil,
                intermediate: .text(stringToSign),
                signedURI: nil
            )
        case .v4:
            guard let keys else { preconditionFailure("a V4 signer has its keys") }  // invariant: set by init for .v4
            // formatted once a second: the header, the scope, the key's day
            let (date, dateText, entry) = keys.dated(time)
            let token = credentials.sessionToken
            let additional = Self.v4AdditionalHeaders(requested: request.additionalHeaders, present: nil)
            let (hash, kept) = Self.v4HeaderCanonicalRequest(request, date: date, token: token, additional: additional)
            { canonical in
                (
                    keys.hash(canonicalRequest: canonical),
                    keepingCanonicalRequest ? String(decoding: canonical, as: UTF8.self) : nil
                )
            }
            let mac = keys.signature(date: date, hash: hash, entry: entry)
            let authorization = Self.v4Authorization(
                accessKeyId: credentials.accessKeyId,
                date: date,
                scopeSuffix: keys.scopeSuffix,
                additional: additional,
                signatureHex: { out in mac.withUnsafeBytes { out.writeHex($0) } }
            )
            let headers = Self.v4Headers(dateText: dateText, token: token, authorization: authorization)
            return OSSSignature(
                headers: headers,
                authorization: authorization,
                signature: mac.hexLowercased,
                canonicalRequest: kept,
                intermediate: .scoped(date: date, scopeSuffix: keys.scopeSuffix, hash: hash),
                signedURI: nil
            )
        }
    }

    /// `OSS4-HMAC-SHA256 Credential=AKID/date/region/oss/aliyun_v4_request, Signature=…[, AdditionalHeaders=a;b]`,
    /// written in one allocation; `signatureHex` writes the 64 hex digits.
    static func v4Authorization(
        accessKeyId: String,
        date: AmzDate,
        scopeSuffix: [UInt8],
        additional: [String],
        signatureHex: (inout OutputCursor) -> Void
    ) -> String {
        let algorithm = SigningScheme.aliyunV4.algorithm
        let credentialLabel: StaticString = " Credential="
        let signatureLabel: StaticString = ", Signature="
        let additionalLabel: StaticString = ", AdditionalHeaders="
        let additionalBytes =
            additional.isEmpty ? 0 : additional.reduce(additionalLabel.utf8CodeUnitCount) { $0 &+ $1.utf8.count &+ 1 }
        let length =
            algorithm.utf8CodeUnitCount + credentialLabel.utf8CodeUnitCount + accessKeyId.utf8.count + 1 + 8
            + scopeSuffix.count + signatureLabel.utf8CodeUnitCount + 64 + additionalBytes
        return String(writing: length) { out in
            out.write(algorithm)
            out.write(credentialLabel)
            out.write(accessKeyId)
            out.writeByte(UInt8(ascii: "/"))
            date.withDateBytes { out.write($0) }
            out.write(scopeSuffix)
            out.write(signatureLabel)
            signatureHex(&out)
            if !additional.isEmpty {
                out.write(additionalLabel)
                for (index, name) in additional.enumerated() {
                    if index > 0 { out.writeByte(UInt8(ascii: ";")) }
                    out.write(name)
                }
            }
        }
    }

    /// V4 header mode's headers: `x-oss-date`, `x-oss-content-sha256`, the token if any, `Authorization`.
    static func v4Headers(dateText: String, token: String?, authorization: String) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(token == nil ? 3 : 4)  // one allocation
        headers.append(HTTPHeader("x-oss-date", dateText))
        headers.append(HTTPHeader("x-oss-content-sha256", "UNSIGNED-PAYLOAD"))
        if let token { headers.append(HTTPHeader("x-oss-security-token", token)) }
        headers.append(HTTPHeader("Authorization", authorization))
        return headers
    }

    /// V4 header mode's canonical request of `request` at `date`, hashed by `hash` (and kept as text
    /// when asked).
    static func v4HeaderCanonicalRequest<R>(
        _ request: OSSRequest,
        date: AmzDate,
        token: String?,
        additional: [String],
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        let unsigned: StaticString = "UNSIGNED-PAYLOAD"
        return date.withBytes { dateBytes in
            unsigned.withUTF8Buffer { payload in
                SignerHeaderValues.withTokenBytes(token) { tokenBytes in
                    OSSV4CanonicalRequest.withCanonicalRequest(
                        method: request.method,
                        bucket: request.bucket,
                        key: request.key,
                        parameters: request.parameters,
                        headers: request.headers,
                        additional: additional,
                        signer: SignerHeaderValues(
                            date: dateBytes,
                            securityToken: tokenBytes,
                            contentHash: UnsafeRawBufferPointer(payload),
                            replacesToken: token != nil
                        ),
                        ownsNames: true,
                        payload: "UNSIGNED-PAYLOAD",
                        body
                    )
                }
            }
        }
    }

    /// V4 URL mode's parameters: the request's, the token if any, then `x-oss-date`, `x-oss-expires`,
    /// `x-oss-signature-version`, `x-oss-credential` and `x-oss-additional-headers`.
    static func v4URLParameters(
        _ request: OSSRequest,
        date: AmzDate,
        expires: Int,
        accessKeyId: String,
        token: String?,
        scopeSuffix: [UInt8],
        additional: [String]
    ) -> [(key: String, value: String)] {
        var parameters = request.parameters
        if let token { parameters.append(("x-oss-security-token", token)) }
        parameters.append(("x-oss-date", date.string))
        parameters.append(("x-oss-expires", String(expires)))
        parameters.append(("x-oss-signature-version", SigningScheme.aliyunV4.algorithm.description))
        parameters.append(
            ("x-oss-credential", accessKeyId + "/" + date.dateString + String(decoding: scopeSuffix, as: UTF8.self))
        )
        if !additional.isEmpty { parameters.append(("x-oss-additional-headers", additional.joined(separator: ";"))) }
        return parameters
    }

    /// URL mode lists only the additional headers the request has (their names looked up only when some are asked for).
    static func v4URLAdditionalHeaders(_ request: OSSRequest) -> [String] {
        request.additionalHeaders.isEmpty
            ? []
            : v4AdditionalHeaders(
                requested: request.additionalHeaders,
                present: Set(request.headers.map { Array($0.name.asciiLowercased.utf8) })
            )
    }

    /// V4 URL mode's canonical request (the request's headers signed as they are).
    static func v4URLCanonicalRequest<R>(
        _ request: OSSRequest,
        parameters: [(key: String, value: String)],
        additional: [String],
        holdsToken: Bool,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        let payload = request.headers.first(named: "x-oss-content-sha256") ?? "UNSIGNED-PAYLOAD"
        return OSSV4CanonicalRequest.withCanonicalRequest(
            method: request.method,
            bucket: request.bucket,
            key: request.key,
            parameters: parameters,
            headers: request.headers,
            additional: additional,
            signer: .none,
            ownsNames: false,
            payload: payload,
            queryHoldsSecret: holdsToken,
            body
        )
    }

    /// The V1 `Expires` limit and V4's: signed URL lifetimes accepted.
    static func urlLifetimeLimit(_ version: Version) -> Int { version == .v4 ? 604_800 : 315_360_000 }

    // MARK: - Signed URLs

    /// Signs a URL valid for `expires` seconds from `time`.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an expiry outside 1...604800 (V4's limit;
    ///   V1 accepts up to 10 years); ``AuthCoreError/Code/expired`` when the URL would outlive the
    ///   credentials.
    /// - Parameters:
    ///   - request: the request.
    ///   - time: the signing time.
    ///   - expires: the lifetime in seconds.
    ///   - keepingCanonicalRequest: V4: keep the canonical request in the result.
    public func presign(
        _ request: OSSRequest,
        at time: Timestamp,
        expires: Int,
        keepingCanonicalRequest: Bool = false
    )
        throws(AuthCoreError) -> OSSSignature
    {
        let limit = Self.urlLifetimeLimit(version)
        guard (1...limit).contains(expires) else {
            throw AuthCoreError(.invalidParameter, "signed URL expiry \(expires) s is outside 1...\(limit)")
        }
        if let expiration = credentials.expiration {
            let remaining = time.seconds(until: expiration)
            guard Int64(expires) <= remaining else {
                throw AuthCoreError(
                    .expired,
                    "a \(expires) s signed URL would outlive the credentials, which expire at \(expiration.iso8601)"
                )
            }
        }
        switch version {
        case .v1: return try presignV1(request, expiresAt: time.adding(seconds: Int64(expires)))
        case .v4:
            return try presignV4(request, at: time, expires: expires, keepingCanonicalRequest: keepingCanonicalRequest)
        }
    }

    /// A V1 signed URL expiring at the absolute time `expiresAt` (the `Expires` parameter).
    public func presignV1(_ request: OSSRequest, expiresAt: Timestamp) throws(AuthCoreError) -> OSSSignature {
        try Self.validate(request)
        let expiresText = String(expiresAt.secondsSince1970)
        var extra: [(key: String, value: String)] = []
        if let token = credentials.sessionToken { extra.append(("security-token", token)) }
        let stringToSign = Self.v1StringToSign(
            request,
            contentHeaders: request.headers,
            date: expiresText,
            securityToken: nil,
            extraResource: extra
        )
        let signature = v1Signature(stringToSign)
        let parameters = Self.v1URLParameters(
            request.parameters,
            extra: extra,
            accessKeyId: credentials.accessKeyId,
            expires: expiresText
        )
        let uri = Self.signedURI(
            path: request.path,
            parameters: parameters,
            signatureName: "Signature",
            signature: signature
        )
        return OSSSignature(
            headers: [],
            authorization: nil,
            signature: signature,
            canonicalRequest: nil,
            intermediate: .text(stringToSign),
            signedURI: uri
        )
    }

    func presignV4(
        _ request: OSSRequest,
        at time: Timestamp,
        expires: Int,
        keepingCanonicalRequest: Bool = false
    ) throws(AuthCoreError)
        -> OSSSignature
    {
        try Self.validate(request)
        guard let keys else { preconditionFailure("a V4 signer has its keys") }  // invariant: set by init for .v4
        let additional = Self.v4URLAdditionalHeaders(request)
        let date = AmzDate(time)
        let parameters = Self.v4URLParameters(
            request,
            date: date,
            expires: expires,
            accessKeyId: credentials.accessKeyId,
            token: credentials.sessionToken,
            scopeSuffix: keys.scopeSuffix,
            additional: additional
        )
        let (hash, kept) = Self.v4URLCanonicalRequest(
            request,
            parameters: parameters,
            additional: additional,
            holdsToken: credentials.sessionToken != nil
        ) { canonical in
            (
                keys.hash(canonicalRequest: canonical),
                keepingCanonicalRequest ? String(decoding: canonical, as: UTF8.self) : nil
            )
        }
        let signature = keys.signature(date: date, hash: hash).hexLowercased
        let uri = Self.signedURI(
            path: request.path,
            parameters: parameters,
            signatureName: "x-oss-signature",
            signature: signature
        )
        return OSSSignature(
            headers: [],
            authorization: nil,
            signature: signature,
            canonicalRequest: kept,
            intermediate: .scoped(date: date, scopeSuffix: keys.scopeSuffix, hash: hash),
            signedURI: uri
        )
    }

    // MARK: - V1

    /// `METHOD \n Content-MD5 \n Content-Type \n DATE \n CanonicalizedOSSHeaders CanonicalizedResource`,
    /// the headers by ``OSSV1HeaderPolicy`` (with the signer's `securityToken` in place of the
    /// request's own, in header mode).
    static func v1StringToSign(
        _ request: OSSRequest,
        contentHeaders headers: [HTTPHeader],
        date: String,
        securityToken: String?,
        extraResource: [(key: String, value: String)]
    ) -> String {
        var out = request.method + "\n"
        out += (headers.first(named: "content-md5") ?? "") + "\n"
        out += (headers.first(named: "content-type") ?? "") + "\n"
        out += date + "\n"
        let fields = HTTPHeader.utf8Counts(headers)
        out += SignerHeaderValues.withTokenBytes(securityToken) { tokenBytes in
            let signer = SignerHeaderValues(securityToken: tokenBytes, replacesToken: securityToken != nil)
            return CanonicalHeaders.withTable(
                headers,
                fieldBytes: fields.both,
                policy: OSSV1HeaderPolicy(replacesToken: securityToken != nil),
                signer: signer
            ) { table, _ in  // fields were validated by the signer
                String(
                    unsafeUninitializedCapacity: CanonicalHeaders.lineBytes(
                        fieldBytes: fields.both,
                        fieldCount: headers.count,
                        signer: signer
                    )
                ) {
                    var cursor = OutputCursor(buffer: $0)
                    table.writeLines(into: &cursor)
                    return cursor.position
                }
            }
        }
        var resource = "/"
        if let bucket = request.bucket, !bucket.isEmpty { resource = "/\(bucket)/\(request.key)" }
        let subresources = (request.parameters + extraResource)
            .filter { Self.v1SubResourceBytes.contains(Array($0.key.utf8)) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        if !subresources.isEmpty {
            resource +=
                "?" + subresources.map { $0.value.isEmpty ? $0.key : "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
        return out + resource
    }

    /// V1 header mode's headers: `Date`, the token if any, `Authorization`.
    static func v1Headers(date: String, token: String?, authorization: String) -> [HTTPHeader] {
        var added = [HTTPHeader("Date", date)]
        if let token { added.append(HTTPHeader("x-oss-security-token", token)) }
        added.append(HTTPHeader("Authorization", authorization))
        return added
    }

    /// V1 URL mode's parameters: the request's, `extra` (the token), `OSSAccessKeyId`, `Expires`.
    static func v1URLParameters(
        _ parameters: [(key: String, value: String)],
        extra: [(key: String, value: String)],
        accessKeyId: String,
        expires: String
    )
        -> [(key: String, value: String)]
    {
        parameters + extra + [("OSSAccessKeyId", accessKeyId), ("Expires", expires)]
    }

    func v1Signature(_ stringToSign: String) -> String { Self.v1Signature(stringToSign, credentials: credentials) }

    /// `base64(HMAC-SHA1(secret, string to sign))` (OSS V1): the signer's, and the self-signed
    /// mode's authority's.
    static func v1Signature(_ stringToSign: String, credentials: Credentials) -> String {
        credentials.secretAccessKey.withUnsafeBytes { key in
            Array(stringToSign.utf8).withUnsafeBytes { HashAlgorithm.sha1.authenticationCode(for: $0, using: key) }
        }.publishedBase64  // the signature is published in the request
    }

    // MARK: - V4

    /// Lower-cased additional headers, without the ones signed anyway, sorted; in URL mode only those present.
    static func v4AdditionalHeaders(requested: [String], present: Set<[UInt8]>?) -> [String] {
        if requested.isEmpty { return [] }
        var names = Set<[UInt8]>()
        for name in requested {
            var lower = Array(name.asciiLowercased.utf8)
            let signedAnyway = lower.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.map { OSSV4HeaderPolicy.isAlwaysSigned($0, count: bytes.count) } ?? false
            }
            if signedAnyway { continue }
            if let present, !present.contains(lower) { continue }
            names.insert(lower)
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// ``v1SubResources`` as bytes, for membership by bytes.
    static let v1SubResourceBytes = Set(v1SubResources.map { Array($0.utf8) })

    // MARK: - Shared

    /// `path?query&name=signature`: the parameters as ``CanonicalQuery/fromPairs(_:emptyValue:)``
    /// writes them (encoded, sorted, `key` for an empty value), then the signature.
    static func signedURI(
        path: String,
        parameters: [(key: String, value: String)],
        signatureName: String,
        signature: String
    ) -> String {
        var uri = Array((path.isEmpty ? "/" : path).utf8)
        uri.append(UInt8(ascii: "?"))
        let query = CanonicalQuery.fromPairs(parameters, emptyValue: .keyOnly)
        uri.append(contentsOf: query)
        if !query.isEmpty { uri.append(UInt8(ascii: "&")) }
        uri.append(contentsOf: signatureName.utf8)
        uri.append(UInt8(ascii: "="))
        PercentEncoding.encode(signature.utf8, .unreserved, into: &uri)
        return String(decoding: uri, as: UTF8.self)
    }

    static func validate(_ request: OSSRequest) throws(AuthCoreError) {
        guard !request.method.isEmpty, request.method.utf8AllSatisfy({ ASCIISet.token.contains($0) }) else {
            throw AuthCoreError(.malformedRequest, "method '\(request.method)' is not an HTTP token")
        }
        for header in request.headers { try header.validate() }
        if let bucket = request.bucket {
            guard bucket.utf8AllSatisfy({ $0 != UInt8(ascii: "/") && $0 >= 0x20 }) else {
                throw AuthCoreError(.malformedRequest, "bucket name contains '/' or control characters")
            }
        }
        guard request.key.utf8AllSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw AuthCoreError(.malformedRequest, "object key contains control characters")
        }
    }
}

extension OSSSigner {
    /// The access key id, version and region: never the secret, the token or the key cache (whose
    /// keyed MAC states are not reflected).
    public var description: String {
        "OSSSigner(\(credentials.accessKeyId), \(version == .v1 ? "V1" : "V4")\(region.map { ", \($0)" } ?? ""))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["credentials": credentials, "region": region as Any], displayStyle: .struct)
    }
}
