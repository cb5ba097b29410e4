internal import CAuthCoreGMP

/// The arithmetic behind one SRP group, shared by every session that uses the group.
///
/// - Fixed base g: a ``FixedBaseTable`` comb built lazily (once, under a lock) reaching 512-bit
///   exponents: enough for 256-bit ephemerals and for `x` up to SHA-512's width. Longer exponents use
///   the variable-base path below.
/// - Variable base with a secret exponent or a secret base (the premaster secret S, the server's
///   `v^u` and `(A·v^u)^b`): the secret-power kernel over fixed-width limbs
///   (``secretPower(base:exponent:bitCount:)``, ``SecretPowerKernel/preferred``: AVX-512 IFMA where
///   the processor has it, else AuthCore's MULX/ADX kernel where it has BMI2 and ADX, else GMP's
///   `mpn_sec_powm`).
/// - Products and differences modulo N: ``MontgomeryDomain`` (constant time).
///
/// Every secret stays in fixed-width ``LimbBuffer``s from the moment it is drawn or hashed until it
/// is hashed into a key: no step takes time that depends on a secret's value or its leading zeros.
final class SRPGroupEngine: Sendable {
    let modulus: BigUInt
    let generator: BigUInt
    let domain: MontgomeryDomain
    static let tableReachBits = 512

    private let table = Locked<FixedBaseTable?>(nil)
    private let offsetPowers = Locked<[Int: LimbBuffer]>([:])

    init(modulus: BigUInt, generator: BigUInt) {
        self.modulus = modulus
        self.generator = generator
        self.domain = MontgomeryDomain(modulus: modulus)
    }

    var limbCount: Int { domain.limbCount }

    /// The comb for g, built on first use.
    var fixedBaseTable: FixedBaseTable {
        table.withLock { table in
            if let existing = table { return existing }
            let built = FixedBaseTable(base: generator, domain: domain, maximumExponentBitCount: Self.tableReachBits)
            table = built
            return built
        }
    }

    /// g^(2^bits) in Montgomery form (a public constant per offset), cached.
    func offsetPower(bits: Int) -> LimbBuffer {
        offsetPowers.withLock { cache in
            if let cached = cache[bits] { return cached }
            let value = generator.powerVariableTime(BigUInt.powerOfTwo(bits), nonzeroModulus: modulus)
            let limbs = LimbBuffer(value, count: limbCount)
            domain.enter(limbs.pointer, limbs.pointer)
            cache[bits] = limbs
            return limbs
        }
    }

    // MARK: - g^e for secret e

    /// g^e mod N in Montgomery form, for a secret exponent of declared length `bitCount`.
    func generatorPowerMontgomery(_ exponent: LimbBuffer, bitCount: Int) throws(AuthCoreError) -> LimbBuffer {
        let result = LimbBuffer(count: limbCount)
        if bitCount <= Self.tableReachBits {
            fixedBaseTable.power(into: result.pointer, exponent: exponent, exponentBitCount: bitCount)
        } else {
            // Beyond the table: the secret-power kernel on the fixed-width limbs (never through a BigUInt,
            // whose normalisation would depend on the exponent's leading zero limbs).
            let plain = secretPower(
                base: LimbBuffer(generator, count: limbCount),
                exponent: exponent,
                bitCount: bitCount
            )
            domain.enter(result.pointer, plain.pointer)
        }
        return result
    }

    /// g^e mod N fully reduced, at N's limb count, for a secret exponent of declared length `bitCount`.
    private func generatorPowerLimbs(_ exponent: LimbBuffer, bitCount: Int) throws(AuthCoreError) -> LimbBuffer {
        let power = try generatorPowerMontgomery(exponent, bitCount: bitCount)
        domain.leave(power.pointer, power.pointer)
        return power
    }

    /// g^e mod N as a `BigUInt` (its word count declassified): Cognito's verifiers, whose 3072-bit N
    /// fills its top word (a zero top word has probability about 2⁻⁶⁴), and
    /// ``SRPGroup/generatorPower(secretExponent:exponentBitCount:)``.
    func generatorPower(_ exponent: LimbBuffer, bitCount: Int) throws(AuthCoreError) -> BigUInt {
        try generatorPowerLimbs(exponent, bitCount: bitCount).secretBigUInt
    }

    /// A verifier `v = g^x mod N` (RFC 5054 §2.4): secret (password-equivalent), so written at N's
    /// byte length, never through a `BigUInt` (whose word count would be v's own).
    func verifierBytes(privateKey x: LimbBuffer, bitCount: Int) throws(AuthCoreError) -> SecureBytes {
        try generatorPowerLimbs(x, bitCount: bitCount).secureBigEndianBytes(byteCount: domain.modulus.byteWidth)
    }

    // MARK: - Ephemerals

    /// Draws a private value `r + 2^offsetBits` (`r` of `randomBitCount` bits) and computes its public
    /// value g^(r + 2^offsetBits) = g^r · g^(2^offsetBits) (why: ``SRPPrivateValue``).
    func generatePrivateValue(
        group: SRPGroup,
        randomBitCount: Int,
        offsetBits: Int,
        random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> SRPPrivateValue {
        guard SRPPrivateValue.randomBitCountRange.contains(randomBitCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "private value bit count \(randomBitCount) is outside \(SRPPrivateValue.randomBitCountRange) (RFC 5054 §2.5.3 asks for at least 256)"
            )
        }
        // invariant: offsets are derived from the bit count
        precondition(offsetBits >= randomBitCount, "the public offset must lie above the random bits")
        let randomBytes = try random.secureBytes(count: (randomBitCount + 7) / 8)
        let exponentLimbs = (offsetBits + 64) / 64
        let exponent = randomBytes.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: exponentLimbs) }
        // Keep exactly randomBitCount random bits.
        let spare = randomBitCount % 64
        if spare != 0 { exponent.pointer[(randomBitCount - 1) / 64] &= (mp_limb_t(1) << spare) - 1 }
        let publicMontgomery = try generatorPowerMontgomery(exponent, bitCount: randomBitCount)
        domain.multiply(publicMontgomery.pointer, publicMontgomery.pointer, offsetPower(bits: offsetBits).pointer)
        domain.leave(publicMontgomery.pointer, publicMontgomery.pointer)
        exponent.pointer[offsetBits / 64] |= mp_limb_t(1) << (offsetBits % 64)
        return SRPPrivateValue(
            exponent: exponent,
            exponentBitCount: offsetBits + 1,
            publicValue: publicMontgomery.publishedBigUInt,
            group: group
        )
    }

    /// A private value given explicitly (test vectors, deterministic tests): used as it is, at its
    /// own bit length, so its running time depends on its leading zeros (package API only).
    func explicitPrivateValue(group: SRPGroup, _ value: BigUInt) throws(AuthCoreError) -> SRPPrivateValue {
        guard !value.isZero else { throw AuthCoreError(.invalidParameter, "private value is zero") }
        guard value.bitWidth <= 4096 else { throw AuthCoreError(.inputTooLarge, "private value exceeds 4096 bits") }
        let bits = value.bitWidth
        let exponent = LimbBuffer(value, count: (bits + 63) / 64)
        let publicMontgomery = try generatorPowerMontgomery(exponent, bitCount: bits)
        domain.leave(publicMontgomery.pointer, publicMontgomery.pointer)
        return SRPPrivateValue(
            exponent: exponent,
            exponentBitCount: bits,
            publicValue: publicMontgomery.publishedBigUInt,
            group: group
        )
    }

    // MARK: - Server public value and premaster secrets (RFC 5054 §2.5.3, §2.6)

    /// Reads a stored verifier into n limbs and checks 0 < v < N in constant time (the verifier is
    /// password-equivalent; only the verdict is public). The bytes' count is public (N's byte
    /// length for a verifier this library made); their value's length is never looked at.
    ///
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when the check fails.
    func checkedVerifier(_ verifier: SecureBytes) throws(AuthCoreError) -> LimbBuffer {
        try checkedInRange(limbs(ofStored: verifier))
    }

    /// ``checkedVerifier(_:)-(SecureBytes)`` for a verifier held as a `BigUInt` (Cognito's interfaces,
    /// whose 3072-bit N fills its top word).
    func checkedVerifier(_ verifier: BigUInt) throws(AuthCoreError) -> LimbBuffer {
        try checkedInRange(verifier.limbCount <= limbCount ? LimbBuffer(verifier, count: limbCount) : nil)
    }

    private func checkedInRange(_ v: LimbBuffer?) throws(AuthCoreError) -> LimbBuffer {
        guard let v else { throw AuthCoreError(.unsafePublicValue, "verifier is not below N") }
        guard ConstantFlow.declassified(domain.isInRange(v.pointer)) == 1 else {
            throw AuthCoreError(.unsafePublicValue, "verifier is not in 1...N-1")
        }
        return v
    }

    /// Whether stored verifier bytes hold a value in 2…N−2, in constant time (see
    /// ``SRPConfiguration/isAcceptableVerifier(_:)-(SRPVerifier)``).
    func isAcceptableVerifier(_ verifier: SecureBytes) -> Bool {
        guard let v = limbs(ofStored: verifier) else { return false }
        return ConstantFlow.declassified(domain.isInVerifierRange(v.pointer)) == 1
    }

    /// Big-endian bytes read into N's limb count, or nil when there are more bytes than the limbs hold.
    private func limbs(ofStored bytes: SecureBytes) -> LimbBuffer? {
        guard bytes.count <= limbCount * 8 else { return nil }
        return bytes.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: limbCount) }
    }

    /// B = (k·v + g^b) mod N, given g^b as the private value's public value; constant time in v.
    func serverPublicValue(k: BigUInt, verifier v: LimbBuffer, gb: BigUInt) -> BigUInt {
        let n = limbCount
        let kv = LimbBuffer(k, count: n)
        domain.enter(kv.pointer, kv.pointer)
        domain.multiply(kv.pointer, kv.pointer, v.pointer)  // (k·R)·v·R⁻¹ = k·v, below 2^(64n)
        let g = LimbBuffer(gb, count: n)
        domain.reduceOnce(kv.pointer)
        domain.add(kv.pointer, kv.pointer, g.pointer)
        return kv.publishedBigUInt  // B is sent to the client
    }

    /// `base^exponent mod N`, constant time in both (``MontgomeryDomain/secretPower(base:exponent:bitCount:kernel:)``).
    func secretPower(base: LimbBuffer, exponent: LimbBuffer, bitCount: Int) -> LimbBuffer {
        domain.secretPower(base: base, exponent: exponent, bitCount: bitCount)
    }

    /// Client premaster secret S = (B - k·g^x)^(a + u·x) mod N (RFC 5054 §2.6), as n limbs.
    ///
    /// `x` and `u` are fixed-width limb buffers of their hash's width; `B` is already validated
    /// (0 < B < N). The exponent `a + u·x` is computed at fixed widths and raised to at its declared
    /// length `max(bits(a), bits(u) + bits(x)) + 1`.
    func clientPremaster(
        serverPublicValue b: BigUInt,
        k: BigUInt,
        x: LimbBuffer,
        xBitCount: Int,
        u: LimbBuffer,
        privateValue: borrowing SRPPrivateValue
    ) throws(AuthCoreError) -> LimbBuffer {
        let n = limbCount
        // base = (B - k·g^x) mod N, all constant time.
        let gx = try generatorPowerMontgomery(x, bitCount: xBitCount)
        let kMontgomery = LimbBuffer(k, count: n)
        domain.enter(kMontgomery.pointer, kMontgomery.pointer)
        domain.multiply(gx.pointer, gx.pointer, kMontgomery.pointer)  // k·g^x in Montgomery form
        domain.leave(gx.pointer, gx.pointer)
        let base = LimbBuffer(b, count: n)
        domain.subtract(base.pointer, base.pointer, gx.pointer)
        // B ≡ k·g^x would make S = 0 (mpn_sec_powm also asks for a non-zero base): refused, as a
        // peer's unsafe value; only the verdict is public.
        guard ConstantFlow.declassified(domain.isZero(base.pointer)) == 0 else {
            throw AuthCoreError(.unsafePublicValue, "B - k·g^x ≡ 0 (mod N)")
        }
        // e = a + u·x at fixed widths.
        let exponentBitCount = Swift.max(privateValue.exponentBitCount, u.count * 64 + xBitCount) + 1
        let exponent = LimbBuffer.sum(
            privateValue.exponent,
            plusProductOf: u,
            x,
            count: Swift.max((exponentBitCount + 63) / 64, privateValue.exponent.count, u.count + x.count)
        )
        return secretPower(base: base, exponent: exponent, bitCount: exponentBitCount)
    }

    /// Server premaster secret S = (A · v^u)^b mod N (RFC 5054 §2.6), as n limbs. `A` is already
    /// validated; `v` is secret (checked by ``checkedVerifier(_:)``), so `v^u` is constant time too.
    func serverPremaster(
        clientPublicValue a: BigUInt,
        verifier v: LimbBuffer,
        u: LimbBuffer,
        uBitCount: Int,
        privateValue: borrowing SRPPrivateValue
    ) throws(AuthCoreError) -> LimbBuffer {
        let n = limbCount
        let vu = secretPower(base: v, exponent: u, bitCount: uBitCount)
        let base = LimbBuffer(a, count: n)
        domain.enter(base.pointer, base.pointer)
        domain.multiply(base.pointer, base.pointer, vu.pointer)  // (A·R)·v^u·R⁻¹ = A·v^u
        domain.reduceOnce(base.pointer)
        return secretPower(base: base, exponent: privateValue.exponent, bitCount: privateValue.exponentBitCount)
    }
}
