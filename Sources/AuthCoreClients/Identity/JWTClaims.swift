public import AuthCore
import Foundation

/// The claims of a JSON Web Token, decoded without verifying its signature (the service verifies
/// it; the client only reads `iss` to key `Logins` correctly).
public struct JWTClaims: Sendable {
    let claims: JSONObject

    /// Decodes the payload of `token` (`header.payload.signature`, Base64url without padding).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for a token that is not a JWT.
    public init(token: String) throws(AuthCoreError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty else {
            throw AuthCoreError(.malformedInput, "the token is not a JWT (expected header.payload.signature)")
        }
        let payload: [UInt8]
        do { payload = try Base64.decode(parts[1], alphabet: .urlSafe, field: "JWT payload") } catch {
            throw AuthCoreError(.malformedInput, "the token is not a JWT: \(error.reason)")
        }
        do { claims = try JSONObject(parsing: payload, context: "JWT claims") } catch {
            throw AuthCoreError(.malformedInput, "the token is not a JWT: its payload is not a JSON object")
        }
    }

    /// A string claim, or nil.
    public func string(_ name: String) -> String? { try? claims.optionalString(name) }

    /// `iss`.
    public var issuer: String? { string("iss") }

    /// Whether the claim is present (and not null).
    public func has(_ name: String) -> Bool { claims.has(name) }

    /// A NumericDate claim (`exp`, `iat`, `nbf`; RFC 7519 §2: seconds since 1970) as a time, or nil
    /// when it is absent, not a whole number, or outside the years 0001–9999.
    public func time(_ name: String) -> Timestamp? {
        guard let seconds = try? claims.integer(name, in: Timestamp.minimumSeconds...Timestamp.maximumSeconds) else {
            return nil
        }
        return Timestamp(secondsSince1970: seconds)
    }
}

/// The `Logins` key a Cognito identity pool expects for tokens of each issuer, per region.
///
/// The developer-authenticated (and Cognito identity) token issuer is
/// `cognito-identity.amazonaws.com` in the regions that use the global issuer, the China issuer
/// in cn-north-1, and `cognito-identity.<region>.amazonaws.com` everywhere else (design.md table).
public enum CognitoIdentityIssuer {
    /// The regions whose tokens carry the global issuer.
    public static let globalIssuerRegions: Set<String> = [
        "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3",
        "ap-south-1",
        "ap-southeast-1", "ap-southeast-2", "ca-central-1", "eu-central-1", "eu-north-1", "eu-west-1", "eu-west-2",
        "eu-west-3",
        "sa-east-1",
    ]

    /// The documented issuer (without `https://`) of Cognito identity tokens in `region`.
    public static func issuer(forRegion region: String) -> String {
        if globalIssuerRegions.contains(region) { return "cognito-identity.amazonaws.com" }
        return "cognito-identity.\(region).\(AWSEndpoint.dnsSuffix(forRegion: region))"
    }

    /// The `Logins` key of a user-pool ID token: its `iss` without `https://`, which must be
    /// `cognito-idp.<region>.<dnsSuffix>/<region>_<id>` (Developer Guide, "Integrating a user pool with
    /// an identity pool"; the identity pool refuses any other key with `Issuer doesn't match
    /// providerName`).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a token that is not a JWT, not an
    ///   ID token (`token_use` other than `id`: an access token in its place), or not issued by a user pool.
    public static func userPoolLoginsKey(forIDToken token: String) throws(AuthCoreError) -> String {
        let claims: JWTClaims
        do { claims = try JWTClaims(token: token) } catch {
            throw AuthCoreError(.invalidParameter, "the user-pool token is not a JWT")
        }
        let use = claims.string("token_use")
        guard use == "id" else {
            throw AuthCoreError(
                .invalidParameter,
                "the user-pool token is \(use.map { "an '\($0.prefix(20))' token" } ?? "not marked by token_use"), not an ID token: identity pools take the ID token"
            )
        }
        let key = loginsKey(fromIssuer: claims.issuer ?? "")
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        let host = parts.first.map(String.init) ?? ""
        let region = host.hasPrefix("cognito-idp.") ? String(host.dropFirst(12).prefix { $0 != "." }) : ""
        guard parts.count == 2, !region.isEmpty, (try? AWSEndpoint.validate(region: region)) != nil,
            host == "cognito-idp.\(region).\(AWSEndpoint.dnsSuffix(forRegion: region))",
            parts[1].hasPrefix("\(region)_"), parts[1].count > region.count + 1
        else {
            throw AuthCoreError(
                .invalidParameter,
                "the ID token's issuer '\(key.prefix(120))' is not a Cognito user pool (cognito-idp.<region>.amazonaws.com/<poolId>)"
            )
        }
        return key
    }

    /// An issuer claim without its `https://` scheme (the form `Logins` keys use).
    public static func loginsKey(fromIssuer issuer: String) -> String {
        var key = Substring(issuer)
        if key.hasPrefix("https://") {
            key = key.dropFirst(8)
        } else if key.hasPrefix("http://") {
            key = key.dropFirst(7)
        }
        while key.hasSuffix("/") { key = key.dropLast() }
        return String(key)
    }

    /// The `Logins` key for `token` in a pool of `region`, checked locally.
    ///
    /// - Parameters:
    ///   - token: the OpenID token.
    ///   - explicitKey: a key the caller insists on (required for a token that is not a JWT).
    ///   - region: the identity pool's region.
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the explicit key does not match
    ///   the token's issuer, or a Cognito identity token's issuer does not fit the region (the error
    ///   says which key to use), and when a non-JWT token comes without an explicit key. This replaces
    ///   the service's `NotAuthorizedException: Invalid login token. Issuer doesn't match providerName`.
    public static func loginsKey(
        for token: String,
        explicitKey: String?,
        region: String
    ) throws(AuthCoreError) -> String {
        let claims: JWTClaims
        do { claims = try JWTClaims(token: token) } catch {
            guard let explicitKey, !explicitKey.isEmpty else {
                throw AuthCoreError(
                    .invalidParameter,
                    "the token is not a JWT, so its Logins key cannot be read from it: give the key explicitly (explicitKey)"
                )
            }
            return explicitKey
        }
        guard let issuerClaim = claims.issuer, !issuerClaim.isEmpty else {
            guard let explicitKey, !explicitKey.isEmpty else {
                throw AuthCoreError(
                    .invalidParameter,
                    "the token has no iss claim: give the Logins key explicitly (explicitKey)"
                )
            }
            return explicitKey
        }
        let key = loginsKey(fromIssuer: issuerClaim)
        if key.hasPrefix("cognito-identity.") {
            let expected = issuer(forRegion: region)
            guard key == expected else {
                throw AuthCoreError(
                    .invalidParameter,
                    "the token was issued by \(key), but identity pools in \(region) issue tokens as \(expected): the token belongs to another region's pool"
                )
            }
        }
        if let explicitKey, !explicitKey.isEmpty, explicitKey != key {
            throw AuthCoreError(
                .invalidParameter,
                "Logins key '\(explicitKey)' does not match the token's issuer: use '\(key)'"
            )
        }
        return key
    }
}
