/// The client side of SRP-6a (RFC 5054 §2.6, proofs per RFC 2945 §3).
///
/// ```swift
/// let client = SRPClient(configuration: configuration)
/// let ephemeral = try client.makeEphemeral()           // (a, A): can be prepared while the user types
/// send(username, ephemeral.publicValue)                // → server answers salt, B
/// let session = try client.processChallenge(
///     username: Array("alice".utf8), password: SecureBytes(passwordBytes),
///     salt: salt, serverPublicValue: bBytes, ephemeral: ephemeral)
/// send(session.clientProof)                            // → server answers M2
/// try session.verifyServerProof(m2)                    // constant-time; then use session.sessionKey
/// ```
public struct SRPClient: Sendable {
    /// The agreed parameters.
    public let configuration: SRPConfiguration

    /// A client for `configuration`.
    public init(configuration: SRPConfiguration) { self.configuration = configuration }

    /// Draws a fresh ephemeral `(a, A = g^a)`, ready before the password is known.
    ///
    /// - Throws: ``AuthCoreError/Code/randomFailure``.
    public func makeEphemeral(random: some SecureRandomGenerator = SystemRandom()) throws(AuthCoreError) -> SRPPrivateValue {
        try configuration.group.engine.generatePrivateValue(
            group: configuration.group, randomBitCount: configuration.privateValueBitCount,
            offsetBits: configuration.clientOffsetBits, random: random)
    }

    /// An ephemeral from an explicit `a` (test vectors; a real client draws one with ``makeEphemeral(random:)``).
    public func ephemeral(privateValue a: BigUInt) throws(AuthCoreError) -> SRPPrivateValue {
        try configuration.group.engine.explicitPrivateValue(group: configuration.group, a)
    }

    /// Answers the server's challenge: computes `u`, `x`, `S`, `K` and the proof `M1`.
    ///
    /// The ephemeral is consumed (used once) and wiped.
    /// - Parameters:
    ///   - username: the identity `I` as bytes (UTF-8 for text).
    ///   - password: the password `P`.
    ///   - salt: the salt `s` from the server (binary).
    ///   - serverPublicValue: `B` as big-endian bytes (any length).
    ///   - ephemeral: the client's `(a, A)`.
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when `B ≥ N`, `B ≡ 0 (mod N)` or `u = 0`;
    ///   ``AuthCoreError/Code/inputTooLarge`` for oversized inputs.
    public func processChallenge(
        username: some Collection<UInt8>, password: SecureBytes, salt: some Collection<UInt8>,
        serverPublicValue: some Collection<UInt8>, ephemeral: consuming SRPPrivateValue
    ) throws(AuthCoreError) -> SRPClientSession {
        let b = try configuration.group.validatedPublicValue(serverPublicValue, field: "B")
        return try processChallenge(
            username: username, password: password, salt: salt, serverPublicValue: b, ephemeral: ephemeral)
    }

    /// Answers the server's challenge with `B` given as a number; see the byte form.
    public func processChallenge(
        username: some Collection<UInt8>, password: SecureBytes, salt: some Collection<UInt8>,
        serverPublicValue: BigUInt, ephemeral: consuming SRPPrivateValue
    ) throws(AuthCoreError) -> SRPClientSession {
        let c = configuration
        guard ephemeral.group == c.group else {
            throw AuthCoreError(.invalidParameter, "the ephemeral belongs to \(ephemeral.group.name), not \(c.group.name)")
        }
        let user = try SRPConfiguration.checkedInput(username, field: "username")
        let saltBytes = try SRPConfiguration.checkedInput(salt, field: "salt")
        guard password.count <= SRPConfiguration.maximumInputBytes else {
            throw AuthCoreError(.inputTooLarge, "password exceeds \(SRPConfiguration.maximumInputBytes) bytes")
        }
        let b = try c.group.validatedPublicValue(serverPublicValue, field: "B")
        let a = ephemeral.publicValue
        let uDigest = try c.scramblingParameter(clientPublicValue: a, serverPublicValue: b)
        let u = try SRPConfiguration.checkedScramblingParameter(uDigest.bytes)
        let xDigest = c.privateKey(username: user, password: password, salt: saltBytes)
        let x = c.scalar(xDigest)
        let s = try c.group.engine.clientPremaster(
            serverPublicValue: b, k: c.multiplier, x: x, xBitCount: c.hashBitCount, u: c.scalar(uDigest),
            privateValue: ephemeral)
        let key = c.sessionKey(premasterSecret: s)
        let m1 = try c.clientProof(username: user, salt: saltBytes, clientPublicValue: a, serverPublicValue: b, key: key)
        let m2 = c.serverProof(clientPublicValue: a, clientProof: m1, key: key)
        return SRPClientSession(
            clientPublicValue: a, clientProofDigest: m1, expectedServerProof: m2, sessionKey: key,
            scramblingParameter: u, privateKey: x.bigUInt, premasterSecret: s)
    }
}

/// A client's side of one SRP-6a exchange after the challenge: `A`, `M1`, and the key once `M2` checks.
public struct SRPClientSession: Sendable, CustomStringConvertible {
    /// `A`, to send to the server.
    public let clientPublicValue: BigUInt
    let clientProofDigest: Digest
    let expectedServerProof: Digest
    /// `K = H(S)`, the shared session key. Use it only after ``verifyServerProof(_:)`` succeeds.
    public let sessionKey: SecureBytes
    /// `u`, public.
    public let scramblingParameter: BigUInt
    /// `x` (secret; for tests and vectors).
    package let privateKey: BigUInt
    /// `S` (secret; for tests and vectors).
    package let premasterSecret: BigUInt

    /// `M1`, to send to the server.
    public var clientProof: [UInt8] { clientProofDigest.bytes }
    /// `M2` as this client expects it (for tests and vectors).
    package var serverProof: [UInt8] { expectedServerProof.bytes }

    /// Checks the server's proof `M2 = H(A | M1 | K)` in constant time.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` for a proof of the wrong length,
    ///   ``AuthCoreError/Code/proofMismatch`` when it does not verify.
    public func verifyServerProof(_ proof: some Collection<UInt8>) throws(AuthCoreError) {
        guard proof.count == expectedServerProof.count else {
            throw AuthCoreError(.invalidLength, "M2 must be \(expectedServerProof.count) bytes, got \(proof.count)")
        }
        let matches = expectedServerProof.withUnsafeBytes { constantTimeEqual(Array($0), Array(proof)) }
        guard matches else { throw AuthCoreError(.proofMismatch, "server proof M2 does not verify") }
    }

    public var description: String { "SRPClientSession(A \(clientPublicValue.bitWidth) bits, key \(sessionKey.count) bytes)" }
}
