import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation
import Testing

/// `${username}` in the self-signing policy and the STS session policy: each user gets only their
/// own objects, and names that could change a policy's meaning are refused, never escaped.
@Suite("Per-user policies: ${username} placed for the session's user only")
struct PerUserPolicyTests {
    // test constant
    let key = try! Credentials(accessKeyId: "LTAI5tPerUserKey", secretAccessKey: "per-user-secret-0123456789")
    let now = Timestamp(year: 2026, month: 12, day: 5, hour: 12)!

    func v4Request(_ key: String, method: String = "GET") throws -> OSSSignatureRequest {
        let pending = try OSSDetachedSigner(version: .v4, region: "cn-hangzhou", accessKeyId: self.key.accessKeyId)
            .prepare(
                OSSRequest(
                    method: method,
                    target: "/\(key)",
                    headers: [HTTPHeader("Host", "photos.oss")],
                    bucket: "photos",
                    key: key
                ),
                at: now
            )
        return OSSSignatureRequest(pending)
    }

    @Test(
        "names that can be placed, and names refused: wildcards, slashes, quotes, controls, $, dot segments, non-ASCII, empty, too long"
    )
    func placement() throws {
        for name in [
            "alice", "Alice.Smith", "a_b-c", "alice@example.com", "alice+tag@example.com", "..x", "x..",
            String(repeating: "a", count: 128),
        ] {
            #expect(PerUserPolicy.canPlace(name), "\(name)")
        }
        for name in [
            "", "*", "a*", "a?", "a/b", "../bob", ".", "..", "a\"b", "a\\b", "a\u{0}", "a\nb", "a b", "${username}",
            "jos\u{E9}",
            String(repeating: "a", count: 129), "a%2Fb", "a:b", "a,b",
        ] {
            #expect(!PerUserPolicy.canPlace(name), "\(name)")
            #expect(throws: AuthCoreError(.notPermitted, "")) {
                try PerUserPolicy.place(name, in: "users/${username}/")
            }
        }
        #expect(try PerUserPolicy.place("bob", in: "a/${username}/b/${username}/") == "a/bob/b/bob/")
    }

    @Test(
        "alice signs under users/alice/ only; bob under users/bob/ only; each is refused the other's prefix (a prefix of a name is not enough)"
    )
    func twoUsers() throws {
        let signing = try PerUserOSSSigning(
            credentials: key,
            template: OSSSigningPolicy(
                buckets: ["photos"],
                keyPrefixes: ["users/${username}/"],
                regions: ["cn-hangzhou"]
            )
        )
        let plain = try OSSSigningAuthority(
            credentials: key,
            policy: OSSSigningPolicy(buckets: ["photos"], keyPrefixes: [""], regions: ["cn-hangzhou"])
        )
        for (user, own, other) in [
            ("alice", "users/alice/cat.jpg", "users/bob/private.jpg"),
            ("bob", "users/bob/private.jpg", "users/alice/cat.jpg"),
        ] {
            let request = try v4Request(own)
            #expect(try signing.sign(request, for: user, at: now).signature == plain.sign(request, at: now).signature)
            #expect(throws: AuthCoreError(.notPermitted, "")) {
                try signing.sign(try v4Request(other), for: user, at: now)
            }
            #expect(throws: AuthCoreError(.notPermitted, "")) {
                try signing.sign(try v4Request(other, method: "PUT"), for: user, at: now)
            }
        }
        // "ali" is not a prefix owner of "alice"'s objects: the placeholder is followed by '/'.
        #expect(throws: AuthCoreError(.notPermitted, "")) {
            try signing.sign(try v4Request("users/alice/cat.jpg"), for: "ali", at: now)
        }
        // A name that cannot be placed is refused before anything is read.
        #expect(throws: AuthCoreError(.notPermitted, "")) {
            try signing.sign(try v4Request("users/x/cat.jpg"), for: "*", at: now)
        }
        #expect(try signing.policy(for: "bob").keyPrefixes == ["users/bob/"])
    }

    @Test(
        "templates: a misspelt placeholder, a placeholder not followed by '/', and a policy the same for everyone are refused unless shared"
    )
    func templates() throws {
        func make(
            _ prefixes: [String],
            buckets: Set<String> = ["photos"],
            shared: Bool = false
        ) throws(AuthCoreError) -> PerUserOSSSigning {
            try PerUserOSSSigning(
                credentials: key,
                template: OSSSigningPolicy(buckets: buckets, keyPrefixes: prefixes),
                sharedAcrossUsers: shared
            )
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/${user}/"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/${username}"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/${username}x/"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/${username}/", "public/"]) }
        _ = try make(["users/"], shared: true)
        _ = try make(["public/"], buckets: ["photos-${username}"])
        // Bucket templates: text then the placeholder at the end, and no two that overlap.
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["public/"], buckets: ["${username}-photos"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["public/"], buckets: ["app-${username}-logs"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try make(["public/"], buckets: ["app-${username}", "app-logs-${username}"])
        }
        _ = try make(["users/${username}/", "shared/${username}/"])
        // Two users' prefixes must never overlap: a user named "users" under "${username}/" would get users/*.
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["users/${username}/", "${username}/"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["u${username}/", "users/${username}/"]) }
        _ = try make(["users/${username}/", "users/${username}/archive/"])
        // A wildcard before the placeholder, and a bare bucket placeholder.
        #expect(throws: AuthCoreError(.malformedInput, "")) { try make(["*/${username}/"]) }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try make(["users/${username}/"], buckets: ["${username}"])
        }
    }

    @Test(
        "the STS session policy: ${username} placed per user; a role without one, a misspelt one, or one that is not JSON is refused"
    )
    func stsPolicy() throws {
        let client = try AliyunSTSClient(region: "cn-hangzhou", endpoint: "http://127.0.0.1:9/")
        let policy =
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Resource":["acs:oss:*:*:photos/users/${username}/*"]}]}"#
        func vendor(_ policy: String?, shared: Bool = false) throws(AuthCoreError) -> DistributeTokenVendor {
            var role = DistributeTokenVendor.Role(roleArn: "acs:ram::1:role/app")
            role.policy = policy
            role.sharedAcrossUsers = shared
            return try DistributeTokenVendor(client: client, role: role, credentials: key)
        }
        _ = try vendor(policy)
        _ = try vendor(nil, shared: true)
        #expect(throws: AuthCoreError(.malformedInput, "")) { try vendor(nil) }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try vendor(#"{"Statement":[]}"#) }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "${username}/*", with: "${username}*"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "${username}", with: "${user}"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try vendor("not json ${username}/") }
        // A wildcard in the path before the placeholder; a statement with a resource for everyone beside the user's.
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "photos/users/${username}/*", with: "photos/*/${username}/*"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(
                policy.replacingOccurrences(
                    of: #"["acs:oss:*:*:photos/users/${username}/*"]"#,
                    with: #"["acs:oss:*:*:photos/users/${username}/*","acs:oss:*:*:photos/*"]"#
                )
            )
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(
                #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Resource":["acs:oss:*:*:photos/users/${username}/*"]},{"Effect":"Allow","Action":["oss:GetObject"],"Resource":"acs:oss:*:*:photos/*"}]}"#
            )
        }
        // A statement bound only through a Condition is refused (its operator could invert it); a Deny for everyone is
        // fine.
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(
                #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:ListObjects"],"Resource":["acs:oss:*:*:photos"],"Condition":{"StringNotLike":{"oss:Prefix":["users/${username}/*"]}}}]}"#
            )
        }
        _ = try vendor(
            #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Resource":["acs:oss:*:*:photos/users/${username}/*"]},{"Effect":"Deny","Action":["oss:DeleteObject"],"Resource":["acs:oss:*:*:photos/*"]}]}"#
        )
        // JSON escapes (a parser reads \u0024{username} as the placeholder, the placement does not),
        // NotResource, no Statement, resources whose users overlap, a bucket named by the user, a
        // wildcard hidden behind a ':' in the resource.
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "${username}", with: "\\u0024{username}"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "\"Resource\"", with: "\"NotResource\""))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try vendor(#"{"Version":"1","Note":"${username}/"}"#) }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(
                policy.replacingOccurrences(
                    of: #"["acs:oss:*:*:photos/users/${username}/*"]"#,
                    with: #"["acs:oss:*:*:photos/users/${username}/*","acs:oss:*:*:photos/${username}/*"]"#
                )
            )
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "photos/users/${username}/*", with: "${username}/*"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(policy.replacingOccurrences(of: "photos/users/${username}/*", with: "photos/*:${username}/*"))
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try vendor(#"{"a":"${username}/"# + String(repeating: "x", count: 2000) + #""}"#)
        }
    }
}
