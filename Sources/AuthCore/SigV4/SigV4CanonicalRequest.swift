/// Builds a SigV4 canonical request on bytes, in one output buffer with no per-header strings.
///
/// "Create a canonical request for Signature Version 4" (AWS General Reference):
///
/// ```
/// METHOD \n CanonicalURI \n CanonicalQueryString \n (lowercase(name):trimall(value) \n)* \n SignedHeaders \n HashedPayload
/// ```
///
/// The request is built in temporary (stack) memory and handed to a closure; header problems are
/// found while canonicalising (validation costs no extra pass).
package enum SigV4CanonicalRequest {
    /// A header the request cannot be signed with.
    package enum HeaderProblem {
        case invalidName(String)
        case invalidValue(String)
        case missingHost
        case controlCharactersInTarget

        var error: AuthCoreError {
            switch self {
            case .invalidName(let name): AuthCoreError(.malformedRequest, "header name '\(name)' is not an HTTP token")
            case .invalidValue(let name): AuthCoreError(.malformedRequest, "header '\(name)' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)")
            case .missingHost: AuthCoreError(.malformedRequest, "the Host header is required (SigV4 signs it)")
            case .controlCharactersInTarget: AuthCoreError(.malformedRequest, "request target contains control characters")
            }
        }
    }

    /// Headers the signer contributes in header mode (already canonical: lower-case names).
    package struct SignerHeaders {
        package var amzDate: UnsafeRawBufferPointer?
        var securityToken: String?
        var contentSHA256: UnsafeRawBufferPointer?
        /// Drop the request's own `x-amz-security-token` (the signer adds or omits the token).
        var replacesToken = false

        /// Whether the canonical form holds a session token (the request's own, or the signer's), so
        /// temporary copies of it are wiped.
        var holdsSecret: Bool { securityToken != nil || replacesToken }

        /// Bytes these headers take in the scratch (name + value each).
        var scratchBytes: Int {
            (amzDate.map { 10 + $0.count } ?? 0) + (securityToken.map { 20 + $0.utf8.count } ?? 0)
                + (contentSHA256.map { 20 + $0.count } ?? 0)
        }

        package static var none: SignerHeaders { SignerHeaders() }
        package init(amzDate: UnsafeRawBufferPointer? = nil, securityToken: String? = nil, contentSHA256: UnsafeRawBufferPointer? = nil, replacesToken: Bool = false) {
            self.amzDate = amzDate
            self.securityToken = securityToken
            self.contentSHA256 = contentSHA256
            self.replacesToken = replacesToken
        }
    }

    /// Builds the canonical request in temporary (stack) memory and passes it to `body`, with the
    /// range of the signed-header list inside it and the first problem found in the headers.
    ///
    /// - Parameters:
    ///   - rawQuery: the query string of the request line: copied as it is when already canonical
    ///     (the common case, no allocation), else canonicalised. Ignored with `canonicalQuery`.
    ///   - canonicalQuery: an already canonical query (presigned URLs add their parameters first).
    package static func withCanonicalRequest<R>(
        method: String, path: String, rawQuery: String, canonicalQuery canonical: [UInt8]? = nil, headers: [HTTPHeader],
        signerHeaders: SignerHeaders, options: SigV4Options, payloadHash: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer, Range<Int>, HeaderProblem?) -> R
    ) -> R {
        var query: [UInt8] = []
        var copiesRawQuery = false
        var targetProblem: HeaderProblem?
        if let canonical {
            query = canonical
        } else if rawQuery.utf8.withContiguousStorageIfAvailable(isAlreadyCanonical) ?? false {
            copiesRawQuery = true  // only unreserved, `=` and `&`: no control characters
        } else if !rawQuery.isEmpty {
            if containsControlByte(rawQuery) { targetProblem = .controlCharactersInTarget }
            query = canonicalQuery(rawQuery)
        }
        let rawQueryCount = copiesRawQuery ? rawQuery.utf8.count : 0
        // An upper bound: the path may triple when encoded; header lines take name + value + 2, and
        // the signed-header list repeats the names.
        let headerBytes = HTTPHeader.utf8Counts(headers)
        let signerBytes = signerHeaders.scratchBytes
        let capacity = 64 + method.utf8.count + 3 * path.utf8.count + query.count + rawQueryCount + payloadHash.count
            + 2 * headerBytes.names + headerBytes.values + 3 * headers.count + 2 * signerBytes + 16
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = OutputCursor(buffer: buffer)
            var problem = targetProblem
            out.write(method)
            out.writeByte(UInt8(ascii: "\n"))
            let pathWasCanonical = SigV4Canonicalizer.writeCanonicalURI(
                path: path, normalize: options.normalizePath, doubleEncode: options.doubleURIEncode, into: &out)
            if !pathWasCanonical, problem == nil, containsControlByte(path) { problem = .controlCharactersInTarget }
            out.writeByte(UInt8(ascii: "\n"))
            if copiesRawQuery { out.write(rawQuery) } else { out.write(query) }
            out.writeByte(UInt8(ascii: "\n"))
            // A session token is a secret: stack copies of a canonical request that holds one (the
            // signer's, or a token header the caller set) are wiped.
            let holdsSecret = signerHeaders.holdsSecret || headers.contains { $0.hasName("x-amz-security-token") }
            let signed = writeHeaders(
                headers, utf8Count: (headerBytes.names + headerBytes.values, signerBytes), signerHeaders: signerHeaders,
                wipesScratch: holdsSecret, into: &out, problem: &problem)
            out.write(payloadHash)
            let result = body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<out.position])), signed, problem)
            if holdsSecret { secureZero(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<out.position]))) }
            return result
        }
    }

    /// The signed-header list alone (for presigned URLs).
    static func signedHeaderList(_ headers: [HTTPHeader], problem: inout HeaderProblem?) -> [UInt8] {
        var capacity = 8
        for header in headers { capacity += 2 * header.name.utf8.count + header.value.utf8.count + 3 }
        var signed = 0..<0
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var out = OutputCursor(buffer: buffer)
            signed = writeHeaders(headers, signerHeaders: .none, into: &out, problem: &problem)
            initialized = out.position
        }
        return Array(bytes[signed])
    }

    // MARK: - Query

    /// The canonical query string: split on `&` and the first `=`, decode, re-encode per RFC 3986,
    /// sort by key then value. Parameters already in canonical form are referenced, not copied twice.
    static func canonicalQuery(_ query: String, adding additions: [(key: [UInt8], value: [UInt8])] = [], excluding: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in false })
        -> [UInt8]
    {
        if additions.isEmpty, query.utf8.withContiguousStorageIfAvailable(isAlreadyCanonical) ?? false { return Array(query.utf8) }
        var encoded: [UInt8] = []
        var pairs: [(key: Range<Int>, value: Range<Int>)] = []
        var q = query
        q.withUTF8 { raw in
            encoded.reserveCapacity(raw.count + 16 + additions.reduce(0) { $0 + $1.key.count + $1.value.count })
            var start = 0
            while start <= raw.count {
                var end = start
                while end < raw.count && raw[end] != UInt8(ascii: "&") { end += 1 }
                if end > start {
                    var eq = start
                    while eq < end && raw[eq] != UInt8(ascii: "=") { eq += 1 }
                    let keyStart = encoded.count
                    appendCanonical(UnsafeBufferPointer(rebasing: raw[start..<eq]), into: &encoded)
                    let keyRange = keyStart..<encoded.count
                    let excluded = encoded.withUnsafeBufferPointer { excluding(UnsafeBufferPointer(rebasing: $0[keyRange])) }
                    if excluded {
                        encoded.removeSubrange(keyStart...)
                    } else {
                        let valueStart = encoded.count
                        if eq < end { appendCanonical(UnsafeBufferPointer(rebasing: raw[(eq + 1)..<end]), into: &encoded) }
                        pairs.append((keyRange, valueStart..<encoded.count))
                    }
                }
                start = end + 1
            }
        }
        for (key, value) in additions {
            let keyStart = encoded.count
            encoded.append(contentsOf: key)
            let valueStart = encoded.count
            encoded.append(contentsOf: value)
            pairs.append((keyStart..<valueStart, valueStart..<encoded.count))
        }
        if pairs.isEmpty { return [] }
        return encoded.withUnsafeBufferPointer { buffer in
            pairs.sort { bytesLess(buffer, $0.key, $1.key) || (bytesEqual(buffer, $0.key, $1.key) && bytesLess(buffer, $0.value, $1.value)) }
            var out: [UInt8] = []
            out.reserveCapacity(buffer.count + pairs.count * 2)
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: "&")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[pair.key]))
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[pair.value]))
            }
            return out
        }
    }

    static func containsControlByte(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(SWAR.containsControlByte) ?? text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// Whether a raw query is already canonical: only unreserved characters, every pair has an `=`,
    /// no empty pair, and pairs in sorted order (the common case: no re-encoding, no sorting).
    static func isAlreadyCanonical(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = UnsafeRawPointer(raw.baseAddress) else { return true }
        if raw.last == UInt8(ascii: "&") { return false }  // a trailing empty pair is dropped, not copied
        // The bytes: unreserved, `=` or `&` (eight at a time).
        var index = 0
        while index &+ 8 <= raw.count {
            let word = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let allowed = SWAR.unreservedOrSlashMask(word) & ~SWAR.equalMask(word, UInt8(ascii: "/"))
                | SWAR.equalMask(word, UInt8(ascii: "=")) | SWAR.equalMask(word, UInt8(ascii: "&"))
            if allowed != SWAR.highs { return false }
            index &+= 8
        }
        var allowed: UInt64 = 1
        while index < raw.count {
            let byte = raw[index]
            allowed &= ASCIISet.unreserved.memberBit(byte) | UInt64(byte == UInt8(ascii: "=") || byte == UInt8(ascii: "&") ? 1 : 0)
            index &+= 1
        }
        if allowed == 0 { return false }
        // The pairs: `key=value`, one `=` each, none empty, in order (key, then value).
        var previousKey = 0..<0
        var previousValue = 0..<0
        var start = 0
        while start < raw.count {
            var equals = -1
            var end = start
            while end < raw.count {
                let byte = raw[end]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "=") {
                    if equals >= 0 { return false }
                    equals = end
                }
                end &+= 1
            }
            guard equals >= 0 else { return false }  // also rejects an empty pair
            let key = start..<equals
            let value = (equals &+ 1)..<end
            if start > 0 {
                let buffer = raw
                if !bytesLess(buffer, previousKey, key) {
                    guard bytesEqual(buffer, previousKey, key), !bytesLess(buffer, value, previousValue) else { return false }
                }
            }
            previousKey = key
            previousValue = value
            start = end &+ 1
        }
        return true
    }

    /// Appends the RFC 3986 encoding of the percent-decoded `raw` (a `%` not followed by two hex
    /// digits stays literal and is encoded as `%25`).
    @inline(__always)
    static func appendCanonical(_ raw: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let digits = Hex.digitValues
        var i = 0
        while i < raw.count {
            var byte = raw[i]
            if byte == UInt8(ascii: "%"), i + 2 < raw.count, digits[Int(raw[i + 1])] != 0xFF, digits[Int(raw[i + 2])] != 0xFF {
                byte = digits[Int(raw[i + 1])] << 4 | digits[Int(raw[i + 2])]
                i += 3
            } else {
                i += 1
            }
            if ASCIISet.unreserved.contains(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHexDigit(byte >> 4))
                out.append(upperHexDigit(byte & 0x0F))
            }
        }
    }
}
