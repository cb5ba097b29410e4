/// The premaster secret `S` of one exchange and the scrambling parameter `u` it used.
struct SRPPremaster {
    /// `S`, fixed-width (the group's limb count), secret.
    let secret: LimbBuffer
    /// `u`, public.
    let scramblingParameter: BigUInt
}

/// The steps every exchange of the one SRP front end shares, whatever it does with `S` afterwards:
/// ``SRPClient`` and ``SRPServer`` derive `K` and the proofs `M1`/`M2` from it; Cognito's claim
/// (``CognitoSRP``, the `.cognito` convention) derives an HKDF key and a claim signature. The
/// convention decides how `u` hashes `A` and `B`; the arithmetic is the group engine's, in constant
/// time in every secret.
extension SRPConfiguration {
    /// The client's side (RFC 5054 §2.6, RFC 2945 §3): `u = H(A, B)`, refused when zero, then
    /// `S = (B − k·g^x)^(a + u·x) mod N`.
    ///
    /// - Parameters:
    ///   - b: the server's `B`, already validated (``SRPGroup/validatedPublicValue(_:field:)``).
    ///   - x: the private key, ``hashBitCount`` bits.
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` for `u = 0` or a `B ≡ k·g^x`.
    func clientPremaster(
        serverPublicValue b: BigUInt,
        x: LimbBuffer,
        ephemeral: borrowing SRPPrivateValue
    ) throws(AuthCoreError)
        -> SRPPremaster
    {
        let uDigest = try scramblingParameter(clientPublicValue: ephemeral.publicValue, serverPublicValue: b)
        let u = try Self.checkedScramblingParameter(uDigest.bytes)
        let s = try group.engine.clientPremaster(
            serverPublicValue: b,
            k: multiplier,
            x: x,
            xBitCount: hashBitCount,
            u: scalar(uDigest),
            privateValue: ephemeral
        )
        return SRPPremaster(secret: s, scramblingParameter: u)
    }

    /// The server's side (RFC 5054 §2.6): `u = H(A, B)`, refused when zero, then `S = (A·v^u)^b mod N`.
    ///
    /// - Parameters:
    ///   - a: the client's `A`, already validated.
    ///   - v: the verifier, checked by the engine (``SRPGroupEngine/checkedVerifier(_:)``).
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` for `u = 0`.
    func serverPremaster(
        clientPublicValue a: BigUInt,
        serverPublicValue b: BigUInt,
        verifier v: LimbBuffer,
        privateValue: borrowing SRPPrivateValue
    ) throws(AuthCoreError) -> SRPPremaster {
        let uDigest = try scramblingParameter(clientPublicValue: a, serverPublicValue: b)
        let u = try Self.checkedScramblingParameter(uDigest.bytes)
        let s = try group.engine.serverPremaster(
            clientPublicValue: a,
            verifier: v,
            u: scalar(uDigest),
            uBitCount: hashBitCount,
            privateValue: privateValue
        )
        return SRPPremaster(secret: s, scramblingParameter: u)
    }
}
