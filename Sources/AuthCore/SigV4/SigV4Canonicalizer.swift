/// SigV4's canonical forms, built on UTF-8 bytes ("Create a canonical request for Signature
/// Version 4", AWS General Reference; conventions pinned by the AWS signing test suite).
enum SigV4Canonicalizer {
    // MARK: - Path

    /// The canonical URI: the request-line path, normalised (`.`/`..` segments removed as in RFC 3986
    /// §5.2.4, repeated `/` collapsed) when asked, then URI-encoded once more (everything but
    /// `A-Za-z0-9-._~/`) unless `doubleEncode` is false (S3: the path is used verbatim).
    static func writeCanonicalURI(path: String, normalize: Bool, doubleEncode: Bool, into out: inout OutputCursor) {
        // The common case, a path that is already canonical, is copied straight from the string.
        let copied = path.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.isEmpty, !needsRewriting(bytes, normalize: normalize, doubleEncode: doubleEncode) else { return false }
            out.write(UnsafeRawBufferPointer(bytes))
            return true
        }
        if copied == true { return }
        var bytes: [UInt8] = []
        if appendCanonicalURIIfNeeded(path: path, normalize: normalize, doubleEncode: doubleEncode, into: &bytes) {
            out.write(bytes)
        } else {
            out.write(path)
        }
    }

    /// Whether a non-empty path must be normalised (it has `//` or `/.`) or encoded (a byte outside
    /// `A-Za-z0-9-._~/`), given the options.
    @inline(__always)
    static func needsRewriting(_ bytes: UnsafeBufferPointer<UInt8>, normalize: Bool, doubleEncode: Bool) -> Bool {
        if !normalize && !doubleEncode { return false }
        var previous: UInt8 = 0
        var needsNormalizing = false
        var needsEncoding = false
        for byte in bytes {
            needsNormalizing = needsNormalizing || (previous == UInt8(ascii: "/") && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".")))
            needsEncoding = needsEncoding || !ASCIISet.unreservedOrSlash.contains(byte)
            previous = byte
        }
        return (normalize && needsNormalizing) || (doubleEncode && needsEncoding)
    }

    /// Appends the canonical URI when it differs from the path as written and returns true; returns
    /// false (appending nothing) when the path is already canonical.
    static func appendCanonicalURIIfNeeded(path: String, normalize: Bool, doubleEncode: Bool, into out: inout [UInt8]) -> Bool {
        var path = path
        return path.withUTF8 { bytes -> Bool in
            if bytes.isEmpty {
                out.append(UInt8(ascii: "/"))
                return true
            }
            var needsNormalizing = false
            var needsEncoding = false
            var previous: UInt8 = 0
            for byte in bytes {
                if previous == UInt8(ascii: "/") && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".")) { needsNormalizing = true }
                if !ASCIISet.unreserved.contains(byte) && byte != UInt8(ascii: "/") { needsEncoding = true }
                previous = byte
            }
            if (!normalize || !needsNormalizing) && (!doubleEncode || !needsEncoding) { return false }
            let source = normalize && needsNormalizing ? normalizedPath(Array(bytes)) : Array(bytes)
            if doubleEncode {
                PercentEncoding.encode(source, keepSlash: true, into: &out)
            } else {
                out.append(contentsOf: source)
            }
            return true
        }
    }

    static func normalizedPath(_ path: [UInt8]) -> [UInt8] {
        var segments: [ArraySlice<UInt8>] = []
        var trailingSlash = false
        for segment in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if segment.count == 1 && segment.first == UInt8(ascii: ".") {
                trailingSlash = true
            } else if segment.count == 2 && segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                if !segments.isEmpty { segments.removeLast() }
                trailingSlash = true
            } else {
                segments.append(segment)
                trailingSlash = false
            }
        }
        if path.last == UInt8(ascii: "/") { trailingSlash = true }
        var out: [UInt8] = [UInt8(ascii: "/")]
        for (index, segment) in segments.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "/")) }
            out.append(contentsOf: segment)
        }
        if trailingSlash && !segments.isEmpty { out.append(UInt8(ascii: "/")) }
        return out
    }

    // MARK: - Encoding

    /// RFC 3986 encoding of raw bytes (every byte but `A-Za-z0-9-._~`).
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        PercentEncoding.encode(bytes, keepSlash: false, into: &out)
        return out
    }
}
