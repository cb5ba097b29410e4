public import AuthCore

/// The two round trips of an RFC 5054 SRP-6a login as a service that any number of instances can
/// share through a ``HandshakeStore``:
///
/// 1. ``begin(username:clientPublicValue:)`` takes `A` and returns a login id, the salt and `B`
///    (RFC 5054 §2.5.3). The server's secret `b` leaves the process only sealed (AES-256-GCM, the
///    login id as associated data) inside the store, with a lifetime.
/// 2. ``finish(loginId:clientProof:)`` takes the state out once (a finished, expired or replayed
///    id finds nothing), checks `M1` (RFC 2945 §3, constant time) and returns `M2` and the user.
///
/// Unknown users get a salt and a verifier derived from the server secret (HKDF-SHA256, RFC 5869),
/// so `begin` answers them as it answers real users and their logins fail only at the proof (decoy
/// salts are `SRPConfiguration.saltByteCount` long: enrol users with that length). Proof attempts
/// are counted per user in the store before each check, across instances, and a success clears the
/// count; after ``SRPLoginPolicy/maximumFailures`` within ``SRPLoginPolicy/failureWindow`` the
/// user's logins are refused (`notPermitted`) until the window ends.
///
/// Usernames are compared as exact UTF-8 bytes everywhere (lookup, counters, decoys, proofs): give
/// the service the canonical form your app enrols (for example NFC, lower-cased), and a
/// ``VerifierStore`` that matches bytes exactly, or equivalent spellings get separate counters.
///
/// Trust: one-time use rests on the store (`GETDEL`) and on the expiry sealed in each state. A
/// store that is rolled back, or an attacker who can write to it, can replay a taken state within
/// its lifetime or clear counters (it cannot forge, move or read one): keep the store private,
/// and treat a login as a key agreement (use `K`), not as a bearer token.
public struct SRPLoginService: Sendable {
    /// The SRP parameters (group, hash, private-value size).
    public let configuration: SRPConfiguration
    /// The limits.
    public let policy: SRPLoginPolicy
    private let verifiers: any VerifierStore
    private let handshakes: any HandshakeStore
    private let sealingKey: SecureBytes
    private let decoyKey: SecureBytes
    private let random: any SecureRandomGenerator
    private let clock: any SigningClock

    /// A service over `verifiers` and `handshakes`, keyed by `serverSecret` (at least 32 bytes, the
    /// same on every instance; from the environment, never from a file in the repository).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a secret shorter than 32 bytes.
    public init(
        configuration: SRPConfiguration, policy: SRPLoginPolicy = SRPLoginPolicy(), verifiers: any VerifierStore,
        handshakes: any HandshakeStore, serverSecret: SecureBytes, random: any SecureRandomGenerator = SystemRandom(),
        clock: any SigningClock = SystemClock()
    ) throws(AuthCoreError) {
        guard serverSecret.count >= 32 else { throw AuthCoreError(.invalidParameter, "the server secret must be at least 32 bytes") }
        self.configuration = configuration
        self.policy = policy
        self.verifiers = verifiers
        self.handshakes = handshakes
        self.random = random
        self.clock = clock
        // Two independent keys from one secret (RFC 5869 §3.1: one PRK, distinct `info`).
        let prk = serverSecret.withUnsafeBytes { secret in
            Array("AuthCore SRP login service".utf8).withUnsafeBytes { salt in HashAlgorithm.sha256.hkdfExtract(inputKeyMaterial: secret, salt: salt) }
        }
        func expand(_ info: String, _ count: Int) throws(AuthCoreError) -> SecureBytes {
            try prk.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
                try Array(info.utf8).withUnsafeBytesTyped { (info) throws(AuthCoreError) -> SecureBytes in
                    try HashAlgorithm.sha256.hkdfExpand(pseudoRandomKey: key, info: info, outputByteCount: count)
                }
            }
        }
        sealingKey = try expand("handshake sealing key", AES256GCM.keyByteCount)
        decoyKey = try expand("unknown-user decoy key", 32)
    }

    private var server: SRPServer { SRPServer(configuration: configuration) }

    /// The first round trip.
    ///
    /// - Throws: `AuthCoreError` `.invalidParameter` for an empty or over-long username,
    ///   `.unsafePublicValue` for an `A` that is not in 1…N−1, `.notPermitted` while the user is
    ///   locked out, and the store's errors (then nothing was stored).
    public func begin(username: String, clientPublicValue: [UInt8]) async throws(AuthCoreError) -> SRPLoginChallenge {
        try checkUsername(username)
        let a = try configuration.group.validatedPublicValue(clientPublicValue, field: "A")
        try await refuseIfLockedOut(username)
        let verifier = try await verifierOrDecoy(for: username)
        let ephemeral = try server.makeEphemeral(verifier: verifier, random: random)
        let b = ephemeral.serverPublicValue
        let loginId = try random.secureBytes(count: 16).withUnsafeBytes { Hex.encode($0) }
        let expiry = clock.now().adding(policy.handshakeLifetime)
        let state = SealedHandshake(
            username: username, clientPublicValue: try a.bigEndianBytes(paddedTo: configuration.group.byteCount),
            expiresAtMilliseconds: Self.milliseconds(expiry), ephemeralState: ephemeral.exportedState())
        let sealed = try state.sealed(key: try loginKey(loginId), loginId: loginId, random: SystemRandom())
        guard try await handshakes.insert(sealed, forKey: Self.handshakeKey(loginId), lifetime: policy.handshakeLifetime) else {
            // 128 random bits collided: the generator is broken, not the caller.
            throw AuthCoreError(.randomFailure, "a fresh login id was already in use")
        }
        return SRPLoginChallenge(loginId: loginId, salt: verifier.salt, serverPublicValue: try b.bigEndianBytes(paddedTo: configuration.group.byteCount))
    }

    /// The second round trip.
    ///
    /// - Throws: `AuthCoreError` `.expired` for a login id that is unknown, expired or already used;
    ///   `.proofMismatch` for a wrong `M1` (counted as a failure for the user); `.invalidLength` for
    ///   an `M1` of the wrong size; `.notPermitted` while the user is locked out.
    public func finish(loginId: String, clientProof: [UInt8]) async throws(AuthCoreError) -> SRPLoginSuccess {
        guard loginId.utf8.count == 32, loginId.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let stored = try await handshakes.take(Self.handshakeKey(loginId))
        else { throw AuthCoreError(.expired, "login id is unknown, expired or already used") }
        let state = try SealedHandshake.open(
            stored, key: try loginKey(loginId), loginId: loginId, publicValueByteCount: configuration.group.byteCount,
            stateByteCount: server.exportedEphemeralStateByteCount)
        guard Self.milliseconds(clock.now()) < state.expiresAtMilliseconds else {
            throw AuthCoreError(.expired, "login id is unknown, expired or already used")
        }
        guard clientProof.count == configuration.hash.byteCount else {
            throw AuthCoreError(.invalidLength, "M1 must be \(configuration.hash.byteCount) bytes, got \(clientProof.count)")
        }
        // Every proof checked is counted first, as an attempt (a success clears the count): counting
        // only failures, after the check, would let many logins begun at once all be checked before
        // the first failure is recorded.
        let attempts = try await handshakes.increment(Self.failureKey(state.username), window: policy.failureWindow)
        guard attempts <= policy.maximumFailures else {
            throw AuthCoreError(.notPermitted, "too many failed logins for this user; try again later")
        }
        let verifier = try await verifierOrDecoy(for: state.username)
        let ephemeral = try server.importEphemeral(state.ephemeralState)
        let session = try server.verifyClient(
            username: Array(state.username.utf8), verifier: verifier, clientPublicValue: state.clientPublicValue,
            clientProof: clientProof, ephemeral: ephemeral)
        try await handshakes.remove(Self.failureKey(state.username))
        return SRPLoginSuccess(username: state.username, serverProof: session.serverProof, sessionKey: session.sessionKey)
    }

    // MARK: - Pieces

    /// The key that seals one login's state: HKDF-Expand of the sealing key with the login id
    /// (RFC 5869 §2.3). One key seals one state, so even a repeated nonce could not repeat under a
    /// key; the nonces come from the system generator whatever `random` is.
    private func loginKey(_ loginId: String) throws(AuthCoreError) -> SecureBytes {
        try sealingKey.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
            try Array("login \(loginId)".utf8).withUnsafeBytesTyped { (info) throws(AuthCoreError) -> SecureBytes in
                try HashAlgorithm.sha256.hkdfExpand(pseudoRandomKey: key, info: info, outputByteCount: AES256GCM.keyByteCount)
            }
        }
    }

    private func checkUsername(_ username: String) throws(AuthCoreError) {
        let count = username.utf8.count
        guard count >= 1, count <= policy.maximumUsernameBytes, count <= 65_535 else {
            throw AuthCoreError(.invalidParameter, "username must be 1…\(policy.maximumUsernameBytes) bytes")
        }
    }

    private func refuseIfLockedOut(_ username: String) async throws(AuthCoreError) {
        guard try await handshakes.count(Self.failureKey(username)) < policy.maximumFailures else {
            throw AuthCoreError(.notPermitted, "too many failed logins for this user; try again later")
        }
    }

    /// The stored verifier, or for an unknown user a decoy: a salt and a verifier below N derived
    /// from the decoy key and the username, the same on every instance and every call.
    private func verifierOrDecoy(for username: String) async throws(AuthCoreError) -> SRPVerifier {
        if let stored = try await verifiers.verifier(for: username) { return stored }
        let byteCount = configuration.group.byteCount
        let material = try decoyKey.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
            try Array("unknown user \(username)".utf8).withUnsafeBytesTyped { (info) throws(AuthCoreError) -> SecureBytes in
                try HashAlgorithm.sha256.hkdfExpand(pseudoRandomKey: key, info: info, outputByteCount: configuration.saltByteCount + byteCount)
            }
        }
        return material.withUnsafeBytes { bytes in
            let salt = Array(bytes[..<configuration.saltByteCount])
            // Below N: the top bit of N's width is cleared, and N's top bit is set.
            var value = Array(bytes[configuration.saltByteCount...])
            value[0] &= 0x7F
            if value.allSatisfy({ $0 == 0 }) { value[value.count - 1] = 1 }
            return SRPVerifier(salt: salt, verifier: BigUInt(bigEndianBytes: value))
        }
    }

    static func handshakeKey(_ loginId: String) -> String { "authcore:srp:handshake:\(loginId)" }
    static func failureKey(_ username: String) -> String { "authcore:srp:failures:\(Hex.encode(Array(username.utf8)))" }

    static func milliseconds(_ time: Timestamp) -> Int64 {
        time.secondsSince1970.multipliedReportingOverflow(by: 1000).partialValue + Int64(time.nanoseconds / 1_000_000)
    }
}
