internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// Montgomery arithmetic modulo one odd N, side-channel silent, over GMP's `mpn` layer.
///
/// With R = 2^(64·n) for an n-limb N, a value z is held as z·R mod N. Multiplication is GMP's
/// `mpn_sec_mul`/`mpn_sec_sqr` followed by word-by-word Montgomery reduction over `mpn_addmul_1`
/// (HAC 14.32) and a conditional subtraction (`mpn_cnd_sub_n`): no branch or memory access depends on
/// the operands. Immutable after creation, so one domain is shared by every thread.
///
/// The one home of arithmetic modulo N on fixed-width limbs: Montgomery products, modular sums and
/// differences, the constant-time range checks, and exponentiation with secrets (through
/// ``SecretPowerModulus``). Every
/// operand is exactly ``limbCount`` limbs (a ``LimbBuffer`` of N's width); callers never touch `mpn`.
package final class MontgomeryDomain: @unchecked Sendable {
    // invariant: all stored buffers are written only in init.
    let modulus: BigUInt
    let limbCount: Int
    let modulusLimbs: LimbBuffer
    /// -1/N mod 2^64.
    let minusInverse: mp_limb_t
    /// R mod N (the Montgomery form of 1).
    let one: LimbBuffer
    /// R² mod N (multiplying by it converts into Montgomery form).
    let rSquared: LimbBuffer
    let scratchLimbs: Int
    /// Secret exponentiation modulo N (the kernels' constants).
    let secretPowers: SecretPowerModulus

    package init(modulus: BigUInt) {
        // invariant: groups are validated first
        precondition(modulus.isOdd && modulus > BigUInt(1), "Montgomery arithmetic needs an odd modulus > 1")
        self.modulus = modulus
        let n = modulus.limbCount
        limbCount = n
        modulusLimbs = LimbBuffer(modulus, count: n)
        minusInverse = c_authcore_mont_minus_inverse(modulusLimbs.pointer[0])
        let r = BigUInt.powerOfTwo(64 * n)
        one = LimbBuffer(
            BigUInt.result { c_authcore_mpz_mod($0, r.storage.pointer, modulus.storage.pointer) },
            count: n
        )
        let r2 = BigUInt.result {
            c_authcore_mpz_mul($0, r.storage.pointer, r.storage.pointer)
            c_authcore_mpz_mod($0, $0, modulus.storage.pointer)
        }
        rSquared = LimbBuffer(r2, count: n)
        scratchLimbs = Int(c_authcore_mont_scratch_limbs(n))
        secretPowers = SecretPowerModulus(modulus: modulus, modulusLimbs: modulusLimbs)
    }

    /// Runs `body` with a stack scratch area large enough for one multiplication (plus `extra` limbs).
    func withScratch<R>(extra: Int = 0, _ body: (UnsafeMutablePointer<mp_limb_t>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: scratchLimbs + extra) { scratch in
            let result = body(scratch.baseAddress!)  // invariant: capacity > 0
            secureZero(UnsafeMutableRawBufferPointer(scratch))
            return result
        }
    }

    /// r = a·b·R⁻¹ mod N (all n limbs; r may alias a or b).
    func multiply(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>, _ b: UnsafePointer<mp_limb_t>) {
        withScratch { c_authcore_mpn_montmul(r, a, b, modulusLimbs.pointer, limbCount, minusInverse, $0) }
    }

    /// r = a²·R⁻¹ mod N.
    func square(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>) {
        withScratch { c_authcore_mpn_montsqr(r, a, modulusLimbs.pointer, limbCount, minusInverse, $0) }
    }

    /// Into Montgomery form: r = a·R mod N, for a < N.
    func enter(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>) {
        multiply(r, a, rSquared.pointer)
    }

    /// Out of Montgomery form, fully reduced: r = a·R⁻¹ mod N in [0, N).
    func leave(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>) {
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: limbCount) { unit in
            unit.initialize(repeating: 0)
            unit[0] = 1
            multiply(r, a, unit.baseAddress!)  // invariant: capacity > 0
        }
        reduceOnce(r)
    }

    // MARK: - Modular sums, differences and checks (all constant time)

    /// Brings r, below 2^(64n) and congruent mod N, into [0, N).
    func reduceOnce(_ r: UnsafeMutablePointer<mp_limb_t>) {
        withScratch { c_authcore_mpn_sec_reduce_once(r, modulusLimbs.pointer, limbCount, $0) }
    }

    /// r = (a + b) mod N for a, b in [0, N) (r may alias either).
    func add(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>, _ b: UnsafePointer<mp_limb_t>) {
        withScratch { c_authcore_mpn_add_mod(r, a, b, modulusLimbs.pointer, limbCount, $0) }
    }

    /// r = (a - b) mod N for a, b in [0, N) (r may alias either).
    func subtract(_ r: UnsafeMutablePointer<mp_limb_t>, _ a: UnsafePointer<mp_limb_t>, _ b: UnsafePointer<mp_limb_t>) {
        c_authcore_mpn_sub_mod(r, a, b, modulusLimbs.pointer, limbCount)
    }

    /// 1 when every limb of a is zero, else 0 (a secret bit: declassify only the verdict).
    func isZero(_ a: UnsafePointer<mp_limb_t>) -> mp_limb_t {
        c_authcore_mpn_sec_is_zero(a, limbCount)
    }

    /// 1 when 0 < a < N, else 0 (a secret bit: declassify only the verdict).
    func isInRange(_ a: UnsafePointer<mp_limb_t>) -> mp_limb_t {
        let below = withScratch { c_authcore_mpn_sec_less_than(a, modulusLimbs.pointer, limbCount, $0) }
        return below & (isZero(a) ^ 1)
    }

    /// 1 when 2 ≤ a ≤ N − 2, else 0 (a secret bit: declassify only the verdict).
    func isInVerifierRange(_ a: UnsafePointer<mp_limb_t>) -> mp_limb_t {
        withScratch { c_authcore_mpn_sec_in_verifier_range(a, modulusLimbs.pointer, limbCount, $0) }
    }

    // MARK: - Exponentiation with secrets

    /// `base^exponent mod N`, side-channel silent in both the base and the exponent, with `kernel`
    /// (``SecretPowerKernel/preferred`` unless a test or a benchmark names one). The base is n limbs
    /// (never normalised: its leading zero bytes change nothing), the exponent below 2^`bitCount`,
    /// where `bitCount` is the operation's public declared length (design.md, "Performance strategy").
    func secretPower(
        base: LimbBuffer,
        exponent: LimbBuffer,
        bitCount: Int,
        kernel: SecretPowerKernel = .preferred
    ) -> LimbBuffer {
        let n = limbCount
        // invariant: built by the engine
        precondition(base.count == n && bitCount >= 1 && exponent.count * 64 >= bitCount, "fixed-width operands")
        let result = LimbBuffer(count: n)
        let itch = secretPowers.scratchLimbs(bitCount: bitCount, kernel: kernel)
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: itch) { scratch in
            secretPowers.power(
                result.pointer,
                base: base.pointer,
                exponent: exponent.pointer,
                bitCount: bitCount,
                kernel: kernel,
                scratch: scratch.baseAddress!
            )  // invariant: itch > 0
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
        return result
    }

    // MARK: - On BigUInt values

    /// `base^exponent mod N` with a named kernel, for the differential tests, the fuzzer, the
    /// benchmarks and the constant-flow gates: `base` any value below 2^(64·n) (not reduced), the
    /// exponent below 2^`bitCount`.
    package func secretPower(_ base: BigUInt, exponent: BigUInt, bitCount: Int, kernel: SecretPowerKernel) -> BigUInt {
        secretPower(
            base: LimbBuffer(base, count: limbCount),
            exponent: LimbBuffer(exponent, count: (bitCount + 63) / 64),
            bitCount: bitCount,
            kernel: kernel
        ).bigUInt
    }

    /// The same with the operands already in fixed-width limbs: the returned work runs the kernel
    /// alone (what the gates time and count).
    package func preparedSecretPower(
        _ base: BigUInt,
        exponent: BigUInt,
        bitCount: Int,
        kernel: SecretPowerKernel
    ) -> () -> Void {
        let baseLimbs = LimbBuffer(base, count: limbCount)
        let exponentLimbs = LimbBuffer(exponent, count: (bitCount + 63) / 64)
        return { _ = self.secretPower(base: baseLimbs, exponent: exponentLimbs, bitCount: bitCount, kernel: kernel) }
    }

    /// (a·b) mod N for a, b < N, in constant time.
    package func multiplyModN(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let x = LimbBuffer(a, count: limbCount)
        let y = LimbBuffer(b, count: limbCount)
        enter(x.pointer, x.pointer)
        multiply(x.pointer, x.pointer, y.pointer)  // (a·R)(b)·R⁻¹ = a·b
        reduceOnce(x.pointer)
        return x.bigUInt
    }

    /// (a - b) mod N for a, b < N, in constant time.
    package func subtractModN(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let x = LimbBuffer(a, count: limbCount)
        let y = LimbBuffer(b, count: limbCount)
        subtract(x.pointer, x.pointer, y.pointer)
        return x.bigUInt
    }
}
