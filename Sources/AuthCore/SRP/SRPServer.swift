internal import CAuthCoreGMP

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
    public func makeEphemeral(
        verifier: SRPVerifier,
        random: some SecureRandomGenerator = SystemRandom()
    )
        throws(AuthCoreError) -> SRPServerEphemeral
    {
        let b = try configuration.group.engine.generatePrivateValue(
            group: configuration.group,
            randomBitCount: configuration.privateValueBitCount,
            offsetBits: configuration.serverOffsetBits,
            random: random
        )
        return try ephemeral(privateValue: b, verifier: verifier)
    }

    /// An ephemeral from an explicit `b` (test vectors). Package API: an explicit value is used at
    /// its own bit length, so the work done depends on it.
    package func ephemeral(privateValue b: BigUInt, verifier: SRPVerifier) throws(AuthCoreError) -> SRPServerEphemeral {
        let value = try configuration.group.engine.explicitPrivateValue(group: configuration.group, b)
        return try ephemeral(privateValue: value, verifier: verifier)
    }

    private func ephemeral(
        privateValue: consuming SRPPrivateValue,
        verifier: SRPVerifier
    ) throws(AuthCoreError)
        -> SRPServerEphemeral
    {
        let v = try configuration.group.engine.checkedVerifier(verifier.verifierBytes)
        let publicValue = configuration.group.engine.serverPublicValue(
            k: configuration.multiplier,
            verifier: v,
            gb: privateValue.publicValue
        )
        return SRPServerEphemeral(privateValue: privateValue, serverPublicValue: publicValue)
    }

    /// Checks the client's `A` and proof `M1`; on success returns `M2` and the session key.
    ///
    /// The ephemeral is consumed (used once) and wiped.
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when `A ≥ N`, `A ≡ 0 (mod N)` or `u = 0`;
    ///   ``AuthCoreError/Code/invalidLength`` for an `M1` of the wrong length;
    ///   ``AuthCoreError/Code/proofMismatch`` when `M1` does not verify (constant-time comparison).
    public func verifyClient(
        username: some Collection<UInt8>,
        verifier: SRPVerifier,
        clientPublicValue: some Collection<UInt8>,
        clientProof: some Collection<UInt8>,
        ephemeral: consuming SRPServerEphemeral
    ) throws(AuthCoreError) -> SRPServerSession {
        let a = try configuration.group.validatedPublicValue(clientPublicValue, field: "A")
        return try verifyClient(
            username: username,
            verifier: verifier,
            clientPublicValue: a,
            clientProof: clientProof,
            ephemeral: ephemeral
        )
    }

    /// Checks the client's `A` (as a number) and proof `M1`; see the byte form.
    public func verifyClient(
        username: some Collection<UInt8>,
        verifier: SRPVerifier,
        clientPublicValue: BigUInt,
        clientProof: some Collection<UInt8>,
        ephemeral: consuming SRPServerEphemeral
    ) throws(AuthCoreError) -> SRPServerSession {
        try verifyClient(
            username: username,
            verifier: verifier,
            clientPublicValue: clientPublicValue,
            clientProof: clientProof,
            ephemeral: ephemeral,
            recordingIntermediates: false
        )
    }

    /// The same, optionally keeping `S` in the session (vectors and tests only).
    package func verifyClient(
        username: some Collection<UInt8>,
        verifier: SRPVerifier,
        clientPublicValue: BigUInt,
        clientProof: some Collection<UInt8>,
        ephemeral: consuming SRPServerEphemeral,
        recordingIntermediates: Bool
    ) throws(AuthCoreError) -> SRPServerSession {
        let c = configuration
        let user = try SRPConfiguration.checkedInput(username, field: "username")
        let a = try c.group.validatedPublicValue(clientPublicValue, field: "A")
        guard clientProof.count == c.hash.byteCount else {
            throw AuthCoreError(.invalidLength, "M1 must be \(c.hash.byteCount) bytes, got \(clientProof.count)")
        }
        let b = ephemeral.serverPublicValue
        let v = try c.group.engine.checkedVerifier(verifier.verifierBytes)
        let premaster = try c.serverPremaster(
            clientPublicValue: a,
            serverPublicValue: b,
            verifier: v,
            privateValue: ephemeral.privateValue
        )
        let (s, u) = (premaster.secret, premaster.scramblingParameter)
        let key = c.sessionKey(premasterSecret: s)
        let expected = try c.clientProof(
            username: user,
            salt: verifier.salt,
            clientPublicValue: a,
            serverPublicValue: b,
            key: key
        )
        let matches = expected.withUnsafeBytes { constantTimeEqual($0, clientProof) }
        guard matches else { throw AuthCoreError(.proofMismatch, "client proof M1 does not verify") }
        let m2 = try c.serverProof(clientPublicValue: a, clientProof: expected, key: key)
        return SRPServerSession(
            serverProofDigest: m2,
            sessionKey: key,
            scramblingParameter: u,
            premasterSecret: recordingIntermediates ? s.secretBigUInt : nil
        )
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

// MARK: - Handing an exchange to another server process

extension SRPServerEphemeral {
    /// The ephemeral as bytes from which another process (or this one, later) can finish the
    /// exchange: `b` at its fixed width (`⌊o/64⌋ + 1` words for the configuration's offset bit `o`),
    /// then `B` at N's width, both big-endian. The layout and its length depend only on the
    /// configuration, and every byte is written in time independent of the values. (`g^b` is not
    /// included: with `B` it would give the verifier, `v = (B − g^b)/k`.)
    ///
    /// Secret: it holds `b`. Seal it (``AES256GCM``, with the exchange's identifier as associated
    /// data) before it leaves the process; the buffer is wiped when released.
    public borrowing func exportedState() -> SecureBytes {
        let width = privateValue.group.engine.limbCount
        let exponent = privateValue.exponent
        let serverPublic = LimbBuffer(serverPublicValue, count: width)
        let exponentBytes = exponent.count * 8
        return SecureBytes(count: exponentBytes + width * 8) { out in
            exponent.writeBigEndianBytes(into: UnsafeMutableRawBufferPointer(rebasing: out[..<exponentBytes]))
            serverPublic.writeBigEndianBytes(into: UnsafeMutableRawBufferPointer(rebasing: out[exponentBytes...]))
        }
    }
}

extension SRPServer {
    /// The byte count of ``SRPServerEphemeral/exportedState()`` under this configuration.
    public var exportedEphemeralStateByteCount: Int {
        ((configuration.serverOffsetBits + 64) / 64 + configuration.group.engine.limbCount) * 8
    }

    /// An ephemeral from ``SRPServerEphemeral/exportedState()`` made under the same configuration
    /// (after the sealed state was opened and authenticated). `b` is read at its fixed width and
    /// used at the declared bit length, as a freshly drawn one is.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` for a state of another length (another group or
    ///   offset); ``AuthCoreError/Code/malformedInput`` when `b` lacks its offset bit or has bits above
    ///   it, or `B` is not in 1…N−1.
    public func importEphemeral(_ state: SecureBytes) throws(AuthCoreError) -> SRPServerEphemeral {
        let engine = configuration.group.engine
        let width = engine.limbCount
        let offsetBits = configuration.serverOffsetBits
        let exponentWords = (offsetBits + 64) / 64
        guard state.count == exportedEphemeralStateByteCount else {
            throw AuthCoreError(
                .invalidLength,
                "SRP server state must be \(exportedEphemeralStateByteCount) bytes, got \(state.count)"
            )
        }
        let (exponent, serverPublic) = state.withUnsafeBytes { bytes in
            let b = exponentWords * 8
            return (
                LimbBuffer(bigEndianBytes: UnsafeRawBufferPointer(rebasing: bytes[..<b]), count: exponentWords),
                LimbBuffer(bigEndianBytes: UnsafeRawBufferPointer(rebasing: bytes[b...]), count: width)
            )
        }
        // The top word holds the public offset bit 2^o and nothing above it (a generated b is
        // r + 2^o with r below 2^o): only that public structure is checked, not the secret bits.
        let top = exponent.pointer[exponentWords - 1]
        let offsetBit = mp_limb_t(1) << (offsetBits % 64)
        let aboveOffset = ~(offsetBit | (offsetBit &- 1))
        guard ConstantFlow.declassified(Int(top & offsetBit != 0 ? 1 : 0) & Int(top & aboveOffset == 0 ? 1 : 0)) == 1
        else {
            throw AuthCoreError(.malformedInput, "SRP server state: b is not a value this configuration draws")
        }
        let b = serverPublic.publishedBigUInt
        _ = try configuration.group.validatedPublicValue(b, field: "B")
        // invariant: a server ephemeral's `privateValue.publicValue` (g^b) is read only when B is
        // computed, in `makeEphemeral`; a resumed exchange has B already, so g^b is left zero.
        return SRPServerEphemeral(
            privateValue: SRPPrivateValue(
                exponent: exponent,
                exponentBitCount: offsetBits + 1,
                publicValue: BigUInt(),
                group: configuration.group
            ),
            serverPublicValue: b
        )
    }
}
