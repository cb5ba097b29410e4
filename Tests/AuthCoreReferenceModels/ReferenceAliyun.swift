public import AuthCore

/// Slow Alibaba Cloud API signature strings written straight from the documentation ("RPC signature
/// mechanism", "Request syntax and signature method V3"), on plain arrays and dictionaries with none
/// of the signing toolkit: the differential oracle of the RPC and ACS3 signers.
public enum ReferenceAliyun {
    /// RPC: every pair encoded (RFC 3986, upper-case hex), sorted by encoded key, joined `k=v&…`.
    public static func rpcCanonicalizedQuery(_ parameters: [(key: String, value: String)]) -> String {
        let pairs = parameters.map {
            (
                ReferenceSigV4.encode(Array($0.key.utf8), keepSlash: false),
                ReferenceSigV4.encode(Array($0.value.utf8), keepSlash: false)
            )
        }
        .sorted { $0.0 != $1.0 ? $0.0.lexicographicallyPrecedes($1.0) : $0.1.lexicographicallyPrecedes($1.1) }
        return String(
            decoding: Array(pairs.map { $0.0 + [UInt8(ascii: "=")] + $0.1 }.joined(separator: [UInt8(ascii: "&")])),
            as: UTF8.self
        )
    }

    /// RPC: `METHOD&%2F&` + the canonicalised query encoded once more.
    public static func rpcStringToSign(method: String, _ parameters: [(key: String, value: String)]) -> String {
        method + "&%2F&"
            + String(
                decoding: ReferenceSigV4.encode(Array(rpcCanonicalizedQuery(parameters).utf8), keepSlash: false),
                as: UTF8.self
            )
    }

    /// Leading and trailing spaces and tabs removed.
    static func trimEnds(_ value: [UInt8]) -> [UInt8] {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = value.firstIndex(where: { !blank($0) }), let last = value.lastIndex(where: { !blank($0) })
        else { return [] }
        return Array(value[first...last])
    }

    /// The ACS3 canonical request: `host`, `content-type` and `x-acs-*` signed (lower-cased, values
    /// trimmed at the ends, repeated names joined with `,` in order), the signer's `x-acs-date`,
    /// `x-acs-signature-nonce`, `x-acs-content-sha256` (and with a token `x-acs-security-token`)
    /// replacing the request's; the path as sent (`/` when empty); the query decoded, re-encoded and
    /// sorted with `k=` for empty values. Nil where the signer must refuse (bad name or value, no host).
    public static func acs3CanonicalRequest(
        method: String,
        path: String,
        query: String,
        headers: [HTTPHeader],
        date: String,
        nonce: String,
        token: String?,
        payloadHash: String
    ) -> String? {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var lines: [[UInt8]: [[UInt8]]] = [:]
        var sawHost = false
        var owned = ["x-acs-date", "x-acs-signature-nonce", "x-acs-content-sha256"]
        if token != nil { owned.append("x-acs-security-token") }
        for header in headers {
            let name = Array(header.name.utf8)
            guard !name.isEmpty, name.allSatisfy(tchar.contains) else { return nil }
            let value = Array(header.value.utf8)
            guard !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
            let lower = String(decoding: name.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self)
            if lower == "host" { sawHost = true }
            guard lower == "host" || lower == "content-type" || lower.hasPrefix("x-acs-"), !owned.contains(lower) else {
                continue
            }
            lines[Array(lower.utf8), default: []].append(trimEnds(value))
        }
        guard sawHost else { return nil }
        lines[Array("x-acs-date".utf8)] = [Array(date.utf8)]
        lines[Array("x-acs-signature-nonce".utf8)] = [Array(nonce.utf8)]
        lines[Array("x-acs-content-sha256".utf8)] = [Array(payloadHash.utf8)]
        if let token { lines[Array("x-acs-security-token".utf8)] = [Array(token.utf8)] }
        let order = lines.keys.sorted { $0.lexicographicallyPrecedes($1) }
        var out =
            Array(method.utf8) + [10] + Array((path.isEmpty ? "/" : path).utf8) + [10]
            + ReferenceSigV4.canonicalQuery(query) + [10]
        for name in order {
            out += name + [UInt8(ascii: ":")] + Array((lines[name] ?? []).joined(separator: [UInt8(ascii: ",")])) + [10]
        }
        out += [10] + Array(order.joined(separator: [UInt8(ascii: ";")])) + [10] + Array(payloadHash.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
