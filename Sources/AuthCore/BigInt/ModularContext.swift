internal import CAuthCoreGMP

/// Modular arithmetic against one odd modulus, with its scratch memory allocated once.
///
/// The main operation is ``power(_:secretExponent:exponentBitCount:)``: `base^e mod N` through a
/// side-channel silent kernel (AuthCore's AVX-512 IFMA kernel where the processor has it, else its
/// MULX/ADX kernel where the processor has BMI2 and ADX, else GMP's `mpn_sec_powm`), whose running time and memory access pattern depend only on
/// the sizes of the operands: the modulus size and `exponentBitCount`, which the **caller fixes per
/// operation** (the largest bit length that operation's exponent can have), never the secret's own
/// length, so leading zero bits of a secret do not change the timing.
///
/// A context is not thread-safe (it owns scratch buffers); create one per task, or per operation
/// chain, and reuse it. All scratch holding secret-derived data is wiped after every call and when
/// the context is freed.
public final class ModularContext {
    /// The largest modulus accepted, in bits (RFC 5054's largest group is 8192 bits).
    public static let maximumModulusBitCount = 16_384
    /// The largest exponent length accepted, in bits.
    public static let maximumExponentBitCountLimit = 16_384

    /// The modulus N.
    public let modulus: BigUInt
    /// The largest `exponentBitCount` this context's scratch was sized for.
    public let maximumExponentBitCount: Int

    let limbCount: Int
    // Wiping limb buffers (LimbBuffer), allocated once per context.
    let modulusLimbs: LimbBuffer
    let baseLimbs: LimbBuffer
    let resultLimbs: LimbBuffer
    let exponentLimbs: LimbBuffer
    let scratch: LimbBuffer
    let secretPowers: SecretPowerModulus

    /// Prepares a context for `modulus`.
    ///
    /// - Parameters:
    ///   - modulus: an odd modulus N > 1 of at most ``maximumModulusBitCount`` bits.
    ///   - maximumExponentBitCount: the largest exponent length that will be used (sizes the scratch).
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an even, zero or one modulus or an exponent
    ///   length outside 1...``maximumExponentBitCountLimit``; ``AuthCoreError/Code/inputTooLarge`` for
    ///   a modulus over ``maximumModulusBitCount`` bits.
    public init(modulus: BigUInt, maximumExponentBitCount: Int) throws(AuthCoreError) {
        guard !modulus.isZero else { throw AuthCoreError(.invalidParameter, "modulus is zero") }
        guard modulus.isOdd, modulus > BigUInt(1) else {
            throw AuthCoreError(.invalidParameter, "modulus must be odd and greater than 1")
        }
        guard modulus.bitWidth <= Self.maximumModulusBitCount else {
            throw AuthCoreError(
                .inputTooLarge,
                "modulus of \(modulus.bitWidth) bits exceeds \(Self.maximumModulusBitCount) bits"
            )
        }
        guard (1...Self.maximumExponentBitCountLimit).contains(maximumExponentBitCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "exponent bit count \(maximumExponentBitCount) is outside 1...\(Self.maximumExponentBitCountLimit)"
            )
        }
        self.modulus = modulus
        self.maximumExponentBitCount = maximumExponentBitCount
        let n = modulus.limbCount
        limbCount = n
        modulusLimbs = LimbBuffer(modulus, count: n)
        baseLimbs = LimbBuffer(count: n)
        resultLimbs = LimbBuffer(count: n)
        exponentLimbs = LimbBuffer(count: (maximumExponentBitCount + 63) / 64)
        secretPowers = SecretPowerModulus(modulus: modulus, modulusLimbs: modulusLimbs)
        // Sized for the largest exponent: the kernels' scratch grows with the exponent's length.
        scratch = LimbBuffer(count: secretPowers.scratchLimbs(bitCount: maximumExponentBitCount, kernel: .preferred))
    }

    /// `base^exponent mod N` for a secret exponent, in constant time.
    ///
    /// The corresponding GMP function is `mpn_sec_powm` (as used by `mpz_powm_sec`); this runs the
    /// preferred secret-power kernel (AuthCore's IFMA kernel where the processor has it, else that
    /// one) with the scratch of this context. A base ≥ N is first reduced modulo N (in variable
    /// time: reduce secret bases yourself).
    ///
    /// - Parameters:
    ///   - base: the base.
    ///   - exponent: the secret exponent, at most `exponentBitCount` bits long.
    ///   - exponentBitCount: the fixed bit length the computation runs for, 1...``maximumExponentBitCount``.
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when `exponentBitCount` is out of range or the
    ///   exponent does not fit in it.
    public func power(
        _ base: BigUInt,
        secretExponent exponent: BigUInt,
        exponentBitCount: Int
    ) throws(AuthCoreError)
        -> BigUInt
    {
        guard (1...maximumExponentBitCount).contains(exponentBitCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "exponent bit count \(exponentBitCount) is outside 1...\(maximumExponentBitCount)"
            )
        }
        guard exponent.bitWidth <= exponentBitCount else {
            throw AuthCoreError(.invalidParameter, "exponent is wider than the declared \(exponentBitCount) bits")
        }
        load(base, into: baseLimbs.buffer, reducing: true)
        let exponentLimbCount = (exponentBitCount + 63) / 64
        let usedExponent = UnsafeMutableBufferPointer(rebasing: exponentLimbs.buffer[0..<exponentLimbCount])
        load(exponent, into: usedExponent, reducing: false)
        secretPowers.power(
            resultLimbs.pointer,
            base: baseLimbs.pointer,
            exponent: usedExponent.baseAddress!,
            bitCount: exponentBitCount,
            kernel: .preferred,
            scratch: scratch.pointer
        )  // invariant: exponentLimbCount ≥ 1
        let output = resultLimbs.bigUInt
        for buffer in [exponentLimbs, baseLimbs, resultLimbs, scratch] {
            secureZero(UnsafeMutableRawBufferPointer(buffer.buffer))
        }
        return output
    }

    /// `base^exponent mod N` in time that depends on the exponent: **public exponents only**.
    ///
    /// The corresponding GMP function is `mpz_powm`.
    public func powerVariableTime(_ base: BigUInt, publicExponent exponent: BigUInt) -> BigUInt {
        base.powerVariableTime(exponent, nonzeroModulus: modulus)
    }

    /// Copies `value` (reduced mod N when `reducing`) into `limbs`, zero-extended to the buffer's length.
    func load(_ value: BigUInt, into limbs: UnsafeMutableBufferPointer<mp_limb_t>, reducing: Bool) {
        var source = value
        if reducing && source >= modulus {
            source = BigUInt.result { c_authcore_mpz_mod($0, value.storage.pointer, modulus.storage.pointer) }
        }
        let used = source.limbCount
        precondition(used <= limbs.count, "value wider than its limb buffer")  // invariant: checked by callers
        limbs.initialize(repeating: 0)
        if used > 0 {
            let from = c_authcore_mpz_limbs_read(source.storage.pointer)!  // invariant: used > 0
            for i in 0..<used { limbs[i] = from[i] }
        }
    }
}

extension BigUInt {
    /// A value from little-endian 64-bit limbs (leading zero limbs are normalised away, in time that
    /// depends on how many there are).
    init(limbs: UnsafeBufferPointer<mp_limb_t>) {
        var used = limbs.count
        while used > 0 && limbs[used - 1] == 0 { used -= 1 }
        self.init(limbs: limbs, significantCount: used)
    }

    /// A value from little-endian 64-bit limbs of which the lowest `significantCount` are used: the
    /// others are zero and limb `significantCount - 1` is not. Copies every limb, branching on none.
    init(limbs: UnsafeBufferPointer<mp_limb_t>, significantCount: Int) {
        // invariant: computed by callers
        precondition(significantCount >= 0 && significantCount <= limbs.count, "significant limbs within the buffer")
        let out = MPZStorage(bits: limbs.count * 64)
        if limbs.count > 0 {
            let dest = c_authcore_mpz_limbs_write(out.pointer, limbs.count)!  // invariant: count > 0
            for i in 0..<limbs.count { dest[i] = limbs[i] }
            c_authcore_mpz_set_limb_count(out.pointer, significantCount)
        }
        self.init(storage: out)
    }
}
