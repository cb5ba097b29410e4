public import AuthCore

/// Policies bound to the session's user: `${username}` in a policy (the buckets and key prefixes of
/// `/oss/sign`, the STS session policy of `distribute-token.json`) is replaced by the user's name
/// before anything is signed or vended, so each user reaches only their own objects.
///
/// A name is placed only when it cannot change what the policy means: 1…128 bytes of
/// `A–Z a–z 0–9 . _ - @ +`, and not `.` or `..`. Anything else (`*` and `?`, wildcards to OSS and
/// RAM; `/`, which leaves the prefix; quotes and backslashes, which leave a JSON string; control
/// bytes; `$`; non-ASCII, which policy engines may normalise) is refused at the endpoint — never
/// escaped, which could only make a name mean another.
public enum PerUserPolicy {
    /// The placeholder.
    public static let placeholder = "${username}"

    /// Whether `username` can be placed in a policy.
    public static func canPlace(_ username: String) -> Bool {
        let bytes = Array(username.utf8)
        guard (1...128).contains(bytes.count), bytes != [0x2E], bytes != [0x2E, 0x2E] else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2E, 0x5F, 0x2D, 0x40, 0x2B: true
            default: false
            }
        }
    }

    /// `template` with every `${username}` replaced (the name checked by ``canPlace(_:)`` first).
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` for a name that cannot be placed.
    public static func place(_ username: String, in template: String) throws(AuthCoreError) -> String {
        guard canPlace(username) else {
            throw AuthCoreError(
                .notPermitted,
                "this username cannot be placed in a per-user policy (1-128 bytes of A-Z a-z 0-9 . _ - @ +)"
            )
        }
        return replacingPlaceholder(in: template, with: Array(username.utf8))
    }

    /// Whether `template` mentions the placeholder.
    static func mentionsPlaceholder(_ template: String) -> Bool { ranges(in: Array(template.utf8)).count > 0 }

    /// Checks a template: every `${` opens a `${username}` (a misspelt placeholder would otherwise
    /// stay literal and match nothing, or worse); no `*` or `?` comes before a placeholder in the
    /// resource (a wildcard there reaches other users' names: `photos/*/${username}/`; in a resource
    /// name `acs:oss:*:*:photos/users/${username}/*` the resource is what follows the fourth `:`, and
    /// there a bucket must come before the placeholder, `acs:oss:*:*:${username}/*` being any
    /// bucket named like a user); and, where `boundedBySlash`, every placeholder is followed by `/`
    /// (a key prefix `users/${username}` would give `alice` the objects of `alice2`).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming `what`.
    static func checkTemplate(_ template: String, boundedBySlash: Bool, what: String) throws(AuthCoreError) {
        let bytes = Array(template.utf8)
        let opens = bytes.indices.filter {
            bytes[$0] == UInt8(ascii: "$") && $0 + 1 < bytes.count && bytes[$0 + 1] == UInt8(ascii: "{")
        }
        let placeholders = ranges(in: bytes)
        guard opens.count == placeholders.count else {
            throw AuthCoreError(.malformedInput, "\(what): the only placeholder is ${username}")
        }
        if boundedBySlash,
            placeholders.contains(where: { $0.upperBound >= bytes.count || bytes[$0.upperBound] != UInt8(ascii: "/") })
        {
            throw AuthCoreError(.malformedInput, "\(what): ${username} must be followed by '/' (users/${username}/)")
        }
        guard let first = placeholders.first else { return }
        let resource = resourcePart(bytes[..<first.lowerBound])
        if resource.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }) {
            throw AuthCoreError(.malformedInput, "\(what): a wildcard before ${username} reaches other users' names")
        }
        if bytes.starts(with: "acs:".utf8), !resource.contains(UInt8(ascii: "/")) {
            throw AuthCoreError(
                .malformedInput,
                "\(what): a resource needs its bucket before ${username} (acs:oss:*:*:bucket/users/${username}/*)"
            )
        }
    }

    /// The resource of a resource name (`acs:service:region:account:resource`: what follows the
    /// fourth `:`), or the whole text when it is not one.
    private static func resourcePart(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard text.starts(with: "acs:".utf8) else { return text }
        var colons = 0
        for index in text.indices where text[index] == UInt8(ascii: ":") {
            colons += 1
            if colons == 4 { return text[(index + 1)...] }
        }
        return text[text.endIndex...]
    }

    /// Refuses templates whose users could overlap: the texts before `${username}` must be equal or
    /// none may start another (with `users/${username}/` and `${username}/`, a user named `users`
    /// would get every user's objects; with `app-${username}` and `app-logs-${username}`, a user named
    /// `logs-x` would get `x`'s).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming `what`.
    static func checkDisjoint(_ templates: [String], what: String) throws(AuthCoreError) {
        let leads = templates.compactMap { template -> [UInt8]? in
            let bytes = Array(template.utf8)
            return ranges(in: bytes).first.map { Array(bytes[..<$0.lowerBound]) }
        }
        for first in leads {
            for second in leads where first != second && (first.starts(with: second) || second.starts(with: first)) {
                throw AuthCoreError(
                    .malformedInput,
                    "\(what): '\(String(decoding: first, as: UTF8.self))${username}' and '\(String(decoding: second, as: UTF8.self))${username}' overlap for some names: give every per-user template the same text before ${username}, or texts that do not start one another"
                )
            }
        }
    }

    /// The byte ranges of the placeholder in `bytes`.
    private static func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        let needle = Array(placeholder.utf8)
        var found: [Range<Int>] = []
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) {
                found.append(index..<(index + needle.count))
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }

    private static func replacingPlaceholder(in template: String, with name: [UInt8]) -> String {
        let bytes = Array(template.utf8)
        var result: [UInt8] = []
        var last = 0
        for range in ranges(in: bytes) {
            result += bytes[last..<range.lowerBound]
            result += name
            last = range.upperBound
        }
        result += bytes[last...]
        return String(decoding: result, as: UTF8.self)
    }
}

/// `/oss/sign`'s authority for every user: the key, and an `OSSSigningPolicy` whose buckets and
/// key prefixes may hold `${username}` (`"keyPrefixes": ["users/${username}/"]`). Each request is
/// checked against the policy of the session's user.
public struct PerUserOSSSigning: Sendable, CustomStringConvertible {
    /// The policy as configured, placeholders and all.
    public let template: OSSSigningPolicy
    /// Whether every user gets the same policy (the configuration said so; otherwise every key
    /// prefix, or every bucket, names the user).
    public let sharedAcrossUsers: Bool
    private let credentials: Credentials

    /// An authority signing with `credentials` (long-term) under `template`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for a template that misspells the placeholder,
    ///   places it in a key prefix without a `/` after it, or (unless `sharedAcrossUsers`) leaves a
    ///   key prefix and a bucket without it; `.invalidParameter` for credentials with a session token.
    public init(
        credentials: Credentials,
        template: OSSSigningPolicy,
        sharedAcrossUsers: Bool = false
    ) throws(AuthCoreError) {
        try Self.check(template: template, sharedAcrossUsers: sharedAcrossUsers)
        _ = try OSSSigningAuthority(credentials: credentials, policy: template)  // the key's own check
        self.template = template
        self.sharedAcrossUsers = sharedAcrossUsers
        self.credentials = credentials
    }

    /// Checks a template (see ``init(credentials:template:sharedAcrossUsers:)``). Besides the
    /// placeholder's spelling, two users' policies must not overlap (``PerUserPolicy``'s rules for
    /// texts before `${username}`), and a bucket template is text then the placeholder, at its end (a
    /// bare `${username}` would let a user named like any bucket of the account sign for it;
    /// `app-${username}-logs` would be `x`'s logs and user `x-logs`'s bucket).
    public static func check(template: OSSSigningPolicy, sharedAcrossUsers: Bool) throws(AuthCoreError) {
        for bucket in template.buckets {
            try PerUserPolicy.checkTemplate(bucket, boundedBySlash: false, what: "ossSigning.buckets")
            guard
                !PerUserPolicy.mentionsPlaceholder(bucket)
                    || (bucket.utf8.count > PerUserPolicy.placeholder.utf8.count
                        && bucket.hasSuffix(PerUserPolicy.placeholder))
            else {
                throw AuthCoreError(
                    .malformedInput,
                    "ossSigning.buckets: a bucket template is text then ${username}, at its end (photos-${username})"
                )
            }
        }
        try PerUserPolicy.checkDisjoint(Array(template.buckets), what: "ossSigning.buckets")
        for prefix in template.keyPrefixes {
            try PerUserPolicy.checkTemplate(prefix, boundedBySlash: true, what: "ossSigning.keyPrefixes")
        }
        try PerUserPolicy.checkDisjoint(template.keyPrefixes, what: "ossSigning.keyPrefixes")
        let perUser =
            !template.keyPrefixes.isEmpty && template.keyPrefixes.allSatisfy(PerUserPolicy.mentionsPlaceholder)
            || !template.buckets.isEmpty && template.buckets.allSatisfy(PerUserPolicy.mentionsPlaceholder)
        guard perUser || sharedAcrossUsers else {
            throw AuthCoreError(
                .malformedInput,
                "ossSigning: every key prefix (or every bucket) must contain ${username}, so that each user signs only for their own objects; set sharedAcrossUsers to give every user the same policy"
            )
        }
    }

    /// The policy of `username`.
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` for a name that cannot be placed.
    public func policy(for username: String) throws(AuthCoreError) -> OSSSigningPolicy {
        var policy = template
        policy.buckets = Set(
            try template.buckets.map { (bucket) throws(AuthCoreError) in try place(username, in: bucket) }
        )
        policy.keyPrefixes = try template.keyPrefixes.map { (prefix) throws(AuthCoreError) in
            try place(username, in: prefix)
        }
        return policy
    }

    /// Checks `request` against `username`'s policy at `now` and signs it.
    ///
    /// - Throws: what `OSSSigningAuthority.sign(_:at:)` throws, and `.notPermitted` for a name
    ///   that cannot be placed.
    public func sign(
        _ request: OSSSignatureRequest,
        for username: String,
        at now: Timestamp
    ) throws(AuthCoreError) -> OSSProvidedSignature {
        try OSSSigningAuthority(credentials: credentials, policy: try policy(for: username)).sign(request, at: now)
    }

    private func place(_ username: String, in template: String) throws(AuthCoreError) -> String {
        PerUserPolicy.mentionsPlaceholder(template) ? try PerUserPolicy.place(username, in: template) : template
    }

    /// The key id and the template: never the secret.
    public var description: String { "PerUserOSSSigning(\(credentials.accessKeyId), \(template))" }
}
