/// The OSS V4 canonical request, built on bytes (OSS documentation, "Signature Version 4
/// (recommended)"; conventions pinned by the oss2 vectors):
///
/// ```
/// METHOD \n URI-encode(/bucket/key) \n CanonicalQuery \n CanonicalHeaders \n AdditionalHeaders \n HashedPayload
/// ```
///
/// `CanonicalHeaders` are `x-oss-*`, `content-type`, `content-md5` and the additional headers:
/// lower-cased names, values as given (not trimmed), repeated names joined with `,`, sorted by name.
enum OSSV4CanonicalRequest {
    static func build(
        method: String, bucket: String?, key: String, parameters: [(key: String, value: String)], headers: [HTTPHeader],
        additional: [String], payload: String
    ) -> [UInt8] {
        let headerBytes = HTTPHeader.utf8Counts(headers)
        var out: [UInt8] = []
        out.reserveCapacity(256 + 3 * (key.utf8.count + (bucket?.utf8.count ?? 0)) + 2 * headerBytes.names + headerBytes.values)
        out.append(contentsOf: method.utf8)
        out.append(UInt8(ascii: "\n"))
        // The resource: `/bucket/key`, or `/` without a bucket; `/` kept, everything else outside the
        // unreserved set percent-encoded.
        out.append(UInt8(ascii: "/"))
        if let bucket, !bucket.isEmpty {
            PercentEncoding.encode(bucket.utf8, keepSlash: true, into: &out)
            out.append(UInt8(ascii: "/"))
            PercentEncoding.encode(key.utf8, keepSlash: true, into: &out)
        }
        out.append(UInt8(ascii: "\n"))
        appendQuery(parameters, into: &out)
        out.append(UInt8(ascii: "\n"))
        appendHeaders(headers, additional: additional, scratchCapacity: headerBytes.names + headerBytes.values, into: &out)
        out.append(UInt8(ascii: "\n"))
        for (index, name) in additional.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ";")) }
            out.append(contentsOf: name.utf8)
        }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: payload.utf8)
        return out
    }

    /// `key[=value]` pairs, each side RFC 3986-encoded, sorted by key then value, joined with `&`.
    static func appendQuery(_ parameters: [(key: String, value: String)], into out: inout [UInt8]) {
        guard !parameters.isEmpty else { return }
        let encoded = parameters.map { (key: SigV4Canonicalizer.encode(Array($0.key.utf8)), value: SigV4Canonicalizer.encode(Array($0.value.utf8))) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) || ($0.key == $1.key && $0.value.lexicographicallyPrecedes($1.value)) }
        for (index, pair) in encoded.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pair.key)
            if !pair.value.isEmpty {
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: pair.value)
            }
        }
    }

    /// The signed headers' lines: names lower-cased into one scratch buffer, a stable insertion sort
    /// of their ranges, repeated names merged.
    static func appendHeaders(_ headers: [HTTPHeader], additional: [String], scratchCapacity: Int, into out: inout [UInt8]) {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(scratchCapacity)
        var entries: [(name: Range<Int>, value: Range<Int>)] = []
        entries.reserveCapacity(headers.count)
        for header in headers {
            let nameStart = scratch.count
            for byte in header.name.utf8 { scratch.append(asciiLowercase(byte)) }
            let name = nameStart..<scratch.count
            guard isSigned(scratch, name, additional: additional) else {
                scratch.removeSubrange(name)
                continue
            }
            let valueStart = scratch.count
            scratch.append(contentsOf: header.value.utf8)
            entries.append((name, valueStart..<scratch.count))
        }
        scratch.withUnsafeBufferPointer { buffer in
            // Stable: a repeated name keeps its values in the order given.
            if entries.count > 1 {
                for i in 1..<entries.count {
                    let entry = entries[i]
                    var j = i - 1
                    while j >= 0 && bytesLess(buffer, entry.name, entries[j].name) {
                        entries[j + 1] = entries[j]
                        j -= 1
                    }
                    entries[j + 1] = entry
                }
            }
            var i = 0
            while i < entries.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[entries[i].name]))
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[entries[i].value]))
                var j = i + 1
                while j < entries.count && bytesEqual(buffer, entries[j].name, entries[i].name) {
                    out.append(UInt8(ascii: ","))
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[entries[j].value]))
                    j += 1
                }
                out.append(UInt8(ascii: "\n"))
                i = j
            }
        }
    }

    /// `x-oss-*`, `content-type`, `content-md5`, or one of the (lower-case) additional names.
    static func isSigned(_ scratch: [UInt8], _ name: Range<Int>, additional: [String]) -> Bool {
        scratch.withUnsafeBufferPointer { buffer in
            let bytes = UnsafeBufferPointer(rebasing: buffer[name])
            if bytes.starts(with: "x-oss-".utf8) || bytes.elementsEqual("content-type".utf8) || bytes.elementsEqual("content-md5".utf8) {
                return true
            }
            return additional.contains { $0.utf8.elementsEqual(bytes) }
        }
    }
}
