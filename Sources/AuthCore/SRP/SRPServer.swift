/// The server side of SRP-6a (RFC 5054 §2.5.3, §2.6; proofs per RFC 2945 §3).
///
/// ```swift
/// let server = SRPServer(configuration: configuration)
/// let ephemeral = try server.makeEphemeral(verifier: stored)   // (b, B)
/// send(stored.salt, ephemeral.serverPublicValue)               // ← client answers A, M1
/// let session = try server.verifyClient(
///     username: username, verifier: stored, clientPublicValue: aBytes, clientProof: m1, ephemeral: ephemeral)
/// send(session.serverProof)                                    // M2; session.sessionKey is K
/// ```
public struct SRPServer: Sendable {
    /// The agreed parameters.
    public let configuration: SRPConfiguration

    /// A server for `configuration`.
    public init(configuration: SRPConfiguration) { self.configuration = configuration }

    /// Draws `b` and computes `B = (k·v + g^b) mod N` for a stored verifier.
    public func makeEphemeral(verifier: SRPVerifier, random: some SecureRandomGenerator = SystemRandom())
        throws(AuthCoreError) -> SRPServerEphemeral
    {
        let b = try configuration.group.engine.generatePrivateValue(
            group: configuration.group, randomBitCount: configuration.privateValueBitCount,
            offsetBits: configuration.serverOffsetBits, random: random)
        return try ephemeral(privateValue: b, verifier: verifier)
    }

    /// An ephemeral from an explicit `b` (test vectors). Package API: an explicit value is used at
    /// its own bit length, so the work done depends on it.
    package func ephemeral(privateValue b: BigUInt, verifier: SRPVerifier) throws(AuthCoreError) -> SRPServerEphemeral {
        let value = try configuration.group.engine.explicitPrivateValue(group: configuration.group, b)
        return try ephemeral(privateValue: value, verifier: verifier)
    }

    private func ephemeral(privateValue: consuming SRPPrivateValue, verifier: SRPVerifier) throws(AuthCoreError)
        -> SRPServerEphemeral
    {
        let v = try configuration.group.engine.checkedVerifier(verifier.verifier)
        let publicValue = configuration.group.engine.serverPublicValue(
            k: configuration.multiplier, verifier: v, gb: privateValue.publicValue)
        return SRPServerEphemeral(privateValue: privateValue, serverPublicValue: publicValue)
    }

    /// Checks the client's `A` and proof `M1`; on success returns `M2` and the session key.
    ///
    /// The ephemeral is consumed (used once) and wiped.
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when `A ≥ N`, `A ≡ 0 (mod N)` or `u = 0`;
    ///   ``AuthCoreError/Code/invalidLength`` for an `M1` of the wrong length;
    ///   ``AuthCoreError/Code/proofMismatch`` when `M1` does not verify (constant-time comparison).
    public func verifyClient(
        username: some Collection<UInt8>, verifier: SRPVerifier, clientPublicValue: some Collection<UInt8>,
        clientProof: some Collection<UInt8>, ephemeral: consuming SRPServerEphemeral
    ) throws(AuthCoreError) -> SRPServerSession {
        let a = try configuration.group.validatedPublicValue(clientPublicValue, field: "A")
        return try verifyClient(
            username: username, verifier: verifier, clientPublicValue: a, clientProof: clientProof, ephemeral: ephemeral)
    }

    /// Checks the client's `A` (as a number) and proof `M1`; see the byte form.
    public func verifyClient(
        username: some Collection<UInt8>, verifier: SRPVerifier, clientPublicValue: BigUInt,
        clientProof: some Collection<UInt8>, ephemeral: consuming SRPServerEphemeral
    ) throws(AuthCoreError) -> SRPServerSession {
        try verifyClient(
            username: username, verifier: verifier, clientPublicValue: clientPublicValue, clientProof: clientProof,
            ephemeral: ephemeral, recordingIntermediates: false)
    }

    /// The same, optionally keeping `S` in the session (vectors and tests only).
    package func verifyClient(
        username: some Collection<UInt8>, verifier: SRPVerifier, clientPublicValue: BigUInt,
        clientProof: some Collection<UInt8>, ephemeral: consuming SRPServerEphemeral, recordingIntermediates: Bool
    ) throws(AuthCoreError) -> SRPServerSession {
        let c = configuration
        let user = try SRPConfiguration.checkedInput(username, field: "username")
        let a = try c.group.validatedPublicValue(clientPublicValue, field: "A")
        guard clientProof.count == c.hash.byteCount else {
            throw AuthCoreError(.invalidLength, "M1 must be \(c.hash.byteCount) bytes, got \(clientProof.count)")
        }
        let b = ephemeral.serverPublicValue
        let uDigest = try c.scramblingParameter(clientPublicValue: a, serverPublicValue: b)
        let u = try SRPConfiguration.checkedScramblingParameter(uDigest.bytes)
        let v = try c.group.engine.checkedVerifier(verifier.verifier)
        let s = try c.group.engine.serverPremaster(
            clientPublicValue: a, verifier: v, u: c.scalar(uDigest), uBitCount: c.hashBitCount,
            privateValue: ephemeral.privateValue)
        let key = c.sessionKey(premasterSecret: s)
        let expected = try c.clientProof(username: user, salt: verifier.salt, clientPublicValue: a, serverPublicValue: b, key: key)
        let matches = expected.withUnsafeBytes { constantTimeEqual($0, clientProof) }
        guard matches else { throw AuthCoreError(.proofMismatch, "client proof M1 does not verify") }
        let m2 = try c.serverProof(clientPublicValue: a, clientProof: expected, key: key)
        return SRPServerSession(
            serverProofDigest: m2, sessionKey: key, scramblingParameter: u,
            premasterSecret: recordingIntermediates ? s.secretBigUInt : nil)
    }
}

/// A server's ephemeral `(b, B)` for one exchange; used once.
public struct SRPServerEphemeral: ~Copyable, Sendable {
    let privateValue: SRPPrivateValue
    /// `B = (k·v + g^b) mod N`, to send to the client.
    public let serverPublicValue: BigUInt
}

/// A server's side of one SRP-6a exchange after `M1` verified.
public struct SRPServerSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let serverProofDigest: Digest
    /// `K = H(S)`, the shared session key (the client's `M1` has verified).
    public let sessionKey: SecureBytes
    /// `u`, public.
    public let scramblingParameter: BigUInt
    /// `S`, when the package caller asked for it (vectors and tests).
    package let premasterSecret: BigUInt?

    /// `M2 = H(A | M1 | K)`, to send to the client.
    public var serverProof: [UInt8] { serverProofDigest.bytes }

    public var description: String { "SRPServerSession(key \(sessionKey.count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["sessionKey": sessionKey], displayStyle: .struct) }
}
