/// The query of a presigned SigV4 or SigV4a URL (AWS S3 API Reference, "Authenticating Requests:
/// Using Query Parameters"; aws-c-auth's `v4a` query signing): the request's own parameters, less
/// any the signer sets itself, with the signer's parameters, all canonical (``CanonicalQuery``).
///
/// With `omitSessionToken` the token is sent but not signed, so the query sent differs from the
/// query signed. The token's copies in the queries are wiped by ``wipeToken()``; the URL itself
/// carries the token and is the caller's to keep.
struct PresignedQuery {
    /// The parameters a presigned URL sets (AWS names).
    static let algorithmKey = Array("X-Amz-Algorithm".utf8)
    static let credentialKey = Array("X-Amz-Credential".utf8)
    static let dateKey = Array("X-Amz-Date".utf8)
    static let expiresKey = Array("X-Amz-Expires".utf8)
    static let regionSetKey = Array("X-Amz-Region-Set".utf8)
    static let signedHeadersKey = Array("X-Amz-SignedHeaders".utf8)
    static let tokenKey = Array("X-Amz-Security-Token".utf8)

    /// The names a SigV4 presigned URL sets itself, lower case: a request's own are dropped.
    static let sigV4Names: [[UInt8]] = [
        "x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-expires", "x-amz-signedheaders", "x-amz-signature",
        "x-amz-security-token",
    ].map { Array($0.utf8) }
    /// SigV4a's: SigV4's and `x-amz-region-set`.
    static let sigV4ANames: [[UInt8]] = sigV4Names + [Array("x-amz-region-set".utf8)]

    /// The canonical query the signature covers.
    private(set) var signed: [UInt8]
    /// The query sent, when it is not ``signed`` (a token sent but not signed).
    private(set) var sent: [UInt8]?
    private var additions: [(key: [UInt8], value: [UInt8])]
    private let holdsToken: Bool

    /// The query of `rawQuery` with the signer's parameters `own` (encoded) and the session token.
    ///
    /// - Parameter ownNames: the names the signer sets (``sigV4Names`` or ``sigV4ANames``), dropped
    ///   from the request's query whatever their case.
    init(
        rawQuery: String,
        adding own: [(key: [UInt8], value: [UInt8])],
        token: String?,
        omitSessionToken: Bool,
        ownNames: [[UInt8]]
    ) {
        additions = own
        holdsToken = token != nil
        let isOwn: (UnsafeBufferPointer<UInt8>) -> Bool = { key in ownNames.contains { equalIgnoringASCIICase($0, key) }
        }
        if let token, !omitSessionToken { additions.append((Self.tokenKey, PercentEncoding.encodedBytes(token))) }
        signed = CanonicalQuery.fromRawQuery(
            rawQuery,
            adding: additions,
            excluding: isOwn,
            holdsSecret: token != nil && !omitSessionToken
        )
        sent = nil
        if let token, omitSessionToken {
            additions.append((Self.tokenKey, PercentEncoding.encodedBytes(token)))
            sent = CanonicalQuery.fromRawQuery(rawQuery, adding: additions, excluding: isOwn, holdsSecret: true)
        }
    }

    /// The canonical request of a presigned URL, passed to `body`: `request`'s method, path and headers
    /// (SigV4's header policy, the signer adding none: its parameters are in this query), the query
    /// the signature covers, and `payloadHash`. The scratch is wiped when the query holds a token.
    /// Header problems are the caller's to find first (``SigV4CanonicalRequest/signedHeaderList(_:problem:)``).
    func withCanonicalRequest<R>(
        _ request: SigV4Request,
        options: SigV4Options,
        payloadHash: PayloadHashText,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        payloadHash.withUnsafeBytes { payloadHashBytes in
            CanonicalRequest.with(
                method: request.method,
                path: request.path,
                rawQuery: "",
                canonicalQuery: signed,
                headers: request.headers,
                policy: SigV4HeaderPolicy(signer: .none),
                signerHeaders: .none,
                normalizePath: options.normalizePath,
                doubleURIEncode: options.doubleURIEncode,
                payloadHash: payloadHashBytes,
                queryHoldsSecret: holdsToken
            ) { canonical, _, _ in body(canonical) }
        }
    }

    /// `path ? query &X-Amz-Signature= hex(signature)`, with the query sent, in one allocation.
    func uri(path: String, signature: UnsafeRawBufferPointer) -> String {
        let label: StaticString = "&X-Amz-Signature="
        let path = path.isEmpty ? "/" : path
        // No binding of the query: the arrays stay unique for the wipe.
        func written(_ query: [UInt8]) -> String {
            String(writing: path.utf8.count + 1 + query.count + label.utf8CodeUnitCount + 2 * signature.count) { out in
                out.write(path)
                out.writeByte(UInt8(ascii: "?"))
                out.write(query)
                out.write(label)
                out.writeHex(signature)
            }
        }
        if let sent { return written(sent) }
        return written(signed)
    }

    /// Wipes the token's byte copies (the queries and the encoded parameters), when there is a token.
    mutating func wipeToken() {
        guard holdsToken else { return }
        signed.secureZeroize()
        sent?.secureZeroize()
        for index in additions.indices { additions[index].value.secureZeroize() }
    }
}
