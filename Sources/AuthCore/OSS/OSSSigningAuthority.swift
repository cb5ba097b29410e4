/// The app server's half of OSS **self-signed mode**: it holds the key, and signs an authenticated
/// caller's string to sign only after reading what it would authorise and checking that against an
/// ``OSSSigningPolicy`` — never a blind signing oracle.
///
/// - V1: the string to sign itself names the method, the headers signed and the resource
///   (`/bucket/key?sub-resources`), and its date line is the request's `Date` (header mode, which OSS
///   accepts within 15 minutes of its clock) or the URL's `Expires` epoch.
/// - V4: the string to sign ends with the SHA-256 of the canonical request, so the caller sends the
///   canonical request too; it must hash to that value, and it is what the policy reads (method,
///   `/bucket/key`, query with `x-oss-expires` for URLs, headers). The scope's date and region must be
///   the string to sign's and the policy's.
///
/// Deterministic: the caller passes the time.
public struct OSSSigningAuthority: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key that signs (long-term: self-signed requests carry no security token).
    public let credentials: Credentials
    /// What may be signed.
    public let policy: OSSSigningPolicy

    /// An authority signing with `credentials` under `policy`.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for credentials with a session token (the
    ///   caller's string to sign would have to carry it).
    public init(credentials: Credentials, policy: OSSSigningPolicy) throws(AuthCoreError) {
        guard credentials.sessionToken == nil else {
            throw AuthCoreError(.invalidParameter, "self-signed mode signs with a long-term key (no security token)")
        }
        self.credentials = credentials
        self.policy = policy
    }

    /// Checks `request` against the policy at `now` and signs it.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for a string to sign (or V4 canonical
    ///   request) that cannot be read; ``AuthCoreError/Code/notPermitted`` naming the rule it breaks.
    public func sign(_ request: OSSSignatureRequest, at now: Timestamp) throws(AuthCoreError) -> OSSProvidedSignature {
        guard request.stringToSign.utf8.count <= 16_384, (request.canonicalRequest?.utf8.count ?? 0) <= 65_536 else {
            throw AuthCoreError(.inputTooLarge, "string to sign or canonical request too long")
        }
        let text = request.stringToSign
        switch request.version {
        case .v1:
            try checkV1(text, now: now)
            let signature = OSSSigner.v1Signature(text, credentials: credentials)
            return OSSProvidedSignature(accessKeyId: credentials.accessKeyId, signature: signature)
        case .v4:
            let (date, region) = try checkV4(request, now: now)
            let key = SigningScheme.aliyunV4.deriveSigningKey(
                secret: credentials.secretAccessKey,
                date: date,
                region: region,
                service: "oss"
            )
            let signature = key.withUnsafeBytes { key in
                Array(text.utf8).withUnsafeBytes { HashAlgorithm.sha256.authenticationCode(for: $0, using: key) }
            }.publishedHexLowercased
            return OSSProvidedSignature(accessKeyId: credentials.accessKeyId, signature: signature)
        }
    }

    // MARK: - V1

    /// `METHOD \n MD5 \n TYPE \n DATE \n (x-oss-name:value \n)* /bucket/key[?sub-resources]`.
    func checkV1(_ text: String, now: Timestamp) throws(AuthCoreError) {
        let lines = try Self.lines(text)
        guard lines.count >= 5, let resource = lines.last else {
            throw Self.malformed("a V1 string to sign has at least five lines")
        }
        try policy.check(method: lines[0])
        let date = lines[3]
        let urlMode = !date.isEmpty && date.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        if urlMode {
            guard let expires = Int64(date) else { throw Self.malformed("Expires is not a number") }
            try policy.check(urlExpiresIn: now.seconds(until: Timestamp(secondsSince1970: expires)))
        } else {
            try policy.check(signedAt: try Self.rfc1123(date), now: now)
        }
        var names = Set<[UInt8]>()
        for line in lines[4..<(lines.count - 1)] {
            let (name, value) = try Self.headerLine(line)
            // OSS merges repeated fields into one line: a repeated name is not a real request's.
            guard names.insert(Array(name.utf8)).inserted else {
                throw Self.malformed("header \(Self.shown(name)) appears twice")
            }
            try policy.check(ossHeader: name)
            // OSS may take the request time from x-oss-date instead of Date: it is held to the same skew.
            if name.utf8.elementsEqual("x-oss-date".utf8) {
                try policy.check(signedAt: try Self.rfc1123(value), now: now)
            }
        }
        // The resource is read on bytes, as OSS reads it: a `/`, `?`, `&` or `=` joined to its
        // neighbour in one grapheme cluster (U+0600 before it, a combining mark after it) still
        // separates. (Read on Characters, `x\u{600}?acl` hid the `?acl` sub-resource inside the key.)
        // Cutting at ASCII bytes never splits a UTF-8 sequence, so each piece decodes losslessly.
        let bytes = Array(resource.utf8)
        guard bytes.first == UInt8(ascii: "/") else { throw Self.malformed("the resource does not start with '/'") }
        // The first `?` ends the key as far as the policy is concerned: the key checked is then a
        // prefix of the real one, so a prefix rule cannot be escaped through a `?` in a key.
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let path = bytes[1..<(question ?? bytes.count)]
        guard let slash = path.firstIndex(of: UInt8(ascii: "/")) else {
            throw AuthCoreError(.notPermitted, "service-level requests (no bucket) are not signed")
        }
        try policy.check(
            bucket: String(decoding: path[..<slash], as: UTF8.self),
            key: String(decoding: path[(slash + 1)...], as: UTF8.self)
        )
        if let question {
            var seen = Set<[UInt8]>()
            for item in bytes[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                let nameBytes = Array(item.prefix { $0 != UInt8(ascii: "=") })
                let name = String(decoding: nameBytes, as: UTF8.self)
                guard seen.insert(nameBytes).inserted else {
                    throw Self.malformed("sub-resource \(Self.shown(name)) appears twice")
                }
                try policy.check(subresource: name)
            }
        }
    }

    // MARK: - V4

    /// The query parameters of a V4 URL (each exactly once; refused in header mode).
    static let urlParameters = ["x-oss-date", "x-oss-expires", "x-oss-signature-version", "x-oss-credential"]

    /// Whether `name` is one of ``urlParameters`` or `x-oss-additional-headers`, by its bytes.
    static func isURLParameter(_ name: [UInt8], orAdditionalHeaders: Bool) -> Bool {
        urlParameters.contains { $0.utf8.elementsEqual(name) }
            || (orAdditionalHeaders && name.elementsEqual("x-oss-additional-headers".utf8))
    }

    /// The string to sign's scope against the policy, the canonical request against its hash, then
    /// the canonical request (`METHOD \n /bucket/key \n query \n headers \n \n additional \n payload`)
    /// against the policy. Returns the scope's date and region.
    func checkV4(_ request: OSSSignatureRequest, now: Timestamp) throws(AuthCoreError) -> (date: String, region: String)
    {
        let lines = try Self.lines(request.stringToSign)
        guard lines.count == 4, lines[0] == SigningScheme.aliyunV4.algorithm.description else {
            throw Self.malformed("a V4 string to sign is OSS4-HMAC-SHA256, the date, the scope and a hash")
        }
        let amzDate = lines[1]
        let time: Timestamp
        do { time = try Timestamp(amzDate: amzDate) } catch { throw Self.malformed("the date is not YYYYMMDDTHHMMSSZ") }
        let scope = lines[2].utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard scope.count == 4, scope[2] == "oss", scope[3] == SigningScheme.aliyunV4.terminator.description,
            scope[0].utf8.elementsEqual(amzDate.utf8.prefix(8))
        else { throw Self.malformed("the scope is not date/region/oss/aliyun_v4_request for the date signed") }
        if let date = request.date, date != scope[0] { throw Self.malformed("the date does not match the scope's") }
        if let region = request.region, region != scope[1] {
            throw Self.malformed("the region does not match the scope's")
        }
        try policy.check(region: scope[1])
        guard let canonical = request.canonicalRequest else {
            throw AuthCoreError(
                .notPermitted,
                "a V4 string to sign is signed only with the canonical request it hashes (the policy reads it)"
            )
        }
        guard SHA256.hash(bytes: Array(canonical.utf8)).hexLowercased == lines[3] else {
            throw Self.malformed("the canonical request does not hash to the string to sign's value")
        }
        let parts = try Self.lines(canonical)
        guard parts.count >= 6, parts[parts.count - 3].isEmpty else {
            throw Self.malformed("the canonical request has the wrong shape")
        }
        try policy.check(method: parts[0])
        let resource = parts[1]
        guard resource.utf8.first == UInt8(ascii: "/") else {
            throw Self.malformed("the canonical URI does not start with '/'")
        }
        let decoded = PercentEncoding.decode(Array(resource.utf8).dropFirst())
        guard let slash = decoded.firstIndex(of: UInt8(ascii: "/")) else {
            throw AuthCoreError(.notPermitted, "service-level requests (no bucket) are not signed")
        }
        try policy.check(
            bucket: String(decoding: decoded[..<slash], as: UTF8.self),
            key: String(decoding: decoded[(slash + 1)...], as: UTF8.self)
        )
        // Names and values as bytes, as OSS reads them (String equality would merge canonically
        // equivalent spellings OSS tells apart).
        var query: [[UInt8]: [UInt8]] = [:]
        if !parts[2].isEmpty {
            for (name, value) in CanonicalQuery.decodedPairs(parts[2], omittingEmpty: false) {
                let key = Array(name.utf8)
                guard query.updateValue(Array(value.utf8), forKey: key) == nil else {
                    throw Self.malformed("parameter \(Self.shown(name)) appears twice")
                }
                if !Self.isURLParameter(key, orAdditionalHeaders: true) { try policy.check(subresource: name) }
            }
        }
        var headers: [[UInt8]: [UInt8]] = [:]
        for line in parts[3..<(parts.count - 3)] {
            let (name, value) = try Self.headerLine(line)
            guard headers.updateValue(Array(value.utf8), forKey: Array(name.utf8)) == nil else {
                throw Self.malformed("header \(Self.shown(name)) appears twice")
            }
            if name.utf8.starts(with: "x-oss-".utf8) { try policy.check(ossHeader: name) }
        }
        func value(_ table: [[UInt8]: [UInt8]], _ name: String) -> [UInt8]? { table[Array(name.utf8)] }
        if let expiresText = value(query, "x-oss-expires") {
            // URL mode: every URL parameter once, the version and this authority's credential.
            guard Self.urlParameters.allSatisfy({ value(query, $0) != nil }) else {
                throw Self.malformed(
                    "a V4 URL needs x-oss-date, x-oss-expires, x-oss-signature-version and x-oss-credential"
                )
            }
            guard value(query, "x-oss-signature-version") == Array(SigningScheme.aliyunV4.algorithm.description.utf8)
            else { throw Self.malformed("x-oss-signature-version is not OSS4-HMAC-SHA256") }
            guard value(query, "x-oss-credential") == Array((credentials.accessKeyId + "/" + lines[2]).utf8) else {
                throw Self.malformed("x-oss-credential is not this key's and the scope's")
            }
            guard value(query, "x-oss-date") == Array(amzDate.utf8) else {
                throw Self.malformed("a URL's x-oss-date is not the date signed")
            }
            guard (1...10).contains(expiresText.count), expiresText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw Self.malformed("x-oss-expires is not a number")
            }
            let expires = expiresText.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
            try policy.check(signedAt: time, now: now)
            try policy.check(urlExpiresIn: now.seconds(until: time.adding(seconds: expires)))
        } else {
            guard query.keys.allSatisfy({ !Self.isURLParameter($0, orAdditionalHeaders: true) }) else {
                throw Self.malformed("a header signature carries a URL parameter")
            }
            guard value(headers, "x-oss-date") == Array(amzDate.utf8) else {
                throw Self.malformed("the x-oss-date header is not the date signed")
            }
            try policy.check(signedAt: time, now: now)
        }
        return (scope[0], scope[1])
    }

    // MARK: - Reading

    /// The lines of `text`; any control byte but newline and tab (a CR could hide a line from a
    /// reader that splits differently) is refused.
    static func lines(_ text: String) throws(AuthCoreError) -> [String] {
        guard !text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F }) else {
            throw malformed("a control character other than newline and tab")
        }
        return text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// `name:value`, the name lower-case ASCII.
    static func headerLine(_ line: String) throws(AuthCoreError) -> (name: String, value: String) {
        // On bytes (a `:` followed by a combining mark is still the separator); an ASCII byte's index
        // is a scalar boundary, so it slices the String.
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw malformed("a header line has no ':'")
        }
        let name = String(line[..<colon])
        guard !name.isEmpty,
            name.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            })
        else { throw malformed("header name \(shown(name)) is not a lower-case token") }
        return (name, String(line[line.utf8.index(after: colon)...]))  // the byte after ':', not the next Character
    }

    static func rfc1123(_ text: String) throws(AuthCoreError) -> Timestamp {
        do { return try Timestamp(rfc1123: text) } catch { throw malformed("\(shown(text)) is not an RFC 1123 date") }
    }

    /// Caller text in an error: at most 64 characters, printable ASCII (others as `?`).
    static func shown(_ text: String) -> String {
        let bytes = text.utf8.prefix(64).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
        return "'" + String(decoding: bytes, as: UTF8.self) + (text.utf8.count > 64 ? "…'" : "'")
    }

    static func malformed(_ why: String) -> AuthCoreError {
        AuthCoreError(.malformedRequest, "signing request: \(why)")
    }

    /// The access key id and the policy: never the secret.
    public var description: String { "OSSSigningAuthority(\(credentials.accessKeyId), \(policy))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["credentials": credentials, "policy": policy], displayStyle: .struct)
    }
}

/// What a caller asks an ``OSSSigningAuthority`` to sign (the JSON a signer URL receives:
/// `{"version":"v1","stringToSign":…}` or
/// `{"version":"v4","stringToSign":…,"date":"YYYYMMDD","region":…,"canonicalRequest":…}`).
public struct OSSSignatureRequest: Sendable, Equatable, Codable {
    /// The signature version.
    public var version: OSSSigner.Version
    /// The string to sign.
    public var stringToSign: String
    /// V4: the canonical request the string to sign hashes (required by the authority's policy check).
    public var canonicalRequest: String?
    /// V4: the scope's date, `YYYYMMDD`.
    public var date: String?
    /// V4: the scope's region.
    public var region: String?

    /// A request for `pending`.
    public init(_ pending: OSSPendingSignature) {
        self.init(
            version: pending.version,
            stringToSign: pending.stringToSign,
            canonicalRequest: pending.canonicalRequest,
            date: pending.dateStamp,
            region: pending.region
        )
    }

    /// A request.
    public init(
        version: OSSSigner.Version,
        stringToSign: String,
        canonicalRequest: String? = nil,
        date: String? = nil,
        region: String? = nil
    ) {
        self.version = version
        self.stringToSign = stringToSign
        self.canonicalRequest = canonicalRequest
        self.date = date
        self.region = region
    }
}

extension OSSSigner.Version: Codable {}

/// What an ``OSSSigningAuthority`` signs: buckets, key prefixes, methods, sub-resources, the OSS
/// headers a request may carry, the longest URL lifetime and how far a signing time may be from the
/// authority's clock.
public struct OSSSigningPolicy: Sendable, CustomStringConvertible {
    // bytes-lint: configuration sets; a name is matched against them by its bytes (``contains(_:_:)``).
    /// The buckets (exact names).
    public var buckets: Set<String>
    /// The key prefixes (a key must start with one; `""` allows every key, including bucket-level requests).
    public var keyPrefixes: [String]
    // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
    /// The methods (`GET`, `PUT`, …).
    public var methods: Set<String>
    // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
    /// The V4 regions (the scope's).
    public var regions: Set<String>
    /// The longest signed-URL lifetime, in seconds from now.
    public var maximumURLLifetime: Int
    /// How far (seconds) a header signature's date may be from now (OSS's own limit is 15 minutes).
    public var maximumClockSkew: Int
    // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
    /// The query sub-resources allowed besides `response-*` (multipart upload's by default; `acl`,
    /// `policy`, `lifecycle` and the rest are refused unless listed).
    public var subresources: Set<String>
    // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
    /// The `x-oss-*` headers a request may carry besides `x-oss-meta-*` (by default the date, the
    /// content hash, storage class and server-side encryption; `x-oss-copy-source`, which reads another
    /// object, and `x-oss-object-acl`, which publishes one, are refused unless listed).
    public var ossHeaders: Set<String>

    /// A policy; the defaults allow GET, HEAD and PUT, URLs of at most 1 hour, 15 minutes of skew.
    public init(
        // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
        buckets: Set<String>,
        keyPrefixes: [String],
        methods: Set<String> = ["GET", "HEAD", "PUT"],
        regions: Set<String> = [],
        maximumURLLifetime: Int = 3600,
        maximumClockSkew: Int = 900,
        // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
        subresources: Set<String> = ["uploads", "uploadId", "partNumber", "versionId"],
        // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
        ossHeaders: Set<String> = [
            "x-oss-date", "x-oss-content-sha256", "x-oss-storage-class", "x-oss-server-side-encryption",
            "x-oss-forbid-overwrite",
        ]
    ) {
        self.buckets = buckets
        self.keyPrefixes = keyPrefixes
        self.methods = methods
        self.regions = regions
        self.maximumURLLifetime = maximumURLLifetime
        self.maximumClockSkew = maximumClockSkew
        self.subresources = subresources
        self.ossHeaders = ossHeaders
    }

    public var description: String {
        "OSSSigningPolicy(buckets: \(buckets.sorted()), keyPrefixes: \(keyPrefixes), methods: \(methods.sorted()), URLs up to \(maximumURLLifetime) s)"
    }

    /// Names are compared as bytes, and only ASCII ones can match (a Unicode-equivalent spelling of
    /// an allowed name is another name to OSS).
    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }

    // bytes-lint: configuration sets; a name is matched against them by its bytes (contains(_:_:)).
    static func contains(_ set: Set<String>, _ name: String) -> Bool {
        isASCII(name) && set.contains { $0.utf8.elementsEqual(name.utf8) }
    }

    func check(method: String) throws(AuthCoreError) {
        guard Self.contains(methods, method) else {
            throw AuthCoreError(.notPermitted, "method \(OSSSigningAuthority.shown(method)) is not allowed")
        }
    }

    func check(bucket: String, key: String) throws(AuthCoreError) {
        guard Self.contains(buckets, bucket) else {
            throw AuthCoreError(.notPermitted, "bucket \(OSSSigningAuthority.shown(bucket)) is not allowed")
        }
        guard keyPrefixes.contains(where: { key.utf8.starts(with: $0.utf8) }) else {
            throw AuthCoreError(.notPermitted, "key \(OSSSigningAuthority.shown(key)) is outside the allowed prefixes")
        }
        // OSS keys are literal, but a proxy that normalises paths would not treat them so. Segments
        // are cut at `/` bytes, as such a proxy cuts them (not at Characters, where `x\u{600}/../\u{301}`
        // is one segment).
        guard
            !key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: {
                $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8)
            })
        else {
            throw AuthCoreError(.notPermitted, "key \(OSSSigningAuthority.shown(key)) has a '.' or '..' segment")
        }
    }

    func check(region: String) throws(AuthCoreError) {
        guard Self.contains(regions, region) else {
            throw AuthCoreError(.notPermitted, "region \(OSSSigningAuthority.shown(region)) is not allowed")
        }
    }

    func check(subresource name: String) throws(AuthCoreError) {
        guard Self.contains(subresources, name) || (Self.isASCII(name) && name.utf8.starts(with: "response-".utf8))
        else {
            throw AuthCoreError(.notPermitted, "sub-resource \(OSSSigningAuthority.shown(name)) is not allowed")
        }
    }

    func check(ossHeader name: String) throws(AuthCoreError) {
        guard Self.contains(ossHeaders, name) || (Self.isASCII(name) && name.utf8.starts(with: "x-oss-meta-".utf8))
        else {
            throw AuthCoreError(.notPermitted, "header \(OSSSigningAuthority.shown(name)) is not allowed")
        }
    }

    func check(urlExpiresIn seconds: Int64) throws(AuthCoreError) {
        guard seconds > 0 else { throw AuthCoreError(.notPermitted, "the URL has expired already") }
        guard seconds <= Int64(maximumURLLifetime) else {
            throw AuthCoreError(
                .notPermitted,
                "a URL valid for \(seconds) s is longer than the \(maximumURLLifetime) s allowed"
            )
        }
    }

    func check(signedAt time: Timestamp, now: Timestamp) throws(AuthCoreError) {
        let offset = now.seconds(until: time)
        guard offset.magnitude <= UInt64(maximumClockSkew.magnitude) else {
            throw AuthCoreError(
                .notPermitted,
                "the signing time is \(offset) s from now, more than the \(maximumClockSkew) s allowed"
            )
        }
    }
}
