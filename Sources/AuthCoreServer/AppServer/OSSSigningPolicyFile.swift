public import AuthCore
public import AuthCoreHTTP

/// An `OSSSigningPolicy` written as JSON: the policy file of `authcore oss sign-string --policy` and
/// the `ossSigning` section of the server's configuration.
///
/// `{"buckets": […], "keyPrefixes": […]}` and optionally `methods`, `regions`, `subresources`,
/// `ossHeaders` (arrays of strings), `maximumURLLifetime` (1…604800 s) and `maximumClockSkew`
/// (0…3600 s); what is left out takes `OSSSigningPolicy`'s defaults.
public enum OSSSigningPolicyFile {
    // bytes-lint: option names of the policy file (fixed ASCII).
    /// The policy in `object`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming `source` and what is wrong.
    /// (`alsoAllowing` names keys the caller reads itself, such as the server's `sharedAcrossUsers`.)
    public static func policy(
        from object: JSONObject,
        source: String,
        alsoAllowing: Set<String> = []
    ) throws(AuthCoreError) -> OSSSigningPolicy {
        let reader = FieldReader(source: source, directory: ".")
        try reader.allow(
            object,
            Set([
                "buckets", "keyPrefixes", "methods", "regions", "maximumURLLifetime", "maximumClockSkew",
                "subresources", "ossHeaders",
            ]).union(alsoAllowing),
            at: ""
        )
        func strings(_ key: String) throws(AuthCoreError) -> [String]? { try reader.strings(object, key, at: "") }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(AuthCoreError) -> Int? {
            try reader.integer(object, key, range, at: "")
        }
        guard let buckets = try strings("buckets"), let prefixes = try strings("keyPrefixes") else {
            throw AuthCoreError(.malformedInput, "\(source): buckets and keyPrefixes are required")
        }
        let defaults = OSSSigningPolicy(buckets: [], keyPrefixes: [])
        return OSSSigningPolicy(
            buckets: Set(buckets),
            keyPrefixes: prefixes,
            methods: try strings("methods").map(Set.init) ?? defaults.methods,
            regions: Set(try strings("regions") ?? []),
            maximumURLLifetime: try integer("maximumURLLifetime", 1...604_800) ?? defaults.maximumURLLifetime,
            maximumClockSkew: try integer("maximumClockSkew", 0...3600) ?? defaults.maximumClockSkew,
            subresources: try strings("subresources").map(Set.init) ?? defaults.subresources,
            ossHeaders: try strings("ossHeaders").map(Set.init) ?? defaults.ossHeaders
        )
    }

    /// The policy in a JSON file of at most 64 KiB.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming the file and what is wrong.
    public static func policy(contentsOfFile path: String) throws(AuthCoreError) -> OSSSigningPolicy {
        let bytes = try ConfigurationFile.read(path, limit: 65_536, what: "policy file")
        let object: JSONObject
        do { object = try JSONObject(parsing: bytes, context: path) } catch {
            throw AuthCoreError(.malformedInput, "\(path): not a JSON object")
        }
        return try policy(from: object, source: path)
    }
}
