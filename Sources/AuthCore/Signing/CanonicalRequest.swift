/// Builds a canonical request on bytes, in one output buffer with no per-header strings: the one
/// builder for AWS SigV4 ("Create a canonical request for Signature Version 4", AWS General
/// Reference) and Alibaba Cloud ACS3 ("Request syntax and signature method V3", step 1), which
/// share the layout and differ in their header policy and URI rules:
///
/// ```
/// METHOD \n CanonicalURI \n CanonicalQueryString \n (lowercase(name):value \n)* \n SignedHeaders \n HashedPayload
/// ```
///
/// The request is built in temporary (stack) memory and handed to a closure, and wiped afterwards
/// when it holds a session token (the signer's, or a token field the caller set); header problems are
/// found while canonicalising (validation costs no extra pass). The pieces come from the signing
/// toolkit (`Signing/`): ``CanonicalQuery``, ``CanonicalHeaders`` under the scheme's policy, and
/// the URI rules of ``SigV4CanonicalURI`` (ACS3 takes the path as sent, as S3 does).
package enum CanonicalRequest {
    /// Builds the canonical request in temporary (stack) memory and passes it to `body`, with the
    /// range of the signed-header list inside it and the first problem found in the headers.
    ///
    /// - Parameters:
    ///   - rawQuery: the query string of the request line: copied as it is when already canonical
    ///     (the common case, no allocation), else canonicalised. Ignored with `canonicalQuery`.
    ///   - canonicalQuery: an already canonical query (presigned URLs add their parameters first).
    ///   - normalizePath, doubleURIEncode: the URI rules (``SigV4Options``; both false for S3 and ACS3).
    static func with<Policy: CanonicalHeaderPolicy, R>(
        method: String,
        path: String,
        rawQuery: String,
        canonicalQuery canonical: [UInt8]? = nil,
        headers: [HTTPHeader],
        policy: Policy,
        signerHeaders: SignerHeaderValues,
        normalizePath: Bool,
        doubleURIEncode: Bool,
        payloadHash: UnsafeRawBufferPointer,
        queryHoldsSecret: Bool = false,
        _ body: (UnsafeRawBufferPointer, Range<Int>, CanonicalHeaderProblem?) -> R
    ) -> R {
        var query: [UInt8] = []
        var copiesRawQuery = false
        var targetProblem: CanonicalHeaderProblem?
        if let canonical {
            query = canonical
        } else if rawQuery.utf8.withContiguousStorageIfAvailable(CanonicalQuery.isAlreadyCanonical) ?? false {
            copiesRawQuery = true  // only unreserved, `=` and `&`: no control characters
        } else if !rawQuery.isEmpty {
            if CanonicalQuery.containsControlByte(rawQuery) { targetProblem = .controlCharactersInTarget }
            query = CanonicalQuery.fromRawQuery(rawQuery)
        }
        let rawQueryCount = copiesRawQuery ? rawQuery.utf8.count : 0
        let fields = HTTPHeader.utf8Counts(headers)
        // The output: method, the path (tripled at most by encoding), the query, the lines (at most
        // the table's bytes), the signed-header list (at most the names again, with `;`), the
        // payload hash, and the five newlines.
        let lines = CanonicalHeaders.lineBytes(
            fieldBytes: fields.both,
            fieldCount: headers.count,
            signer: signerHeaders
        )
        let capacity =
            method.utf8.count &+ 3 &* Swift.max(path.utf8.count, 1) &+ query.count &+ rawQueryCount &+ 2 &* lines
            &+ payloadHash.count &+ 8
        return CanonicalHeaders.withTable(
            headers,
            fieldBytes: fields.both,
            policy: policy,
            signer: signerHeaders,
            outputCapacity: capacity,
            outputHoldsSecret: queryHoldsSecret
        ) { table, headerProblem, out in
            var problem = targetProblem
            out.write(method)
            out.writeByte(UInt8(ascii: "\n"))
            let pathWasCanonical = SigV4CanonicalURI.writeCanonicalURI(
                path: path,
                normalize: normalizePath,
                doubleEncode: doubleURIEncode,
                into: &out
            )
            if !pathWasCanonical, problem == nil, CanonicalQuery.containsControlByte(path) {
                problem = .controlCharactersInTarget
            }
            out.writeByte(UInt8(ascii: "\n"))
            if copiesRawQuery { out.write(rawQuery) } else { out.write(query) }
            out.writeByte(UInt8(ascii: "\n"))
            if problem == nil { problem = headerProblem }
            let signed = table.writeLinesThenNames(into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            out.write(payloadHash)
            return body(
                UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out.buffer[..<out.position])),
                signed,
                problem
            )
        }
    }

}
