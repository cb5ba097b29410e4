/// OSS signing without the secret: the app's half of **self-signed mode**, where the app server
/// holds the only key. ``prepare(_:at:)`` and ``preparePresigned(_:at:expires:)`` build what the
/// server is asked to sign (``OSSPendingSignature``: the string to sign, and for V4 the canonical
/// request it hashes, so that the server can check what it signs); ``complete(_:with:)`` turns the
/// server's answer into the same ``OSSSignature`` a local ``OSSSigner`` gives — byte for byte.
///
/// Neither the V1 nor the V4 header string to sign contains the access key id, so the server names
/// it in its answer. A V4 URL does (its `x-oss-credential` parameter is signed): presigning V4 needs
/// the key id up front, and the answer must name the same one.
public struct OSSDetachedSigner: Sendable {
    /// The signature version.
    public let version: OSSSigner.Version
    /// The region (V4 scope).
    public let region: String?
    /// The server's access key id, when known in advance (required for V4 URLs).
    public let accessKeyId: String?
    let scopeSuffix: [UInt8]

    /// A signer for `version` (V4 needs `region`).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when V4 has no region (or a malformed one),
    ///   or for a malformed `accessKeyId`.
    public init(version: OSSSigner.Version, region: String? = nil, accessKeyId: String? = nil) throws(AuthCoreError) {
        try OSSSigner.checkRegion(version: version, region: region)
        if let accessKeyId { try Self.checkAccessKeyId(accessKeyId) }
        self.version = version
        self.region = region
        self.accessKeyId = accessKeyId
        scopeSuffix = version == .v4 ? SigningScheme.aliyunV4.scopeSuffix(region: region ?? "", service: "oss") : []
    }

    /// What to sign for the `Authorization` header of `request` at `time`.
    public func prepare(_ request: OSSRequest, at time: Timestamp) throws(AuthCoreError) -> OSSPendingSignature {
        try OSSSigner.validate(request)
        switch version {
        case .v1:
            let date = time.rfc1123
            return v1Pending(request, date: date, finish: .v1Header(date: date))
        case .v4:
            let date = AmzDate(time)
            let additional = OSSSigner.v4AdditionalHeaders(requested: request.additionalHeaders, present: nil)
            let canonical = OSSSigner.v4HeaderCanonicalRequest(request, date: date, token: nil, additional: additional)
            { Array($0) }
            return v4Pending(canonical: canonical, date: date, finish: .v4Header(date: date, additional: additional))
        }
    }

    /// What to sign for a URL valid `expires` seconds from `time` (V1: `Expires`; V4: needs ``accessKeyId``).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an expiry outside 1...604800 (V4; V1
    ///   allows 10 years), or a V4 signer without ``accessKeyId``.
    public func preparePresigned(
        _ request: OSSRequest,
        at time: Timestamp,
        expires: Int
    ) throws(AuthCoreError) -> OSSPendingSignature {
        let limit = OSSSigner.urlLifetimeLimit(version)
        guard (1...limit).contains(expires) else {
            throw AuthCoreError(.invalidParameter, "signed URL expiry \(expires) s is outside 1...\(limit)")
        }
        try OSSSigner.validate(request)
        switch version {
        case .v1:
            let expiresText = String(time.adding(seconds: Int64(expires)).secondsSince1970)
            return v1Pending(
                request,
                date: expiresText,
                finish: .v1URL(path: request.path, parameters: request.parameters, expires: expiresText)
            )
        case .v4:
            guard let accessKeyId else {
                throw AuthCoreError(
                    .invalidParameter,
                    "a V4 signed URL names the access key id in what is signed: give the signer's accessKeyId"
                )
            }
            let date = AmzDate(time)
            let additional = OSSSigner.v4URLAdditionalHeaders(request)
            let parameters = OSSSigner.v4URLParameters(
                request,
                date: date,
                expires: expires,
                accessKeyId: accessKeyId,
                token: nil,
                scopeSuffix: scopeSuffix,
                additional: additional
            )
            let canonical = OSSSigner.v4URLCanonicalRequest(
                request,
                parameters: parameters,
                additional: additional,
                holdsToken: false
            ) { Array($0) }
            return v4Pending(
                canonical: canonical,
                date: date,
                finish: .v4URL(path: request.path, parameters: parameters)
            )
        }
    }

    /// A V1 pending signature: the string to sign of `request` with `date` in its date line (the
    /// `Date` header's value, or a URL's `Expires`), no token.
    private func v1Pending(
        _ request: OSSRequest,
        date: String,
        finish: OSSPendingSignature.Finish
    ) -> OSSPendingSignature {
        let text = OSSSigner.v1StringToSign(
            request,
            contentHeaders: request.headers,
            date: date,
            securityToken: nil,
            extraResource: []
        )
        return OSSPendingSignature(
            version: .v1,
            stringToSign: text,
            canonicalRequest: nil,
            dateStamp: nil,
            region: nil,
            finish: finish
        )
    }

    private func v4Pending(canonical: [UInt8], date: AmzDate, finish: OSSPendingSignature.Finish) -> OSSPendingSignature
    {
        let hash = canonical.withUnsafeBytes { SHA256.hash(bufferPointer: $0) }
        let text = StringToSign.with(
            algorithm: SigningScheme.aliyunV4.algorithm,
            date: date,
            scopeSuffix: scopeSuffix,
            hash: hash
        ) {
            String(decoding: $0, as: UTF8.self)
        }
        return OSSPendingSignature(
            version: .v4,
            stringToSign: text,
            canonicalRequest: String(decoding: canonical, as: UTF8.self),
            dateStamp: date.dateString,
            region: region,
            finish: finish
        )
    }

    /// The signature for `pending`, from the server's `signature` (V1: Base64 of 20 bytes; V4: 64 hex digits).
    ///
    /// - Throws: ``AuthCoreError/Code/malformedResponse`` for a signature of the wrong form, a
    ///   malformed access key id, or one other than ``accessKeyId`` when that was given.
    public func complete(
        _ pending: OSSPendingSignature,
        with signature: OSSProvidedSignature
    ) throws(AuthCoreError) -> OSSSignature {
        do { try Self.checkAccessKeyId(signature.accessKeyId) } catch {
            throw AuthCoreError(.malformedResponse, "signer: \(error.reason)")
        }
        if let accessKeyId, signature.accessKeyId != accessKeyId {
            throw AuthCoreError(
                .malformedResponse,
                "signer: signed with access key id \(signature.accessKeyId), not \(accessKeyId)"
            )
        }
        let value = signature.signature
        switch pending.finish {
        case .v1Header, .v1URL:
            guard value.utf8.count == 28, (try? Base64.decode(value))?.count == 20 else {
                throw AuthCoreError(.malformedResponse, "signer: a V1 signature is the Base64 of 20 bytes")
            }
        case .v4Header, .v4URL:
            guard value.utf8.count == 64,
                value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
            else {
                throw AuthCoreError(.malformedResponse, "signer: a V4 signature is 64 lower-case hex digits")
            }
        }
        let intermediate = OSSSignature.Intermediate.text(pending.stringToSign)
        switch pending.finish {
        case .v1Header(let date):
            let authorization = "OSS \(signature.accessKeyId):\(value)"
            return OSSSignature(
                headers: OSSSigner.v1Headers(date: date, token: nil, authorization: authorization),
                authorization: authorization,
                signature: value,
                canonicalRequest: nil,
                intermediate: intermediate,
                signedURI: nil
            )
        case .v1URL(let path, let parameters, let expires):
            let all = OSSSigner.v1URLParameters(
                parameters,
                extra: [],
                accessKeyId: signature.accessKeyId,
                expires: expires
            )
            return OSSSignature(
                headers: [],
                authorization: nil,
                signature: value,
                canonicalRequest: nil,
                intermediate: intermediate,
                signedURI: OSSSigner.signedURI(
                    path: path,
                    parameters: all,
                    signatureName: "Signature",
                    signature: value
                )
            )
        case .v4Header(let date, let additional):
            let authorization = OSSSigner.v4Authorization(
                accessKeyId: signature.accessKeyId,
                date: date,
                scopeSuffix: scopeSuffix,
                additional: additional,
                signatureHex: { $0.write(value) }
            )
            return OSSSignature(
                headers: OSSSigner.v4Headers(dateText: date.string, token: nil, authorization: authorization),
                authorization: authorization,
                signature: value,
                canonicalRequest: pending.canonicalRequest,
                intermediate: intermediate,
                signedURI: nil
            )
        case .v4URL(let path, let parameters):
            return OSSSignature(
                headers: [],
                authorization: nil,
                signature: value,
                canonicalRequest: pending.canonicalRequest,
                intermediate: intermediate,
                signedURI: OSSSigner.signedURI(
                    path: path,
                    parameters: parameters,
                    signatureName: "x-oss-signature",
                    signature: value
                )
            )
        }
    }

    /// 1–128 characters from `A-Za-z0-9._-` (what goes into `Authorization` and `x-oss-credential`).
    static func checkAccessKeyId(_ id: String) throws(AuthCoreError) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".utf8)
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy(allowed.contains) else {
            throw AuthCoreError(.invalidParameter, "access key id must be 1-128 characters from A-Z a-z 0-9 . _ -")
        }
    }
}

/// What a self-signed request asks the app server to sign.
public struct OSSPendingSignature: Sendable, CustomStringConvertible {
    /// The signature version.
    public let version: OSSSigner.Version
    /// The string to sign (V1's text; V4's `OSS4-HMAC-SHA256 \n date \n scope \n hash`).
    public let stringToSign: String
    /// V4: the canonical request whose SHA-256 the string to sign ends with (for the server's policy check).
    public let canonicalRequest: String?
    /// V4: the scope's date, `YYYYMMDD`.
    public let dateStamp: String?
    /// V4: the scope's region.
    public let region: String?

    enum Finish: Sendable {
        case v1Header(date: String)
        case v1URL(path: String, parameters: [(key: String, value: String)], expires: String)
        case v4Header(date: AmzDate, additional: [String])
        case v4URL(path: String, parameters: [(key: String, value: String)])
    }
    let finish: Finish

    /// The version only (the strings name the object and its parameters).
    public var description: String { "OSSPendingSignature(\(version))" }
}

/// A signature made by the holder of the key: its access key id and the signature (V1: Base64;
/// V4: hex).
public struct OSSProvidedSignature: Sendable, Equatable {
    /// The key id the signature was made with.
    public let accessKeyId: String
    /// The signature.
    public let signature: String

    /// An answer.
    public init(accessKeyId: String, signature: String) {
        self.accessKeyId = accessKeyId
        self.signature = signature
    }
}
