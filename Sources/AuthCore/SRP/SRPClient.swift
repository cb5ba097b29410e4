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
/// let key = try session.verifyServerProof(m2)          // constant-time; K only once M2 checks
/// ```
public struct SRPClient: Sendable {
    /// The agreed parameters.
    public let configuration: SRPConfiguration

    /// A client for `configuration`.
    public init(configuration: SRPConfiguration) { self.configuration = configuration }

    /// Draws a fresh ephemeral `(a, A = g^a)`, ready before the password is known.
    ///
    /// - Throws: ``AuthCoreError/Code/randomFailure``.
    public func makeEphemeral(
        random: some SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) -> SRPPrivateValue {
        try configuration.group.engine.generatePrivateValue(
            group: configuration.group,
            randomBitCount: configuration.privateValueBitCount,
            offsetBits: configuration.clientOffsetBits,
            random: random
        )
    }

    /// An ephemeral from an explicit `a` (test vectors; a real client draws one with ``makeEphemeral(random:)``).
    ///
    /// Package API: an explicit value is used at its own bit length, so the work done depends on it.
    package func ephemeral(privateValue a: BigUInt) throws(AuthCoreError) -> SRPPrivateValue {
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
        username: some Collection<UInt8>,
        password: SecureBytes,
        salt: some Collection<UInt8>,
        serverPublicValue: some Collection<UInt8>,
        ephemeral: consuming SRPPrivateValue
    ) throws(AuthCoreError) -> SRPClientSession {
        let b = try configuration.group.validatedPublicValue(serverPublicValue, field: "B")
        return try processChallenge(
            username: username,
            password: password,
            salt: salt,
            serverPublicValue: b,
            ephemeral: ephemeral
        )
    }

    /// Answers the server's challenge with `B` given as a number; see the byte form.
    public func processChallenge(
        username: some Collection<UInt8>,
        password: SecureBytes,
        salt: some Collection<UInt8>,
        serverPublicValue: BigUInt,
        ephemeral: consuming SRPPrivateValue
    ) throws(AuthCoreError) -> SRPClientSession {
        try processChallenge(
            username: username,
            password: password,
            salt: salt,
            serverPublicValue: serverPublicValue,
            ephemeral: ephemeral,
            recordingIntermediates: false
        )
    }

    /// The same, optionally keeping `x` and `S` in the session (vectors and tests only).
    package func processChallenge(
        username: some Collection<UInt8>,
        password: SecureBytes,
        salt: some Collection<UInt8>,
        serverPublicValue: BigUInt,
        ephemeral: consuming SRPPrivateValue,
        recordingIntermediates: Bool
    ) throws(AuthCoreError) -> SRPClientSession {
        let c = configuration
        guard ephemeral.group == c.group else {
            throw AuthCoreError(
                .invalidParameter,
                "the ephemeral belongs to \(ephemeral.group.name), not \(c.group.name)"
            )
        }
        let user = try SRPConfiguration.checkedInput(username, field: "username")
        let saltBytes = try SRPConfiguration.checkedInput(salt, field: "salt")
        guard password.count <= SRPConfiguration.maximumInputBytes else {
            throw AuthCoreError(.inputTooLarge, "password exceeds \(SRPConfiguration.maximumInputBytes) bytes")
        }
        let b = try c.group.validatedPublicValue(serverPublicValue, field: "B")
        let a = ephemeral.publicValue
        let x = c.privateKeyScalar(username: user, password: password, salt: saltBytes)
        let premaster = try c.clientPremaster(serverPublicValue: b, x: x, ephemeral: ephemeral)
        let (s, u) = (premaster.secret, premaster.scramblingParameter)
        let key = c.sessionKey(premasterSecret: s)
        let m1 = try c.clientProof(
            username: user,
            salt: saltBytes,
            clientPublicValue: a,
            serverPublicValue: b,
            key: key
        )
        let m2 = try c.serverProof(clientPublicValue: a, clientProof: m1, key: key)
        return SRPClientSession(
            clientPublicValue: a,
            clientProofDigest: m1,
            expectedServerProof: m2,
            sessionKey: key,
            scramblingParameter: u,
            intermediates: recordingIntermediates
                ? SRPIntermediates(privateKey: x.secretBigUInt, premasterSecret: s.secretBigUInt) : nil
        )
    }
}

/// Secret intermediate values of one exchange, kept only when a package caller asks (vectors, tests).
package struct SRPIntermediates: Sendable {
    /// `x`.
    package let privateKey: BigUInt
    /// `S`.
    package let premasterSecret: BigUInt
}

/// A client's side of one SRP-6a exchange after the challenge: `A` and `M1` to send; the session key
/// only once the server's `M2` checks.
public struct SRPClientSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `A`, to send to the server.
    public let clientPublicValue: BigUInt
    let clientProofDigest: Digest
    let expectedServerProof: Digest
    /// `K = H(S)`: handed out by ``verifyServerProof(_:)`` only.
    private let sessionKey: SecureBytes
    /// `u`, public.
    public let scramblingParameter: BigUInt
    /// `x` and `S`, when the package caller asked for them.
    package let intermediates: SRPIntermediates?

    init(
        clientPublicValue: BigUInt,
        clientProofDigest: Digest,
        expectedServerProof: Digest,
        sessionKey: SecureBytes,
        scramblingParameter: BigUInt,
        intermediates: SRPIntermediates?
    ) {
        self.clientPublicValue = clientPublicValue
        self.clientProofDigest = clientProofDigest
        self.expectedServerProof = expectedServerProof
        self.sessionKey = sessionKey
        self.scramblingParameter = scramblingParameter
        self.intermediates = intermediates
    }

    /// `M1`, to send to the server.
    public var clientProof: [UInt8] { clientProofDigest.bytes }
    /// `M2` as this client expects it (for tests and vectors).
    package var serverProof: [UInt8] { expectedServerProof.bytes }

    /// Checks the server's proof `M2 = H(A | M1 | K)` in constant time and returns the session key
    /// `K = H(S)`, which is not available before.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` for a proof of the wrong length,
    ///   ``AuthCoreError/Code/proofMismatch`` when it does not verify.
    @discardableResult
    public func verifyServerProof(_ proof: some Collection<UInt8>) throws(AuthCoreError) -> SecureBytes {
        guard proof.count == expectedServerProof.count else {
            throw AuthCoreError(.invalidLength, "M2 must be \(expectedServerProof.count) bytes, got \(proof.count)")
        }
        let matches = expectedServerProof.withUnsafeBytes { constantTimeEqual($0, proof) }
        guard matches else { throw AuthCoreError(.proofMismatch, "server proof M2 does not verify") }
        return sessionKey
    }

    public var description: String {
        "SRPClientSession(A \(clientPublicValue.bitWidth) bits, key \(sessionKey.count) bytes)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["clientPublicValue": clientPublicValue], displayStyle: .struct)
    }
}
