/// SigV4's canonical URI, built on UTF-8 bytes ("Create a canonical request for Signature
/// Version 4", AWS General Reference; conventions pinned by the AWS signing test suite).
enum SigV4CanonicalURI {
    // MARK: - Path

    /// The canonical URI: the request-line path, normalised (`.`/`..` segments removed as in RFC 3986
    /// §5.2.4, repeated `/` collapsed) when asked, then URI-encoded once more (everything but
    /// `A-Za-z0-9-._~/`) unless `doubleEncode` is false (S3: the path is used verbatim).
    /// - Returns: true when the path took the fast path: non-empty, with only `A-Za-z0-9-._~/`, and
    ///   needing no normalisation (so it has no control characters either).
    @discardableResult
    static func writeCanonicalURI(
        path: String,
        normalize: Bool,
        doubleEncode: Bool,
        into out: inout OutputCursor
    ) -> Bool {
        // The common case, a path that is already canonical, is copied straight from the string.
        let copied = path.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.isEmpty, isPlainCanonical(bytes) else { return false }
            out.write(UnsafeRawBufferPointer(bytes))
            return true
        }
        if copied == true { return true }
        var bytes: [UInt8] = []
        if appendCanonicalURIIfNeeded(path: path, normalize: normalize, doubleEncode: doubleEncode, into: &bytes) {
            out.write(bytes)
        } else {
            out.write(path)
        }
        return false
    }

    /// Whether a path is canonical under every option: no `//` or `/.` to normalise and no byte
    /// outside `A-Za-z0-9-._~/` to encode (so, also, no control byte).
    @inline(__always)
    static func isPlainCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Eight bytes at a time: a `/` followed by `/` or `.` (the slash flags shifted one byte up,
        // with the last byte's flag carried into the next word), and any byte to encode.
        var previousIsSlash: UInt64 = 0
        var slashThenDotOrSlash: UInt64 = 0
        var allKept: UInt64 = 1
        var index = 0
        if let source = UnsafeRawPointer(bytes.baseAddress) {
            while index &+ 8 <= bytes.count {
                let word = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let slashes = SWAR.equalMask(word, UInt8(ascii: "/"))
                let followers = slashes | SWAR.equalMask(word, UInt8(ascii: "."))
                slashThenDotOrSlash |= ((slashes << 8) | (previousIsSlash << 7)) & followers
                previousIsSlash = slashes >> 63
                if SWAR.unreservedOrSlashMask(word) != SWAR.highs { allKept = 0 }
                index &+= 8
            }
        }
        // The last one to seven bytes as one word padded with `a` (a kept byte, neither `/` nor `.`).
        if let source = UnsafeRawPointer(bytes.baseAddress), index < bytes.count {
            let rest = bytes.count &- index
            let word = SWAR.loadPartial(source, offset: index, count: rest, padding: UInt8(ascii: "a"))
            let slashes = SWAR.equalMask(word, UInt8(ascii: "/"))
            let followers = slashes | SWAR.equalMask(word, UInt8(ascii: "."))
            slashThenDotOrSlash |= ((slashes << 8) | (previousIsSlash << 7)) & followers
            if SWAR.unreservedOrSlashMask(word) != SWAR.highs { allKept = 0 }
        }
        return slashThenDotOrSlash == 0 && allKept != 0
    }

    /// Appends the canonical URI when it differs from the path as written and returns true; returns
    /// false (appending nothing) when the path is already canonical.
    static func appendCanonicalURIIfNeeded(
        path: String,
        normalize: Bool,
        doubleEncode: Bool,
        into out: inout [UInt8]
    ) -> Bool {
        var path = path
        return path.withUTF8 { bytes -> Bool in
            if bytes.isEmpty {
                out.append(UInt8(ascii: "/"))
                return true
            }
            // S3's rules (no normalising, no encoding): a non-empty path is its own canonical form.
            guard normalize || doubleEncode else { return false }
            var needsNormalizing = false
            var needsEncoding = false
            var previous: UInt8 = 0
            for byte in bytes {
                if previous == UInt8(ascii: "/") && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".")) {
                    needsNormalizing = true
                }
                if !ASCIISet.unreserved.contains(byte) && byte != UInt8(ascii: "/") { needsEncoding = true }
                previous = byte
            }
            if (!normalize || !needsNormalizing) && (!doubleEncode || !needsEncoding) { return false }
            let source = normalize && needsNormalizing ? normalizedPath(Array(bytes)) : Array(bytes)
            if doubleEncode {
                PercentEncoding.encode(source, .unreservedAndSlash, into: &out)
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
}
