public import AuthCore
public import AuthCoreClients

/// What `POST /cognito/developer-identity` hands a logged-in user: a Cognito identity and an OpenID
/// token from `GetOpenIdTokenForDeveloperIdentity`, with the user as the developer user identifier
/// under the pool's developer provider name, and the `Logins` key the app must use with it in
/// `GetCredentialsForIdentity` (the token's `iss` without `https://`: `cognito-identity.amazonaws.com`
/// in the regions with the global issuer, `cognito-identity.<region>.amazonaws.com` elsewhere — using
/// the global key for a regional pool is refused by the service, `Issuer doesn't match providerName`).
///
/// **Linking.** The app may send the identity id it already has (a guest identity from `GetId`), to
/// have the login linked to it (`IdentityId`). Linking someone else's identity would give the caller
/// that identity's credentials, so an identity is linked only when it is this user's or nobody's:
/// - the vendor records, in the shared store and sealed, which user each identity it handed out
///   belongs to (`authcore:identity:owner:<id>`, kept a year from the last issue): one recorded as
///   this user's is linked at once, one recorded as another user's is refused;
/// - an identity with no record (a guest identity; or a record lost with the store) is first claimed
///   for this user in the store (`SET … NX`: of two users racing for it, one gets it), then asked
///   about, signed with the developer credentials: it is linked only when `DescribeIdentity` lists no
///   login provider but this pool's developer provider and `LookupDeveloperIdentity` (one page, for
///   this identity) lists no developer user but this one — and this user when the developer provider
///   is listed. If Cognito cannot be asked, or answers for another identity, the link is refused
///   (the claim is dropped). A user may ask about at most ``maximumUnrecordedLinks`` identities the
///   server has no record of per hour (each costs two Cognito calls, which AWS throttles);
/// - whatever Cognito answers, an identity recorded as another user's is never handed out.
public struct DeveloperIdentityVendor: Sendable {
    /// The pool (`us-east-1:…`).
    public let identityPoolId: String
    /// The developer provider name configured on the pool.
    public let providerName: String
    /// The token's lifetime, 1…86400 seconds.
    public let tokenDuration: Int
    /// The pool's region.
    public let region: String
    private let client: CognitoIdentityClient
    private let credentials: Credentials
    private let owners: IdentityOwners
    private let store: any HandshakeStore

    /// The identities without a record one user may ask to link per hour.
    public static let maximumUnrecordedLinks = 10

    /// A vendor calling `client` signed with the developer's `credentials`, recording owners in `store`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for an empty pool or provider name or a
    ///   duration outside 1…86400.
    public init(
        client: CognitoIdentityClient,
        identityPoolId: String,
        providerName: String,
        tokenDuration: Int = CognitoIdentityClient.defaultTokenDuration,
        credentials: Credentials,
        store: any HandshakeStore,
        keys: ServerKeys
    ) throws(AuthCoreError) {
        guard !identityPoolId.isEmpty, !providerName.isEmpty else {
            throw AuthCoreError(.invalidParameter, "the identity pool id and provider name must be non-empty")
        }
        guard CognitoIdentityClient.tokenDurationRange.contains(tokenDuration) else {
            throw AuthCoreError(.invalidParameter, "tokenDuration \(tokenDuration) is outside 1...86400 seconds")
        }
        self.client = client
        self.identityPoolId = identityPoolId
        self.providerName = providerName
        self.tokenDuration = tokenDuration
        self.region = client.region
        self.credentials = credentials
        self.owners = IdentityOwners(store: store, key: keys.records)
        self.store = store
    }

    /// What the app gets.
    public struct Issued: Sendable {
        /// The identity.
        public let identityId: String
        /// The OpenID token (secret).
        public let token: String
        /// The `Logins` key for the token.
        public let loginsKey: String
    }

    /// The identity id and token for `username`, linked to `identityId` when given.
    ///
    /// - Throws: `AuthCoreError.Code.notPermitted` when `identityId` belongs to another user;
    ///   `.invalidParameter` for an identity id that is not `<region>:<id>`; what
    ///   `CognitoIdentityClient.developerToken` throws.
    public func token(for username: String, linking identityId: String? = nil) async throws(AuthCoreError) -> Issued {
        let user = Array(username.utf8)
        if let identityId {
            guard Self.isIdentityId(identityId) else {
                throw AuthCoreError(.invalidParameter, "identityId is not <region>:<id>")
            }
            switch try await owners.owner(of: identityId) {
            case user?: break
            case _?: throw AuthCoreError(.notPermitted, "that identity belongs to another user")
            case nil: try await claimUnowned(identityId, for: username)
            }
        }
        let (issuedId, token) = try await client.developerToken(
            identityPoolId: identityPoolId,
            providerName: providerName,
            userIdentifier: username,
            identityId: identityId,
            tokenDuration: tokenDuration,
            credentials: credentials
        )
        // Whatever was linked before (a race, a record restored later): another user's identity is not handed out.
        if let owner = try await owners.owner(of: issuedId), owner != user {
            throw AuthCoreError(.notPermitted, "that identity belongs to another user")
        }
        try await owners.record(owner: user, of: issuedId)
        let loginsKey = try CognitoIdentityIssuer.loginsKey(
            for: token,
            explicitKey: CognitoIdentityIssuer.issuer(forRegion: region),
            region: region
        )
        return Issued(identityId: issuedId, token: token, loginsKey: loginsKey)
    }

    /// An identity with no record: claimed for this user in the store first, then linked only if
    /// Cognito says it has no login but, at most, this user's developer identifier; the claim is
    /// dropped when it is refused.
    private func claimUnowned(_ identityId: String, for username: String) async throws(AuthCoreError) {
        let checks = try await store.increment(
            "authcore:identity:checks:\(UserGeneration.userKey(username))",
            window: .seconds(3600)
        )
        guard checks <= Self.maximumUnrecordedLinks else {
            throw AuthCoreError(.notPermitted, "too many identities to link in an hour; try again later")
        }
        let user = Array(username.utf8)
        guard try await owners.claim(identityId, for: user) else {
            throw AuthCoreError(.notPermitted, "that identity belongs to another user")
        }
        do throws(AuthCoreError) {
            let described = try await client.describeIdentity(identityId: identityId, credentials: credentials)
            let ours = described.logins.contains { $0.utf8.elementsEqual(providerName.utf8) }
            guard described.identityId.utf8.elementsEqual(identityId.utf8),
                described.logins.allSatisfy({ $0.utf8.elementsEqual(providerName.utf8) })
            else { throw AuthCoreError(.notPermitted, "that identity belongs to another user") }
            let developers = try await client.lookupDeveloperIdentity(
                identityPoolId: identityPoolId,
                identityId: identityId,
                credentials: credentials
            )
            guard developers.identityId.utf8.elementsEqual(identityId.utf8), developers.nextToken == nil,
                developers.developerUserIdentifiers.allSatisfy({ $0.utf8.elementsEqual(user) }),
                !ours || developers.developerUserIdentifiers.contains(where: { $0.utf8.elementsEqual(user) })
            else { throw AuthCoreError(.notPermitted, "that identity belongs to another user") }
        } catch {
            try? await owners.release(identityId, from: user)
            throw error
        }
    }

    /// Cognito's identity id: `<region>:<uuid>`, 1…55 bytes of `[A-Za-z0-9-]` and one `:`.
    static func isIdentityId(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...55).contains(bytes.count), bytes.filter({ $0 == UInt8(ascii: ":") }).count == 1,
            bytes.first != UInt8(ascii: ":"),
            bytes.last != UInt8(ascii: ":")
        else { return false }
        return bytes.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x3A
        }
    }
}

/// Which user each identity the server handed out belongs to: `authcore:identity:owner:<id>` →
/// the username, sealed (``StoreSeal``, the store key as associated data), kept a year from the
/// last issue. A record that does not open (forged, moved) counts as another user's.
struct IdentityOwners: Sendable {
    let store: any HandshakeStore
    let key: SecureBytes
    static let lifetime: Duration = .seconds(365 * 86_400)
    static let unreadable: [UInt8] = [0]

    func owner(of identityId: String) async throws(AuthCoreError) -> [UInt8]? {
        let place = Self.key(identityId)
        guard let sealed = try await store.value(place) else { return nil }
        guard let name = try? StoreSeal.open(sealed, key: key, associatedData: Array(place.utf8)) else {
            return Self.unreadable
        }
        return name.withUnsafeBytes { Array($0) }
    }

    /// Claims a record-less identity for `owner` (`SET … NX`); false when a record is there already
    /// and names someone else.
    func claim(_ identityId: String, for owner: [UInt8]) async throws(AuthCoreError) -> Bool {
        let place = Self.key(identityId)
        if try await store.insert(
            try StoreSeal.seal(SecureBytes(owner), key: key, associatedData: Array(place.utf8)),
            forKey: place,
            lifetime: Self.lifetime
        ) {
            return true
        }
        return try await self.owner(of: identityId) == owner
    }

    /// Drops `owner`'s claim (a refused link); another owner's record is left.
    func release(_ identityId: String, from owner: [UInt8]) async throws(AuthCoreError) {
        guard try await self.owner(of: identityId) == owner else { return }
        try await store.remove(Self.key(identityId))
    }

    /// Records `owner` (kept a year from now); a record of another owner is left as it is.
    func record(owner: [UInt8], of identityId: String) async throws(AuthCoreError) {
        let place = Self.key(identityId)
        let current = try await self.owner(of: identityId)
        guard current == nil || current == owner else { return }
        try await store.put(
            try StoreSeal.seal(SecureBytes(owner), key: key, associatedData: Array(place.utf8)),
            forKey: place,
            lifetime: Self.lifetime
        )
    }

    static func key(_ identityId: String) -> String { "authcore:identity:owner:\(Hex.encode(Array(identityId.utf8)))" }
}
