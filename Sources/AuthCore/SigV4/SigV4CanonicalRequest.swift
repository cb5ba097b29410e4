/// Builds a SigV4 canonical request on bytes, with one output buffer and no per-header strings.
///
/// "Create a canonical request for Signature Version 4" (AWS General Reference):
///
/// ```
/// METHOD \n CanonicalURI \n CanonicalQueryString \n (lowercase(name):trimall(value) \n)* \n SignedHeaders \n HashedPayload
/// ```
package struct SigV4CanonicalRequest {
    /// The canonical request.
    package var bytes: [UInt8]
    /// Where the `SignedHeaders` list sits inside ``bytes``.
    var signedHeaders: Range<Int>
    /// What is wrong with the headers, found while canonicalising them (validation costs no extra pass).
    var problem: HeaderProblem?

    /// A header the request cannot be signed with.
    package enum HeaderProblem {
        case invalidName(String)
        case invalidValue(String)
        case missingHost

        var error: AuthCoreError {
            switch self {
            case .invalidName(let name): AuthCoreError(.malformedRequest, "header name '\(name)' is not an HTTP token")
            case .invalidValue(let name): AuthCoreError(.malformedRequest, "header '\(name)' has CR, LF or NUL in its value")
            case .missingHost: AuthCoreError(.malformedRequest, "the Host header is required (SigV4 signs it)")
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

    package static func build(
        method: String, path: String, query: [UInt8], headers: [HTTPHeader], signerHeaders: SignerHeaders,
        options: SigV4Options, payloadHash: UnsafeRawBufferPointer
    ) -> SigV4CanonicalRequest {
        // An upper bound: the path may triple when encoded; header names appear twice.
        var capacity = 64 + method.utf8.count + 3 * path.utf8.count + query.count + payloadHash.count
        for header in headers { capacity += 2 * header.name.utf8.count + header.value.utf8.count + 3 }
        capacity += 2 * signerHeaders.scratchBytes + 16
        var signed = 0..<0
        var problem: HeaderProblem?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var out = OutputCursor(buffer: buffer)
            out.write(method)
            out.writeByte(UInt8(ascii: "\n"))
            SigV4Canonicalizer.writeCanonicalURI(path: path, normalize: options.normalizePath, doubleEncode: options.doubleURIEncode, into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            out.write(query)
            out.writeByte(UInt8(ascii: "\n"))
            signed = writeHeaders(headers, signerHeaders: signerHeaders, into: &out, problem: &problem)
            out.write(payloadHash)
            initialized = out.position
        }
        return SigV4CanonicalRequest(bytes: bytes, signedHeaders: signed, problem: problem)
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

    /// Appends the canonical header lines, a blank line, and the signed-header list followed by `\n`;
    /// returns the range of the list. The request's `Authorization` and `X-Amz-Date` fields (and the
    /// ones the signer adds) are left out.
    package static func writeHeaders(
        _ headers: [HTTPHeader], signerHeaders: SignerHeaders, into out: inout OutputCursor, problem: inout HeaderProblem?
    ) -> Range<Int> {
        var capacity = 8 + signerHeaders.scratchBytes
        for header in headers { capacity += header.name.utf8.count + header.value.utf8.count }
        let count = headers.count + 3
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            withUnsafeTemporaryAllocation(of: HeaderSlot.self, capacity: count) { slots in
                var used = 0
                var slotCount = 0
                var sawHost = false
                let dropsContentHash = signerHeaders.contentSHA256 != nil
                let base = scratch.baseAddress!  // invariant: capacity >= 8
                // Lower-cased names and trimmed values (runs of spaces collapsed) into the scratch; names
                // must be HTTP tokens and values free of CR, LF and NUL (checked in the same pass).
                HTTPHeader.tokenCharacters.withUnsafeBufferPointer { tokens in
                var index = 0
                let headerCount = headers.count
                while index < headerCount {
                    defer { index &+= 1 }
                    let nameStart = used
                    var nameOK = true
                    var nameLength = 0
                    for byte in headers[index].name.utf8 {
                        nameOK = nameOK && tokens[Int(byte)]
                        base[used] = asciiLowercase(byte)
                        used &+= 1
                        nameLength &+= 1
                    }
                    if (!nameOK || nameLength == 0), problem == nil { problem = .invalidName(headers[index].name) }
                    let nameRange = nameStart..<used
                    if nameLength == 4 && matches(scratch, nameRange, "host") { sawHost = true }
                    if matches(scratch, nameRange, "authorization") || matches(scratch, nameRange, "x-amz-date")
                        || (signerHeaders.replacesToken && matches(scratch, nameRange, "x-amz-security-token"))
                        || (dropsContentHash && matches(scratch, nameRange, "x-amz-content-sha256"))
                    {
                        used = nameStart
                        continue
                    }
                    let valueStart = used
                    let copied = headers[index].value.utf8.withContiguousStorageIfAvailable { bytes in
                        Self.copyTrimmedValue(bytes, to: base, at: used)
                    }
                    let (end, valueOK) = copied ?? Array(headers[index].value.utf8).withUnsafeBufferPointer { bytes in
                        Self.copyTrimmedValue(bytes, to: base, at: used)
                    }
                    used = end
                    if !valueOK, problem == nil { problem = .invalidValue(headers[index].name) }
                    slots[slotCount] = HeaderSlot(name: nameRange, value: valueStart..<used, key: sortKey(base, nameRange))
                    slotCount += 1
                }
                }
                if !sawHost, problem == nil { problem = .missingHost }
                func add(_ name: StaticString, _ value: UnsafeRawBufferPointer) {
                    let nameStart = used
                    name.withUTF8Buffer { for byte in $0 { scratch[used] = byte; used += 1 } }
                    let valueStart = used
                    for byte in value { scratch[used] = byte; used += 1 }
                    slots[slotCount] = HeaderSlot(
                        name: nameStart..<valueStart, value: valueStart..<used, key: sortKey(base, nameStart..<valueStart))
                    slotCount += 1
                }
                if let date = signerHeaders.amzDate { add("x-amz-date", date) }
                if var token = signerHeaders.securityToken { token.withUTF8 { add("x-amz-security-token", UnsafeRawBufferPointer($0)) } }
                if let hash = signerHeaders.contentSHA256 { add("x-amz-content-sha256", hash) }
                let buffer = UnsafeBufferPointer(scratch)
                // Stable insertion sort by name: repeated names keep their order.
                if slotCount > 1 {
                    for i in 1..<slotCount {
                        let slot = slots[i]
                        var j = i - 1
                        while j >= 0 && precedes(slot, slots[j], buffer) {
                            slots[j + 1] = slots[j]
                            j -= 1
                        }
                        slots[j + 1] = slot
                    }
                }
                // name:value[,value…]\n for each distinct name.
                var i = 0
                while i < slotCount {
                    out.write(buffer, slots[i].name)
                    out.writeByte(UInt8(ascii: ":"))
                    out.write(buffer, slots[i].value)
                    var j = i + 1
                    while j < slotCount && bytesEqual(buffer, slots[j].name, slots[i].name) {
                        out.writeByte(UInt8(ascii: ","))
                        out.write(buffer, slots[j].value)
                        j += 1
                    }
                    out.writeByte(UInt8(ascii: "\n"))
                    i = j
                }
                out.writeByte(UInt8(ascii: "\n"))
                let start = out.position
                i = 0
                while i < slotCount {
                    if i > 0 { out.writeByte(UInt8(ascii: ";")) }
                    out.write(buffer, slots[i].name)
                    var j = i + 1
                    while j < slotCount && bytesEqual(buffer, slots[j].name, slots[i].name) { j += 1 }
                    i = j
                }
                let end = out.position
                out.writeByte(UInt8(ascii: "\n"))
                return start..<end
            }
        }
    }

    /// A header's name and value ranges inside the scratch buffer.
    struct HeaderSlot {
        var name: Range<Int>
        var value: Range<Int>
        /// The first eight name bytes, big-endian, zero-padded: orders most names without a byte loop.
        var key: UInt64
    }

    @inline(__always)
    static func sortKey(_ base: UnsafeMutablePointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        if range.count >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(base + range.lowerBound).loadUnaligned(as: UInt64.self))
        }
        var key: UInt64 = 0
        var i = 0
        while i < 8 {
            key <<= 8
            if i < range.count { key |= UInt64(base[range.lowerBound + i]) }
            i += 1
        }
        return key
    }

    @inline(__always)
    static func precedes(_ a: HeaderSlot, _ b: HeaderSlot, _ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.key != b.key { return a.key < b.key }
        return bytesLess(buffer, a.name, b.name)
    }

    /// Copies a header value trimmed with runs of spaces and tabs collapsed to one space (SigV4
    /// "Trimall"), returning the end position and whether it was free of CR, LF and NUL.
    @inline(__always)
    static func copyTrimmedValue(_ bytes: UnsafeBufferPointer<UInt8>, to base: UnsafeMutablePointer<UInt8>, at start: Int) -> (Int, Bool) {
        var position = start
        var pendingSpace = false
        var valid = true
        var index = 0
        let count = bytes.count
        // Eight bytes at a time while a word holds no space, tab, CR, LF or NUL (SWAR test).
        if let source = UnsafeRawPointer(bytes.baseAddress) {
            while index &+ 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if hasSpecialByte(word) { break }
                if pendingSpace {
                    base[position] = UInt8(ascii: " ")
                    position &+= 1
                    pendingSpace = false
                }
                UnsafeMutableRawPointer(base + position).storeBytes(of: word, as: UInt64.self)
                position &+= 8
                index &+= 8
            }
        }
        while index < count {
            let byte = bytes[index]
            index &+= 1
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                pendingSpace = position > start
            } else {
                if pendingSpace {
                    base[position] = UInt8(ascii: " ")
                    position &+= 1
                }
                pendingSpace = false
                valid = valid && byte != 0x0D && byte != 0x0A && byte != 0x00
                base[position] = byte
                position &+= 1
            }
        }
        return (position, valid)
    }

    /// Whether any byte of `word` is a space, tab, CR, LF or NUL ("haszero" bit trick, applied to
    /// the word XOR each byte value repeated).
    @inline(__always)
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        return (zero(word) | zero(word ^ (ones &* 0x20)) | zero(word ^ (ones &* 0x09)) | zero(word ^ (ones &* 0x0D))
            | zero(word ^ (ones &* 0x0A))) != 0
    }

    @inline(__always)
    static func matches(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let expected = name.utf8Start
        var i = 0
        for index in range {
            if buffer[index] != expected[i] { return false }
            i += 1
        }
        return true
    }

    // MARK: - Query

    /// The canonical query string: split on `&` and the first `=`, decode, re-encode per RFC 3986,
    /// sort by key then value. Parameters already in canonical form are referenced, not copied twice.
    static func canonicalQuery(_ query: String, adding additions: [(key: [UInt8], value: [UInt8])] = [], excluding: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in false })
        -> [UInt8]
    {
        if additions.isEmpty, let simple = alreadyCanonical(query) { return simple }
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

    /// The query itself when it is already canonical: only unreserved characters, every pair has an
    /// `=`, no empty pair, and pairs in sorted order (the common case: no re-encoding, no sorting).
    static func alreadyCanonical(_ query: String) -> [UInt8]? {
        var query = query
        return query.withUTF8 { raw -> [UInt8]? in
            let unreserved = PercentEncoding.unreserved
            var previousStart = -1
            var previousEnd = -1
            var start = 0
            while start < raw.count {
                var end = start
                var sawEquals = false
                while end < raw.count && raw[end] != UInt8(ascii: "&") {
                    let byte = raw[end]
                    if byte == UInt8(ascii: "=") {
                        if sawEquals { return nil }
                        sawEquals = true
                    } else if !unreserved[Int(byte)] {
                        return nil
                    }
                    end += 1
                }
                guard sawEquals, end > start else { return nil }
                if previousStart >= 0 {
                    // Keys then values compare as the whole pair here only when keys differ; be strict.
                    let buffer = raw
                    var keyEnd = start
                    while raw[keyEnd] != UInt8(ascii: "=") { keyEnd += 1 }
                    var previousKeyEnd = previousStart
                    while raw[previousKeyEnd] != UInt8(ascii: "=") { previousKeyEnd += 1 }
                    let key = start..<keyEnd
                    let previousKey = previousStart..<previousKeyEnd
                    if !bytesLess(buffer, previousKey, key) {
                        guard bytesEqual(buffer, previousKey, key),
                            !bytesLess(buffer, (keyEnd + 1)..<end, (previousKeyEnd + 1)..<previousEnd)
                        else { return nil }
                    }
                }
                previousStart = start
                previousEnd = end
                start = end + 1
            }
            return Array(raw)
        }
    }

    /// Appends the RFC 3986 encoding of the percent-decoded `raw` (a `%` not followed by two hex
    /// digits stays literal and is encoded as `%25`).
    @inline(__always)
    static func appendCanonical(_ raw: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let unreserved = PercentEncoding.unreserved
        let digits = Hex.digitValues
        let hex = PercentEncoding.upperHex
        var i = 0
        while i < raw.count {
            var byte = raw[i]
            if byte == UInt8(ascii: "%"), i + 2 < raw.count, digits[Int(raw[i + 1])] != 0xFF, digits[Int(raw[i + 2])] != 0xFF {
                byte = digits[Int(raw[i + 1])] << 4 | digits[Int(raw[i + 2])]
                i += 3
            } else {
                i += 1
            }
            if unreserved[Int(byte)] {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
