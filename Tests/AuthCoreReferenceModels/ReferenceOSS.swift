public import AuthCore

/// Slow OSS V1 and V4 strings written straight from the OSS documentation ("Include a V1 signature
/// in the Authorization header", "Signature Version 4 (recommended)"), on plain arrays and
/// dictionaries, with none of the signing toolkit: the differential oracle of the OSS policies.
public enum ReferenceOSS {
    static func lower(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// `name:value\n` for the selected fields (lower-case names, values verbatim, repeated names
    /// joined with `,` in the order given), sorted by name in byte order.
    static func headerLines(_ headers: [HTTPHeader], include: (String) -> Bool) -> String {
        var values: [String: [String]] = [:]
        for header in headers {
            let name = lower(header.name)
            if include(name) { values[name, default: []].append(header.value) }
        }
        return values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
    }

    /// The additional header names a V4 signature lists: lower-cased, without those signed anyway,
    /// distinct, sorted; in URL mode (`present`) only those the request has.
    public static func additionalHeaders(_ requested: [String], present: [HTTPHeader]?) -> [String] {
        let presentNames = present.map { Set($0.map { lower($0.name) }) }
        let names = Set(requested.map(lower)).filter { name in
            !name.hasPrefix("x-oss-") && name != "content-type" && name != "content-md5"
                && (presentNames?.contains(name) ?? true)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The V4 canonical request. In header mode (`amzDate` given) the signer's `x-oss-date`,
    /// `x-oss-content-sha256: UNSIGNED-PAYLOAD` and, with a token, `x-oss-security-token` replace the
    /// request's fields of those names, and `Authorization` is dropped.
    public static func v4CanonicalRequest(
        method: String,
        bucket: String?,
        key: String,
        parameters: [(key: String, value: String)],
        headers: [HTTPHeader],
        additional: [String],
        headerMode amzDate: String?,
        token: String?
    ) -> String {
        var fields = headers
        if let amzDate {
            let owned =
                ["x-oss-date", "x-oss-content-sha256", "authorization"] + (token == nil ? [] : ["x-oss-security-token"])
            fields = headers.filter { !owned.contains(lower($0.name)) }
            fields.append(HTTPHeader("x-oss-date", amzDate))
            fields.append(HTTPHeader("x-oss-content-sha256", "UNSIGNED-PAYLOAD"))
            if let token { fields.append(HTTPHeader("x-oss-security-token", token)) }
        }
        var resource = "/"
        if let bucket, !bucket.isEmpty {
            resource += encode(bucket, keepSlash: true) + "/" + encode(key, keepSlash: true)
        }
        let query = parameters.map { (encode($0.key, keepSlash: false), encode($0.value, keepSlash: false)) }
            .sorted {
                $0.0 != $1.0
                    ? $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) : $0.1.utf8.lexicographicallyPrecedes($1.1.utf8)
            }
            .map { $0.1.isEmpty ? $0.0 : "\($0.0)=\($0.1)" }.joined(separator: "&")
        let lines = headerLines(fields) {
            $0.hasPrefix("x-oss-") || $0 == "content-type" || $0 == "content-md5" || additional.contains($0)
        }
        let payload = fields.first { lower($0.name) == "x-oss-content-sha256" }?.value ?? "UNSIGNED-PAYLOAD"
        return [method, resource, query, lines, additional.joined(separator: ";"), payload].joined(separator: "\n")
    }

    /// The V1 `CanonicalizedOSSHeaders`: the `x-oss-*` fields, with the signer's token in place of the
    /// request's own when it has one.
    public static func v1HeaderLines(_ headers: [HTTPHeader], token: String?) -> String {
        var fields = headers
        if let token {
            fields = headers.filter { lower($0.name) != "x-oss-security-token" }
            fields.append(HTTPHeader("x-oss-security-token", token))
        }
        return headerLines(fields) { $0.hasPrefix("x-oss-") }
    }

    static func encode(_ text: String, keepSlash: Bool) -> String {
        String(decoding: ReferenceSigV4.encode(Array(text.utf8), keepSlash: keepSlash), as: UTF8.self)
    }
}
