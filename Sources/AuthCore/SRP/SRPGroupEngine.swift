internal import CAuthCoreGMP

/// The arithmetic behind one SRP group, shared by every session that uses the group.
///
/// - Fixed base g: a ``FixedBaseTable`` comb built lazily (once, under a lock) reaching 512-bit
///   exponents: enough for 256-bit ephemerals and for `x` up to SHA-512's width. Longer exponents use
///   GMP's `mpn_sec_powm`.
/// - Variable base with a secret exponent (the premaster secret S): ``MontgomeryExponentiationKernel``.
/// - Products and differences modulo N: ``MontgomeryDomain`` (constant time).
final class SRPGroupEngine: Sendable {
    let modulus: BigUInt
    let generator: BigUInt
    let domain: MontgomeryDomain
    static let tableReachBits = 512

    private let table = Locked<FixedBaseTable?>(nil)
    private let kernel = Locked<MontgomeryExponentiationKernel?>(nil)
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

    /// The OpenSSL Montgomery kernel, built on first use.
    func exponentiationKernel() throws(AuthCoreError) -> MontgomeryExponentiationKernel {
        let result: Result<MontgomeryExponentiationKernel, AuthCoreError> = kernel.withLock { kernel in
            if let existing = kernel { return .success(existing) }
            do throws(AuthCoreError) {
                let built = try MontgomeryExponentiationKernel(modulus: modulus)
                kernel = built
                return .success(built)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// g^(2^bits) in Montgomery form (a public constant per offset), cached.
    func offsetPower(bits: Int) -> LimbBuffer {
        offsetPowers.withLock { cache in
            if let cached = cache[bits] { return cached }
            let exponent = BigUInt.result {
                c_authcore_mpz_set_ui($0, 1)
                c_authcore_mpz_mul_2exp($0, $0, mp_bitcnt_t(bits))
            }
            let value = BigUInt.result {
                c_authcore_mpz_powm($0, generator.storage.pointer, exponent.storage.pointer, modulus.storage.pointer)
            }
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
            let context = try ModularContext(modulus: modulus, maximumExponentBitCount: bitCount)
            let plain = try context.power(generator, secretExponent: exponent.bigUInt, exponentBitCount: bitCount)
            let limbs = LimbBuffer(plain, count: limbCount)
            domain.enter(result.pointer, limbs.pointer)
        }
        return result
    }

    /// g^e mod N, for a secret exponent of declared length `bitCount` (verifiers `v = g^x`).
    func generatorPower(_ exponent: LimbBuffer, bitCount: Int) throws(AuthCoreError) -> BigUInt {
        let montgomery = try generatorPowerMontgomery(exponent, bitCount: bitCount)
        domain.leave(montgomery.pointer, montgomery.pointer)
        return montgomery.bigUInt
    }

    // MARK: - Ephemerals

    /// Draws a private value `r + 2^offsetBits` (`r` of `randomBitCount` bits) and computes its public
    /// value g^(r + 2^offsetBits) = g^r · g^(2^offsetBits).
    func generatePrivateValue(
        group: SRPGroup, randomBitCount: Int, offsetBits: Int, random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> SRPPrivateValue {
        guard SRPPrivateValue.randomBitCountRange.contains(randomBitCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "private value bit count \(randomBitCount) is outside \(SRPPrivateValue.randomBitCountRange) (RFC 5054 §2.5.3 asks for at least 256)")
        }
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
        return SRPPrivateValue(exponent: exponent, publicValue: publicMontgomery.bigUInt, group: group)
    }

    /// A private value given explicitly (test vectors, deterministic tests): used as it is.
    func explicitPrivateValue(group: SRPGroup, _ value: BigUInt) throws(AuthCoreError) -> SRPPrivateValue {
        guard !value.isZero else { throw AuthCoreError(.invalidParameter, "private value is zero") }
        guard value.bitWidth <= 4096 else { throw AuthCoreError(.inputTooLarge, "private value exceeds 4096 bits") }
        let bits = value.bitWidth
        let exponent = LimbBuffer(value, count: (bits + 63) / 64)
        let publicValue = try generatorPower(exponent, bitCount: bits)
        return SRPPrivateValue(exponent: exponent, publicValue: publicValue, group: group)
    }

    // MARK: - Server public value and premaster secrets (RFC 5054 §2.5.3, §2.6)

    /// B = (k·v + g^b) mod N, given g^b as the private value's public value.
    func serverPublicValue(k: BigUInt, verifier: BigUInt, gb: BigUInt) -> BigUInt {
        let n = limbCount
        let kv = LimbBuffer(domain.multiplyModN(k, verifier), count: n)
        let g = LimbBuffer(gb, count: n)
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: n) { scratch in
            c_authcore_mpn_add_mod(kv.pointer, kv.pointer, g.pointer, domain.modulusLimbs.pointer, n, scratch.baseAddress!)  // invariant: n > 0
        }
        return kv.bigUInt
    }

    /// Client premaster secret S = (B - k·g^x)^(a + u·x) mod N (RFC 5054 §2.6).
    ///
    /// `x` and `u` are fixed-width limb buffers of their hash's width; `B` is already validated
    /// (0 < B < N).
    func clientPremaster(
        serverPublicValue b: BigUInt, k: BigUInt, x: LimbBuffer, xBitCount: Int, u: LimbBuffer,
        privateValue: borrowing SRPPrivateValue
    ) throws(AuthCoreError) -> BigUInt {
        let n = limbCount
        // base = (B - k·g^x) mod N, all constant time.
        let gx = try generatorPowerMontgomery(x, bitCount: xBitCount)
        let kMontgomery = LimbBuffer(k, count: n)
        domain.enter(kMontgomery.pointer, kMontgomery.pointer)
        domain.multiply(gx.pointer, gx.pointer, kMontgomery.pointer)  // k·g^x in Montgomery form
        domain.leave(gx.pointer, gx.pointer)
        let base = LimbBuffer(b, count: n)
        c_authcore_mpn_sub_mod(base.pointer, base.pointer, gx.pointer, domain.modulusLimbs.pointer, n)
        // e = a + u·x at fixed widths.
        let exponent = LimbBuffer(count: Swift.max(privateValue.exponent.count, u.count + x.count) + 1)
        withUnsafeTemporaryAllocation(
            of: mp_limb_t.self, capacity: exponent.count + Int(c_authcore_mpn_sec_mul_itch(u.count, x.count))
        ) { scratch in
            let product = scratch.baseAddress!  // invariant: capacity > 0
            product.initialize(repeating: 0, count: exponent.count)
            if u.count >= x.count {
                c_authcore_mpn_sec_mul(product, u.pointer, u.count, x.pointer, x.count, product + exponent.count)
            } else {
                c_authcore_mpn_sec_mul(product, x.pointer, x.count, u.pointer, u.count, product + exponent.count)
            }
            exponent.pointer.update(from: privateValue.exponent.pointer, count: privateValue.exponent.count)
            _ = c_authcore_mpn_add_n(exponent.pointer, exponent.pointer, product, exponent.count)
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
        let s = try exponentiationKernel().power(base, secretExponent: exponent)
        return s.bigUInt
    }

    /// Server premaster secret S = (A · v^u)^b mod N (RFC 5054 §2.6). `A` is already validated.
    func serverPremaster(
        clientPublicValue a: BigUInt, verifier: BigUInt, u: LimbBuffer, privateValue: borrowing SRPPrivateValue
    ) throws(AuthCoreError) -> BigUInt {
        let n = limbCount
        let kernel = try exponentiationKernel()
        let vu = try kernel.power(LimbBuffer(verifier, count: n), publicExponent: u)  // u is public
        let base = LimbBuffer(domain.multiplyModN(a, vu.bigUInt), count: n)
        let s = try kernel.power(base, secretExponent: privateValue.exponent)
        return s.bigUInt
    }
}
