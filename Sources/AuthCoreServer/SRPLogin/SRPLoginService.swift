public import AuthCore

/// The two round trips of an RFC 5054 SRP-6a login as a service that any number of instances can
/// share through a ``HandshakeStore``:
///
/// 1. ``begin(username:clientPublicValue:origin:)`` takes `A` and returns a login id, the salt and
///    `B` (RFC 5054 §2.5.3). The server's secret `b` leaves the process only sealed (AES-256-GCM,
///    the login id as associated data) inside the store, with a lifetime.
/// 2. ``finish(loginId:clientProof:origin:issuing:)`` takes the state out once (a finished, expired or
///    replayed id finds nothing), checks `M1` (RFC 2945 §3, constant time) and returns `M2`, the
///    user and a device token for the client's next logins.
///
/// **Unknown users** get a salt and a verifier derived from the server secret (HKDF-SHA256, RFC
/// 5869), the same on every instance and every call, with the salt length of the verifier table
/// (``VerifierStore/uniformSaltByteCount``). The decoy is derived for every login, enrolled or not,
/// and the stored verifier or the decoy is then used with the same work (`make ct-count`'s
/// `login-begin` and `login-finish` gates: equal instruction counts for an enrolled and an unknown
/// name of one length), so neither the answers nor the work tell who exists; an unknown user's
/// login fails at the proof, as a wrong password does.
///
/// **Failures** are counted in the store before each proof is checked, in the step that takes the
/// login's state (a success clears the client's own count and takes its attempt back from the
/// user-wide one), across instances, as ``SRPLoginPolicy`` describes: per user and client address,
/// per user and device token, and per user for every client without a token. An attempt over a
/// limit is refused before its proof is checked; a refused client gets `notPermitted` at `begin`
/// and `finish` until its window ends; an outsider's guesses never block a client that shows one
/// of the user's device tokens.
///
/// **Round trips**: on Redis, `begin`'s store work is one round trip and `finish`'s two (see each).
///
/// Usernames are compared as exact UTF-8 bytes everywhere (lookup, counters, decoys, proofs): give
/// the service the canonical form your app enrols (for example NFC, lower-cased).
///
/// Trust: one-time use rests on the store (`GETDEL`) and on the expiry sealed in each state. A
/// store that is rolled back, or an attacker who can write to it, can replay a taken state within
/// its lifetime or clear counters (it cannot forge or move a state, or read the secret in it; the
/// state's clear header, ``LoginStateHeader``, shows the username's SHA-256, the device id and its
/// token's generation). A `begin` refused for a lockout has done its work first (the refusal comes
/// with the insert, in one round trip): the address rate limits bound what a refused client costs.
public struct SRPLoginService: Sendable {
    /// The SRP parameters (group, hash, private-value size).
    public let configuration: SRPConfiguration
    /// The limits.
    public let policy: SRPLoginPolicy
    /// The length of unknown users' decoy salts: the table's one salt length.
    public let decoySaltByteCount: Int
    private let verifiers: any VerifierStore
    private let handshakes: any HandshakeStore
    private let keys: ServerKeys
    private let random: any SecureRandomGenerator
    private let clock: any SigningClock

    /// A service over `verifiers` and `handshakes`, keyed by `keys` (the same on every instance).
    public init(
        configuration: SRPConfiguration,
        policy: SRPLoginPolicy = SRPLoginPolicy(),
        verifiers: any VerifierStore,
        handshakes: any HandshakeStore,
        keys: ServerKeys,
        random: any SecureRandomGenerator = SystemRandom(),
        clock: any SigningClock = SystemClock()
    ) {
        self.configuration = configuration
        self.policy = policy
        self.verifiers = verifiers
        self.handshakes = handshakes
        self.keys = keys
        self.random = random
        self.clock = clock
        decoySaltByteCount = verifiers.uniformSaltByteCount ?? configuration.saltByteCount
    }

    /// A service keyed by `serverSecret` (at least 32 bytes, the same on every instance; from the
    /// environment, never from a file in the repository).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a secret shorter than 32 bytes.
    public init(
        configuration: SRPConfiguration,
        policy: SRPLoginPolicy = SRPLoginPolicy(),
        verifiers: any VerifierStore,
        handshakes: any HandshakeStore,
        serverSecret: SecureBytes,
        random: any SecureRandomGenerator = SystemRandom(),
        clock: any SigningClock = SystemClock()
    ) throws(AuthCoreError) {
        self.init(
            configuration: configuration,
            policy: policy,
            verifiers: verifiers,
            handshakes: handshakes,
            keys: try ServerKeys(serverSecret: serverSecret),
            random: random,
            clock: clock
        )
    }

    private var server: SRPServer { SRPServer(configuration: configuration) }

    /// Checks that the service's store answers now (the server's readiness).
    public func checkStore() async throws(AuthCoreError) { try await handshakes.ping() }

    /// The first round trip: its store work is one round trip on Redis (the lockout check and the
    /// state's insert, ``HandshakeStore/insert(_:forKey:lifetime:admittedBy:)``).
    ///
    /// - Throws: `AuthCoreError` `.invalidParameter` for an empty or over-long username,
    ///   `.unsafePublicValue` for an `A` that is not in 1…N−1, `.notPermitted` while this origin is
    ///   refused for the user, and the store's errors (then nothing was stored).
    public func begin(
        username: String,
        clientPublicValue: [UInt8],
        origin: LoginOrigin = LoginOrigin()
    ) async throws(AuthCoreError)
        -> SRPLoginChallenge
    {
        try checkUsername(username)
        let a = try configuration.group.validatedPublicValue(clientPublicValue, field: "A")
        let now = clock.now()
        let device = origin.deviceToken.flatMap {
            DeviceTokens.open(
                $0,
                username: Array(username.utf8),
                nowMilliseconds: Self.milliseconds(now),
                key: keys.deviceTokens
            )
        }
        let stored = try await verifiers.lookup(username)
        let loginId = try random.secureBytes(count: 16).withUnsafeBytes { Hex.encode($0) }
        // The device goes with its token's generation; whether it is trusted is decided in the store
        // against the user's current generation, now and again at `finish` (a device token from
        // before the user's last "sign out everywhere" no longer counts).
        let (challenge, sealed) = try prepareChallenge(
            username: username,
            clientPublicValue: a,
            stored: stored,
            loginId: loginId,
            deviceId: device?.deviceId,
            deviceGeneration: device?.generation ?? 0,
            now: now
        )
        let header = LoginStateHeader(
            username: username,
            deviceId: device?.deviceId,
            deviceGeneration: device?.generation ?? 0
        )
        let counting = counting(origin.address)
        let admission = LoginAdmission(
            generationKey: UserGeneration.key(username),
            presentedGeneration: device?.generation,
            trusted: device == nil ? [] : counting.counters(header, trusted: true),
            untrusted: counting.counters(header, trusted: false)
        )
        switch try await handshakes.insert(
            header.bytes + sealed,
            forKey: Self.handshakeKey(loginId),
            lifetime: policy.handshakeLifetime,
            admittedBy: admission
        ) {
        case .inserted: return challenge
        case .refused: throw Self.refused
        case .keyInUse:
            // 128 random bits collided (the generator is broken), or the script ran twice: its first
            // reply was lost with a broken connection and the store sent it again.
            throw AuthCoreError(.randomFailure, "a fresh login id was already in use")
        }
    }

    /// The second round trip: its store work is two round trips on Redis, one before the proof is
    /// checked (the state taken, the user's generation read and the attempt counted,
    /// ``HandshakeStore/takeLogin(_:counting:)``) and one after a success (the counts settled and
    /// `sessions`' new session stored, ``HandshakeStore/settle(remove:decrement:keepAlive:insert:)``).
    ///
    /// - Parameters:
    ///   - loginId: the id `begin` gave.
    ///   - clientProof: `M1`.
    ///   - origin: the client's address and notes (its device token was shown at `begin`).
    ///   - sessions: where the new session is issued (``SRPLoginSuccess/session``), in this
    ///     service's store (give both the same store); nil for none.
    /// - Throws: `AuthCoreError` `.expired` for a login id that is unknown, expired or already used;
    ///   `.proofMismatch` for a wrong `M1` (counted as a failure); `.invalidLength` for an `M1` of
    ///   the wrong size (counted too); `.notPermitted` while this origin is refused for the user;
    ///   `.signatureMismatch` for a state this server did not seal for this id, or stored with a
    ///   header that is not the state's.
    public func finish(
        loginId: String,
        clientProof: [UInt8],
        origin: LoginOrigin = LoginOrigin(),
        issuing sessions: AppSessions? = nil
    )
        async throws(AuthCoreError) -> SRPLoginSuccess
    {
        guard loginId.utf8.count == 32, loginId.utf8.allSatisfy(Hex.isLowerDigit) else {
            throw AuthCoreError(.expired, "login id is unknown, expired or already used")
        }
        // Every proof checked is counted first, as an attempt (a success clears its count): counting
        // only failures, after the check, would let many logins begun at once all be checked before
        // the first failure is recorded.
        let counting = counting(origin.address)
        guard let taken = try await handshakes.takeLogin(Self.handshakeKey(loginId), counting: counting) else {
            throw AuthCoreError(.expired, "login id is unknown, expired or already used")
        }
        guard taken.hasHeader, let header = LoginStateHeader(parsing: taken.value) else {
            throw AuthCoreError(.signatureMismatch, "a stored login state has no header")
        }
        let state = try openState(Array(taken.value.dropFirst(LoginStateHeader.byteCount)), loginId: loginId)
        // The header is the store's word: it must say what the sealed state says.
        guard
            header
                == LoginStateHeader(
                    username: state.username,
                    deviceId: state.deviceId,
                    deviceGeneration: state.deviceGeneration
                )
        else {
            throw AuthCoreError(.signatureMismatch, "a stored login state's header is not its own")
        }
        origin.notes?.user = state.username
        guard Self.milliseconds(clock.now()) < state.expiresAtMilliseconds else {
            throw AuthCoreError(.expired, "login id is unknown, expired or already used")
        }
        let counters = counting.counters(header, trusted: taken.trusted)
        guard taken.counts.count == counters.count, zip(taken.counts, counters).allSatisfy({ $0 <= $1.limit }) else {
            throw Self.refused
        }
        // A proof of the wrong size was counted too (the state is gone either way).
        guard clientProof.count == configuration.hash.byteCount else {
            throw AuthCoreError(
                .invalidLength,
                "M1 must be \(configuration.hash.byteCount) bytes, got \(clientProof.count)"
            )
        }
        let session = try verifiedProof(
            state: state,
            clientProof: clientProof,
            stored: try await verifiers.lookup(state.username)
        )
        // The generation read with the state (a garbled one is carried as 0, which no later reading of
        // that counter, garbled still or restored, lets count).
        let generation = UserGeneration.parse(taken.generation) ?? 0
        var deviceId = taken.trusted ? state.deviceId ?? [] : []
        if deviceId.isEmpty {
            deviceId = try random.secureBytes(count: DeviceTokens.deviceIdByteCount).withUnsafeBytes { Array($0) }
        }
        let token = try DeviceTokens.issue(
            username: Array(state.username.utf8),
            deviceId: deviceId,
            generation: generation,
            expiresAtMilliseconds: Self.milliseconds(clock.now().adding(policy.deviceTokenLifetime)),
            key: keys.deviceTokens
        )
        let prepared = try sessions?.prepare(for: state.username, generation: generation)
        // A success is no guess: the client's own count is cleared, and the attempt taken back from
        // the user-wide one (which keeps counting everyone else's failures). A user who signed out
        // everywhere has a generation counter: it is kept alive as long as the device token and the
        // session given now (else, once it expired and a later sign-out restarted it, their
        // generation would count again). With the session's insert, in one round trip on Redis.
        let kept = Swift.max(policy.deviceTokenLifetime, sessions?.lifetime ?? .zero)
        let settled = try await handshakes.settle(
            remove: counters.prefix(1).map(\.key),
            decrement: counters.dropFirst().map(\.key),
            keepAlive: taken.generation == nil ? [] : [(UserGeneration.key(state.username), kept)],
            insert: prepared.map { ($0.key, $0.value, sessions?.lifetime ?? .zero) }
        )
        guard settled else { throw AuthCoreError(.randomFailure, "a fresh session token was already in use") }
        return SRPLoginSuccess(
            username: state.username,
            serverProof: session.serverProof,
            sessionKey: session.sessionKey,
            deviceToken: token,
            session: prepared?.session
        )
    }

    // MARK: - The work on secrets (synchronous: the instruction-count gate runs it)

    /// `B` for the stored verifier or the decoy, and the sealed state, with the same work for both.
    package func prepareChallenge(
        username: String,
        clientPublicValue a: BigUInt,
        stored: VerifierLookup,
        loginId: String,
        deviceId: [UInt8]?,
        deviceGeneration: UInt64 = 0,
        now: Timestamp
    ) throws(AuthCoreError) -> (SRPLoginChallenge, sealed: [UInt8]) {
        let verifier = try chosenVerifier(stored, for: username)
        let ephemeral = try server.makeEphemeral(verifier: verifier, random: random)
        let b = ephemeral.serverPublicValue
        let state = SealedHandshake(
            username: username,
            clientPublicValue: try a.bigEndianBytes(paddedTo: configuration.group.byteCount),
            expiresAtMilliseconds: Self.milliseconds(now.adding(policy.handshakeLifetime)),
            deviceGeneration: deviceGeneration,
            deviceId: deviceId,
            ephemeralState: ephemeral.exportedState()
        )
        let sealed = try state.sealed(key: try loginKey(loginId), loginId: loginId)
        let challenge = SRPLoginChallenge(
            loginId: loginId,
            salt: verifier.salt,
            serverPublicValue: try b.bigEndianBytes(paddedTo: configuration.group.byteCount)
        )
        return (challenge, sealed)
    }

    /// The state `finish` took from the store, opened.
    ///
    /// - Throws: `.signatureMismatch` for a state not sealed for this id by this server's secret.
    package func openState(_ stored: [UInt8], loginId: String) throws(AuthCoreError) -> SealedHandshake {
        try SealedHandshake.open(
            stored,
            key: try loginKey(loginId),
            loginId: loginId,
            publicValueByteCount: configuration.group.byteCount,
            stateByteCount: server.exportedEphemeralStateByteCount
        )
    }

    /// `M1` checked against the stored verifier or the decoy, with the same work for both.
    package func verifiedProof(
        state: SealedHandshake,
        clientProof: [UInt8],
        stored: VerifierLookup
    ) throws(AuthCoreError) -> SRPServerSession {
        let verifier = try chosenVerifier(stored, for: state.username)
        let ephemeral = try server.importEphemeral(state.ephemeralState)
        return try server.verifyClient(
            username: Array(state.username.utf8),
            verifier: verifier,
            clientPublicValue: state.clientPublicValue,
            clientProof: clientProof,
            ephemeral: ephemeral
        )
    }

    /// The stored verifier for an enrolled user, else the decoy: the decoy is derived either way,
    /// and the two are chosen between byte by byte under a mask (no branch on whether the user exists).
    ///
    /// - Throws: `.unsupported` (a deployment error, answered 500) for a stored salt whose length is
    ///   not the decoys': the length would tell enrolled users from unknown ones.
    func chosenVerifier(_ stored: VerifierLookup, for username: String) throws(AuthCoreError) -> SRPVerifier {
        let decoy = try decoyVerifier(for: username)
        let width = configuration.group.byteCount
        // Equal lengths first: a store with one salt length (the verifier table) never branches on the user.
        // The stored verifier at N's byte length (a store may hand out sign- or limb-padded bytes); one
        // that does not fit below N's length counts as a shape mismatch.
        let atWidth = configuration.verifierAtModulusWidth(stored.verifier)
        let sameShape = stored.verifier.salt.count == decoy.salt.count && atWidth != nil
        guard sameShape || !stored.isEnrolled else {
            throw AuthCoreError(
                .unsupported,
                "a stored salt is \(stored.verifier.salt.count) bytes, the decoys' \(decoy.salt.count), or a stored verifier is wider than N: use one salt length and verifiers below N"
            )
        }
        let enrolled: UInt8 = stored.isEnrolled ? 1 : 0  // a select, not a branch
        let mask = 0 &- (enrolled & (sameShape ? 1 : 0))
        let storedSalt = sameShape ? stored.verifier.salt : decoy.salt
        // Both at N's byte length, chosen between byte by byte.
        let storedValue = atWidth?.verifierBytes ?? decoy.verifierBytes
        let salt = zip(storedSalt, decoy.salt).map { ($0 & mask) | ($1 & ~mask) }
        let value = SecureBytes(count: width) { out in
            storedValue.withUnsafeBytes { stored in
                decoy.verifierBytes.withUnsafeBytes { decoyBytes in
                    for index in 0..<width { out[index] = (stored[index] & mask) | (decoyBytes[index] & ~mask) }
                }
            }
        }
        return SRPVerifier(salt: salt, verifierBytes: value)
    }

    /// A salt and a verifier below N derived from the decoy key and the username: HKDF-Expand
    /// (RFC 5869 §2.3) with `info = "unknown user " ‖ username`.
    package func decoyVerifier(for username: String) throws(AuthCoreError) -> SRPVerifier {
        let byteCount = configuration.group.byteCount
        let saltCount = decoySaltByteCount
        let material = try keys.decoy.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
            try (Array("unknown user ".utf8) + Array(username.utf8)).withUnsafeBytesTyped {
                (info) throws(AuthCoreError) -> SecureBytes in
                try HashAlgorithm.sha256.hkdfExpand(
                    pseudoRandomKey: key,
                    info: info,
                    outputByteCount: saltCount + byteCount
                )
            }
        }
        // Below N: the bits from N's top bit up are cleared (N's top bit is set); bit 1 is set, so it
        // is at least 2 (a verifier is 2…N−2).
        let topBits = configuration.group.modulus.bitWidth - 8 * (byteCount - 1)  // 1...8 bits in N's first byte
        let firstByteMask = UInt8(truncatingIfNeeded: (1 << (topBits - 1)) - 1)
        let value = SecureBytes(count: byteCount) { out in
            material.withUnsafeBytes { bytes in
                for index in 0..<byteCount { out[index] = bytes[saltCount + index] }
            }
            out[0] &= firstByteMask
            out[byteCount - 1] |= 0x02
        }
        return SRPVerifier(salt: material.withUnsafeBytes { Array($0[..<saltCount]) }, verifierBytes: value)
    }

    // MARK: - Failure counting

    /// How this service counts failures for a client at `address`: per user and device
    /// (`authcore:srp:failures:<user>:device:<hex>`) for a trusted client, else per user and address
    /// (`…:address:<network>`, IPv6 clients per /64, the block one subscriber holds) and per user
    /// (`…:untrusted`).
    func counting(_ address: ClientAddress?) -> LoginCounting {
        let network = address.map { Hex.encode($0.network(prefixBits: $0.isIPv4 ? 32 : 64)) } ?? "local"
        return LoginCounting(
            generationPrefix: UserGeneration.keyPrefix,
            failurePrefix: "authcore:srp:failures:",
            deviceSuffix: ":device:",
            addressSuffix: ":address:\(network)",
            untrustedSuffix: ":untrusted",
            window: policy.failureWindow,
            maximumFailures: policy.maximumFailures,
            maximumFailuresPerUser: policy.maximumFailuresPerUser
        )
    }

    static let refused = AuthCoreError(.notPermitted, "too many failed logins for this user from here; try again later")

    // MARK: - Pieces

    /// The key that seals one login's state: HKDF-Expand of the sealing key with the login id
    /// (RFC 5869 §2.3). One key seals one state, so even a repeated nonce could not repeat under a
    /// key; the nonces come from the system generator whatever `random` is.
    private func loginKey(_ loginId: String) throws(AuthCoreError) -> SecureBytes {
        try keys.handshakeSealing.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
            try Array("login \(loginId)".utf8).withUnsafeBytesTyped { (info) throws(AuthCoreError) -> SecureBytes in
                try HashAlgorithm.sha256.hkdfExpand(
                    pseudoRandomKey: key,
                    info: info,
                    outputByteCount: AES256GCM.keyByteCount
                )
            }
        }
    }

    private func checkUsername(_ username: String) throws(AuthCoreError) {
        let count = username.utf8.count
        guard count >= 1, count <= policy.maximumUsernameBytes, count <= 65_535 else {
            throw AuthCoreError(.invalidParameter, "username must be 1…\(policy.maximumUsernameBytes) bytes")
        }
    }

    static func handshakeKey(_ loginId: String) -> String { "authcore:srp:handshake:\(loginId)" }

    static func milliseconds(_ time: Timestamp) -> Int64 {
        time.secondsSince1970.multipliedReportingOverflow(by: 1000).partialValue + Int64(time.nanoseconds / 1_000_000)
    }
}
