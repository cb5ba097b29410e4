/// The OSS V4 canonical request, built on the stack from the signing toolkit (OSS documentation,
/// "Signature Version 4 (recommended)"; conventions pinned by the oss2 vectors):
///
/// ```
/// METHOD \n URI-encode(/bucket/key) \n CanonicalQuery \n CanonicalHeaders \n AdditionalHeaders \n HashedPayload
/// ```
///
/// `CanonicalHeaders` (``OSSV4HeaderPolicy``) are `x-oss-*`, `content-type`, `content-md5` and the
/// additional headers: lower-cased names, values as given (not trimmed), repeated names joined with
/// `,`, sorted by name. The query is ``CanonicalQuery/fromPairs(_:emptyValue:)`` with `key` for an
/// empty value.
enum OSSV4CanonicalRequest {
    /// Builds the canonical request in temporary memory and passes it to `body`.
    ///
    /// - Parameters:
    ///   - signer: the signer's own headers (header mode: date, content hash, token), which replace
    ///     the request's fields of those names and its `Authorization`; `.none` for signed URLs,
    ///     which sign the request's headers as they are.
    ///   - queryHoldsSecret: a parameter is a session token (signed URLs): the query's bytes and
    ///     the stack copy are wiped afterwards.
    static func withCanonicalRequest<R>(
        method: String,
        bucket: String?,
        key: String,
        parameters: [(key: String, value: String)],
        headers: [HTTPHeader],
        additional: [String],
        signer: SignerHeaderValues,
        ownsNames: Bool,
        payload: String,
        queryHoldsSecret: Bool = false,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        var query = CanonicalQuery.fromPairs(parameters, emptyValue: .keyOnly)
        defer { if queryHoldsSecret { query.secureZeroize() } }  // a presigned URL's token parameter
        let fields = HTTPHeader.utf8Counts(headers)
        let additionalBytes = additional.reduce(0) { $0 &+ $1.utf8.count &+ 1 }
        let policy = OSSV4HeaderPolicy(
            additional: additional,
            ownsSignerNames: ownsNames,
            replacesToken: signer.replacesToken
        )
        // The output: method, the resource (tripled at most by encoding, plus its two slashes), the
        // query, the lines, the additional list, the payload marker, and the five newlines.
        let lines = CanonicalHeaders.lineBytes(fieldBytes: fields.both, fieldCount: headers.count, signer: signer)
        let resource = 3 &* ((bucket?.utf8.count ?? 0) &+ key.utf8.count) &+ 2
        let capacity =
            method.utf8.count &+ resource &+ query.count &+ lines &+ additionalBytes &+ payload.utf8.count &+ 8
        return CanonicalHeaders.withTable(
            headers,
            fieldBytes: fields.both,
            policy: policy,
            signer: signer,
            outputCapacity: capacity,
            outputHoldsSecret: queryHoldsSecret
        ) { table, _, out in  // header fields were validated by the signer (HTTPHeader.validate)
            out.write(method)
            out.writeByte(UInt8(ascii: "\n"))
            // The resource: `/bucket/key`, or `/` without a bucket; `/` kept, everything else outside
            // the unreserved set percent-encoded.
            out.writeByte(UInt8(ascii: "/"))
            if let bucket, !bucket.isEmpty {
                PercentEncoding.encode(bucket.utf8, .unreservedAndSlash, into: &out)
                out.writeByte(UInt8(ascii: "/"))
                PercentEncoding.encode(key.utf8, .unreservedAndSlash, into: &out)
            }
            out.writeByte(UInt8(ascii: "\n"))
            out.write(query)
            out.writeByte(UInt8(ascii: "\n"))
            table.writeLines(into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            for (index, name) in additional.enumerated() {
                if index > 0 { out.writeByte(UInt8(ascii: ";")) }
                out.write(name)
            }
            out.writeByte(UInt8(ascii: "\n"))
            out.write(payload)
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out.buffer[..<out.position])))
        }
    }
}

/// OSS V4's header policy: `x-oss-*`, `content-type`, `content-md5` and the additional names
/// (lower case), values verbatim; in header mode the signer's own names and `Authorization` are
/// dropped from the request (the signer writes them).
struct OSSV4HeaderPolicy: CanonicalHeaderPolicy {
    static var valueForm: CanonicalHeaderValueForm { .verbatim }
    static var requiresHost: Bool { false }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        ("x-oss-date", "x-oss-security-token", "x-oss-content-sha256", "")
    }

    let additional: [String]
    let ownsSignerNames: Bool
    let replacesToken: Bool

    /// Whether OSS V4 signs the lower-cased name whatever the request lists: `x-oss-*`,
    /// `content-type` and `content-md5` (so additional headers never name them).
    @inline(__always)
    static func isAlwaysSigned(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        asciiHasPrefix(name, count, "x-oss-") || asciiEqual(name, count, "content-type")
            || asciiEqual(name, count, "content-md5")
    }

    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        if ownsSignerNames {
            if asciiEqual(name, count, "x-oss-date") || asciiEqual(name, count, "x-oss-content-sha256")
                || asciiEqual(name, count, "authorization")
                || (replacesToken && asciiEqual(name, count, "x-oss-security-token"))
            {
                return false
            }
        }
        if Self.isAlwaysSigned(name, count: count) { return true }
        let bytes = UnsafeBufferPointer(start: name, count: count)
        return additional.contains { $0.utf8.elementsEqual(bytes) }
    }
}

/// OSS V1's header policy (`CanonicalizedOSSHeaders`): `x-oss-*` only, values verbatim; in header
/// mode with a session token the request's own token field is replaced by the signer's.
struct OSSV1HeaderPolicy: CanonicalHeaderPolicy {
    static var valueForm: CanonicalHeaderValueForm { .verbatim }
    static var requiresHost: Bool { false }
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        ("date", "x-oss-security-token", "x-oss-content-sha256", "")
    }

    let replacesToken: Bool

    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool {
        asciiHasPrefix(name, count, "x-oss-") && !(replacesToken && asciiEqual(name, count, "x-oss-security-token"))
    }
}
