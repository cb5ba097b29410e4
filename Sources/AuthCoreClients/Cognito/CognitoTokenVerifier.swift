public import AuthCore

/// Verifies user-pool ID and access tokens for a backend: the RS256 signature (RFC 7515 §5.2,
/// RFC 7518 §3.3) against the pool's JSON Web Key Set, then the claims Cognito documents for
/// verification ("Verifying a JSON Web Token", Amazon Cognito Developer Guide): `iss` is the pool,
/// `token_use` is `id` or `access` as asked, `aud` (ID token) or `client_id` (access token) is one
/// of the app clients, `exp` has not passed (a small leeway for clock differences), and `iat`/`nbf`
/// are not in the future.
///
/// The key set is fetched from `<pool endpoint>/<poolId>/.well-known/jwks.json` at the first use and
/// cached; a token naming a `kid` the cache lacks makes one refetch (at most one per
/// ``minimumRefetchInterval``, so a flood of forged `kid`s cannot turn into a flood of fetches).
/// Only `RS256` is accepted: `none`, `HS256` and any other `alg` are refused before a key is looked at.
public actor CognitoTokenVerifier {
    /// Which token is expected.
    public enum TokenUse: String, Sendable {
        /// An ID token (`token_use: id`, `aud` = client id).
        case id
        /// An access token (`token_use: access`, `client_id` = client id).
        case access
    }

    /// The region of the pool.
    public nonisolated let region: String
    /// The user pool.
    public nonisolated let userPoolId: String
    /// The app clients whose tokens are accepted.
    public nonisolated let clientIds: Set<String>
    /// The issuer tokens must carry: `https://cognito-idp.<region>.<dnsSuffix>/<poolId>`.
    public nonisolated let issuer: String
    /// Where the key set is fetched.
    public nonisolated let jwksURL: RequestURL
    /// Seconds of clock difference tolerated on `exp`, `iat` and `nbf` (default 60, at most 300).
    public nonisolated let leeway: Int64
    /// The shortest time between two key-set fetches caused by unknown `kid`s: 30 s.
    public static let minimumRefetchInterval: Int64 = 30
    /// The largest token accepted: 16 KiB.
    public static let maximumTokenBytes = 16 << 10
    nonisolated let transport: any HTTPTransport
    nonisolated let clock: any SigningClock
    nonisolated let allowInsecureHTTP: Bool

    private var keys: [String: RSAPublicKey] = [:]
    private var attemptedAt: Timestamp?
    private var inflight: Task<Void, any Error>?
    /// Key-set fetches done, for observability and tests.
    public private(set) var fetchCount = 0

    /// A verifier for the tokens of `clientIds` in `userPoolId`.
    ///
    /// - Parameters:
    ///   - region: the pool's region.
    ///   - userPoolId: the pool (`<region>_<id>`).
    ///   - clientIds: the app clients whose tokens are accepted (`aud` of ID tokens, `client_id` of access tokens).
    ///   - endpoint: the user-pool endpoint the key set is fetched from (default the region's,
    ///     ``AWSEndpoint``); the issuer checked is always Cognito's.
    ///   - transport: how the key set is fetched.
    ///   - clock: the time `exp`, `iat` and `nbf` are checked against.
    ///   - leeway: seconds of clock difference tolerated on `exp`, `iat` and `nbf`.
    ///   - allowInsecureHTTP: whether plain http may be used to a host that is not loopback.
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed pool id, region,
    ///   endpoint, or an empty client list.
    public init(
        region: String,
        userPoolId: String,
        clientIds: Set<String>,
        endpoint: String? = nil,
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        leeway: Int64 = 60,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        _ = try CognitoSRP.poolName(fromPoolId: userPoolId)
        guard !clientIds.isEmpty, !clientIds.contains("") else {
            throw AuthCoreError(.invalidParameter, "no client ids to accept")
        }
        let base = try NetworkPolicy.endpoint(
            endpoint,
            service: "cognito-idp",
            region: region,
            allowInsecureHTTP: allowInsecureHTTP
        )
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        do { jwksURL = try RequestURL(text + userPoolId + "/.well-known/jwks.json") } catch {
            throw AuthCoreError(.invalidParameter, "JWKS URL: \(error.reason)")
        }
        self.region = region
        self.userPoolId = userPoolId
        self.clientIds = clientIds
        self.issuer = "https://cognito-idp.\(region).\(AWSEndpoint.dnsSuffix(forRegion: region))/\(userPoolId)"
        self.transport = transport
        self.clock = clock
        self.leeway = Swift.min(Swift.max(0, leeway), 300)
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// Verifies `token` as a token of kind `use`; returns its claims.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` for a signature that does not
    ///   verify; `AuthCoreError.Code.expired` for an expired token;
    ///   `AuthCoreError.Code.invalidParameter` for a wrong issuer, audience, use or
    ///   algorithm, or an unknown key; `AuthCoreError.Code.malformedInput` for a token
    ///   that is not a JWS; transport and service errors of the key-set fetch.
    public func verify(_ token: String, as use: TokenUse) async throws(AuthCoreError) -> JWTClaims {
        guard token.utf8.count <= Self.maximumTokenBytes else {
            throw AuthCoreError(.inputTooLarge, "the token is longer than 16 KiB")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AuthCoreError(.malformedInput, "the token is not a JWS (header.payload.signature)")
        }
        let header: JSONObject
        do {
            header = try JSONObject(
                parsing: try Base64.decode(parts[0], alphabet: .urlSafe, field: "JWT header"),
                context: "JWT header"
            )
        } catch {
            throw AuthCoreError(.malformedInput, "the token is not a JWS: \(error.reason)")
        }
        // The algorithm first: `none` (an empty signature), `HS256` and the rest are refused as such.
        let algorithm = try? header.optionalString("alg")
        guard algorithm == "RS256" else {
            throw AuthCoreError(
                .invalidParameter,
                "the token's algorithm is \(algorithm.flatMap { $0 }.map { "'\(Self.printable(String($0.prefix(16))))'" } ?? "missing"), not RS256"
            )
        }
        let signature: [UInt8]
        do { signature = try Base64.decode(parts[2], alphabet: .urlSafe, field: "JWT signature") } catch {
            throw AuthCoreError(.signatureMismatch, "the token's signature is not Base64url: \(error.reason)")
        }
        guard let kid = try? header.optionalString("kid"), !kid.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the token names no key (kid)")
        }
        let key = try await key(named: kid)
        let signedPart = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard try key.isValidSignature(signature, for: signedPart, hash: .sha256) else {
            throw AuthCoreError(
                .signatureMismatch,
                "the token's signature does not verify with the pool's key \(Self.printable(kid))"
            )
        }
        let claims = try JWTClaims(token: token)
        try check(claims, as: use)
        return claims
    }

    private func check(_ claims: JWTClaims, as use: TokenUse) throws(AuthCoreError) {
        guard claims.issuer == issuer else {
            throw AuthCoreError(
                .invalidParameter,
                "the token was issued by \(claims.issuer.map { "'\(Self.printable($0))'" } ?? "nobody"), not \(issuer)"
            )
        }
        guard claims.string("token_use") == use.rawValue else {
            throw AuthCoreError(
                .invalidParameter,
                "the token is not an \(use.rawValue) token (token_use \(claims.string("token_use").map(Self.printable) ?? "missing"))"
            )
        }
        let audience = use == .id ? claims.string("aud") : claims.string("client_id")
        guard let audience, clientIds.contains(audience) else {
            throw AuthCoreError(
                .invalidParameter,
                "the token was issued to another app client (\(use == .id ? "aud" : "client_id"))"
            )
        }
        let now = clock.now()
        guard let expires = claims.time("exp") else {
            throw AuthCoreError(.invalidParameter, "the token has no valid exp claim")
        }
        guard now < expires.adding(seconds: leeway) else {
            throw AuthCoreError(.expired, "the token expired at \(expires.iso8601)")
        }
        for name in ["iat", "nbf"] where claims.has(name) {
            guard let time = claims.time(name) else {
                throw AuthCoreError(.invalidParameter, "the token's \(name) is not a valid time")
            }
            if now.adding(seconds: leeway) < time {
                throw AuthCoreError(.invalidParameter, "the token's \(name) \(time.iso8601) is in the future")
            }
        }
    }

    // MARK: - Keys

    private func key(named kid: String) async throws(AuthCoreError) -> RSAPublicKey {
        if let key = keys[kid] { return key }
        let unknown = AuthCoreError(
            .invalidParameter,
            "the token names a key (\(Self.printable(kid))) the pool's key set does not have"
        )
        // At most one fetch per interval, counted from each attempt (a failing endpoint too).
        if inflight == nil, let attemptedAt, attemptedAt.seconds(until: clock.now()) < Self.minimumRefetchInterval {
            throw unknown
        }
        let task = inflight ?? startFetch()
        _ = try await awaitResult(of: task, describing: "the key set fetch")
        guard let key = keys[kid] else { throw unknown }
        return key
    }

    /// Starts the one fetch; the task itself stores its answer and clears `inflight` when it ends, so
    /// a waiter that gives up (cancelled) neither loses the answer nor lets a second fetch start.
    private func startFetch() -> Task<Void, any Error> {
        attemptedAt = clock.now()
        let task = Task { try await self.fetchAndStore() }
        inflight = task
        return task
    }

    private func fetchAndStore() async throws {
        defer { inflight = nil }
        let fetched = try await Self.fetchKeys(jwksURL, transport: transport, allowInsecureHTTP: allowInsecureHTTP)
        keys = fetched
        fetchCount += 1
        AuthCoreLog.log(
            .info,
            "authcore.jwks",
            "JWKS fetched",
            ["url": jwksURL.origin + jwksURL.path, "keys": String(fetched.count), "fetches": String(fetchCount)]
        )
    }

    /// An attacker-chosen text for an error message: printable ASCII, at most 64 characters.
    /// A claim or key id for an error message (``printableText(_:limit:)``, 64 characters).
    static func printable(_ text: String) -> String { printableText(text, limit: 64) }

    /// The RSA signing keys of a JWK Set (RFC 7517 §5): entries with `kty` RSA, and `use` `sig` and
    /// `alg` RS256 when given. Other entries, and RSA entries that are malformed or unusable (a short
    /// key), are skipped: one bad entry must not make every token unverifiable. A body that is not a
    /// key set is an error.
    static func fetchKeys(
        _ url: RequestURL,
        transport: any HTTPTransport,
        allowInsecureHTTP: Bool
    ) async throws(AuthCoreError)
        -> [String: RSAPublicKey]
    {
        let request = HTTPRequest(
            method: "GET",
            url: url,
            headers: [HTTPHeader("Accept", "application/json")],
            body: [],
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes,
            allowsInsecureHTTP: allowInsecureHTTP
        )
        let response = try await transport.send(request)
        guard response.isSuccess else { throw response.serviceError() }
        let set = try JSONObject(parsing: response.body.plainBytes, context: "JWKS")
        var keys: [String: RSAPublicKey] = [:]
        for entry in try set.optionalObjectArray("keys") {
            guard (try? entry.optionalString("kty")) == "RSA" else { continue }
            if let use = try? entry.optionalString("use"), use != "sig" { continue }
            if let alg = try? entry.optionalString("alg"), alg != "RS256" { continue }
            guard let kid = try? entry.string("kid"), let nText = try? entry.string("n"),
                let eText = try? entry.string("e"),
                let n = try? Base64.decode(nText, alphabet: .urlSafe, field: "JWKS n"),
                let e = try? Base64.decode(eText, alphabet: .urlSafe, field: "JWKS e"),
                let key = try? RSAPublicKey(modulus: n, exponent: e)
            else { continue }
            keys[kid] = key
        }
        return keys
    }
}

extension CognitoTokenVerifier: CustomReflectable {
    /// The pool, clients and key-set URL (the default reflection of an actor's state is not safe to
    /// read from outside it).
    public nonisolated var customMirror: Mirror {
        Mirror(
            self,
            children: ["userPoolId": userPoolId, "clientIds": clientIds.sorted(), "jwksURL": jwksURL.absoluteString],
            displayStyle: .class
        )
    }
}
