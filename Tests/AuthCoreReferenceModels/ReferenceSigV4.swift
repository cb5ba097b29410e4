public import AuthCore

/// A slow SigV4 canonical request written straight from the AWS documentation ("Create a canonical
/// request for Signature Version 4"), on plain arrays, with none of the library's fast paths: the
/// differential oracle of the `sigv4-canonical` fuzz target and the signing differential tests.
/// nil where AuthCore must refuse the request.
public enum ReferenceSigV4 {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    /// RFC 9110 §5.6.2 token characters.
    static let tchar = Set("!#$%&'*+-.^_`|~ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    static let hexDigits = Array("0123456789ABCDEF".utf8)
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public static func encode(_ bytes: [UInt8], keepSlash: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for b in bytes {
            if unreserved.contains(b) || (keepSlash && b == UInt8(ascii: "/")) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]]
            }
        }
        return out
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-decoding where `%` must be followed by two hex digits to count as an escape.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let b = Array(bytes)
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let hi = hexValue(b[i + 1]), let lo = hexValue(b[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out
    }

    /// Dot segments removed and empty segments dropped; a trailing `/` kept (also after `.`/`..`).
    static func normalize(_ path: [UInt8]) -> [UInt8] {
        var stack: [[UInt8]] = []
        var trailing = path.last == UInt8(ascii: "/")
        for segment in path.split(separator: UInt8(ascii: "/")).map(Array.init) {
            switch segment {
            case Array(".".utf8): trailing = true
            case Array("..".utf8):
                if !stack.isEmpty { stack.removeLast() }
                trailing = true
            default:
                stack.append(segment)
                trailing = path.last == UInt8(ascii: "/")
            }
        }
        if stack.isEmpty { return Array("/".utf8) }
        return Array("/".utf8) + Array(stack.joined(separator: [UInt8(ascii: "/")])) + (trailing ? Array("/".utf8) : [])
    }

    static func canonicalURI(_ path: String, s3: Bool) -> [UInt8] {
        let bytes = Array(path.utf8)
        if bytes.isEmpty { return Array("/".utf8) }
        if s3 { return bytes }
        return encode(normalize(bytes), keepSlash: true)
    }

    public static func canonicalQuery(_ query: String) -> [UInt8] {
        var pairs: [([UInt8], [UInt8])] = []
        for part in Array(query.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let key: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                key = part[part.startIndex..<eq]
                value = part[(eq + 1)...]
            } else {
                key = part
                value = []
            }
            pairs.append((encode(decode(key), keepSlash: false), encode(decode(value), keepSlash: false)))
        }
        pairs.sort { $0.0 != $1.0 ? $0.0.lexicographicallyPrecedes($1.0) : $0.1.lexicographicallyPrecedes($1.1) }
        return Array(pairs.map { $0.0 + Array("=".utf8) + $0.1 }.joined(separator: [UInt8(ascii: "&")]))
    }

    /// Trim spaces and tabs at both ends, runs of them inside become one space.
    public static func trimAll(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var pendingSpace = false
        for b in value {
            if b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(UInt8(ascii: " ")) }
                pendingSpace = false
                out.append(b)
            }
        }
        return out
    }

    /// The request's `Authorization` and `X-Amz-Date` fields (and with `s3` its
    /// `X-Amz-Content-SHA256`) are replaced by the signer's; `Host` is required. With a `regionSet`
    /// (SigV4a) the signer's `X-Amz-Region-Set` is signed too, replacing the request's.
    public static func canonicalRequest(
        method: String,
        path: String,
        query: String,
        headers: [HTTPHeader],
        amzDate: String,
        s3: Bool,
        regionSet: String? = nil
    ) -> String? {
        let pathBytes = Array(path.utf8)
        // An empty path is "/"; any other must start with "/".
        guard pathBytes.isEmpty || pathBytes.first == UInt8(ascii: "/") else { return nil }
        if (pathBytes + Array(query.utf8)).contains(where: { $0 < 0x20 || $0 == 0x7F }) { return nil }
        var lines: [[UInt8]: [[UInt8]]] = [:]
        var order: [[UInt8]] = []
        for header in headers {
            let name = Array(header.name.utf8)
            guard !name.isEmpty, name.allSatisfy(tchar.contains) else { return nil }
            let value = Array(header.value.utf8)
            guard !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
            let lower = name.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
            let replaced =
                ["authorization", "x-amz-date"] + (s3 ? ["x-amz-content-sha256"] : [])
                + (regionSet != nil ? ["x-amz-region-set"] : [])
            if replaced.contains(String(decoding: lower, as: UTF8.self)) { continue }
            if lines[lower] == nil { order.append(lower) }
            lines[lower, default: []].append(trimAll(value))
        }
        guard lines[Array("host".utf8)] != nil else { return nil }
        let dateName = Array("x-amz-date".utf8)
        order.append(dateName)
        lines[dateName] = [Array(amzDate.utf8)]
        if let regionSet {
            let regionSetName = Array("x-amz-region-set".utf8)
            order.append(regionSetName)
            lines[regionSetName] = [Array(regionSet.utf8)]
        }
        if s3 {
            let hashName = Array("x-amz-content-sha256".utf8)
            order.append(hashName)
            lines[hashName] = [Array(emptyHash.utf8)]
        }
        order.sort { $0.lexicographicallyPrecedes($1) }
        var out = Array(method.utf8) + [10] + canonicalURI(path, s3: s3) + [10] + canonicalQuery(query) + [10]
        for name in order {
            out += name + [UInt8(ascii: ":")] + Array((lines[name] ?? []).joined(separator: [UInt8(ascii: ",")])) + [10]
        }
        out += [10] + Array(order.joined(separator: [UInt8(ascii: ";")])) + [10] + Array(emptyHash.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
