internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// The implementations of `base^e mod N` for a secret base and a secret exponent.
///
/// Each reads every limb of its operands and runs for a time that depends only on N's limb count
/// and the exponent's declared bit length; none normalises the base.
package enum SecretPowerKernel: Sendable, CaseIterable, CustomStringConvertible {
    /// AuthCore's kernel with AVX-512 IFMA: 52-bit digits, almost-Montgomery multiplication
    /// (Gueron–Krasnov, ARITH 2016), fixed windows, full-table gathers (`c_authcore_powm52_ifma`).
    case ifma52
    /// The same algorithm in portable C, lane by lane (`c_authcore_powm52_portable`): what valgrind
    /// checks, and a kernel for platforms without GMP.
    case portable52
    /// AuthCore's kernel over 64-bit limbs (`c_authcore_powm64`): Montgomery multiplication by rows
    /// of MULX with two carry chains (ADCX, ADOX), a dedicated squaring, REDC, fixed windows,
    /// full-table gathers. For x86-64 processors with BMI2 and ADX but no IFMA; nothing from GMP.
    case mont64
    /// GMP's `mpn_sec_powm`.
    case gmp

    /// The kernel used unless a caller names one: IFMA when the processor and the operating system
    /// have it, else the 64-bit-limb kernel when the processor has BMI2 and ADX (on an AMD EPYC
    /// without AVX-512, 3072-bit N and a 513-bit exponent: 1.33 ms against `mpn_sec_powm`'s 1.9 ms
    /// and OpenSSL's `BN_mod_exp_mont_consttime`'s 1.41 ms, `authcore-bench`'s `srp.spow.3072.e513`
    /// rows), else GMP's.
    package static let preferred: SecretPowerKernel = hasIFMA ? .ifma52 : hasADX ? .mont64 : .gmp

    /// CPUID and XGETBV, asked once (in a virtual machine each is a trip to the hypervisor).
    private static let hasIFMA = c_authcore_powm52_ifma_available() != 0
    private static let hasADX = c_authcore_powm64_available() != 0

    /// Whether this process can run the kernel.
    package var isAvailable: Bool {
        switch self {
        case .ifma52: Self.hasIFMA
        case .mont64: Self.hasADX
        case .portable52, .gmp: true
        }
    }

    /// The kernels' window width (AuthCore's three) for an exponent of `exponentBitCount` bits (never
    /// narrower for a longer exponent).
    package static func windowWidth(exponentBitCount: Int) -> Int {
        Int(c_authcore_powm52_window(exponentBitCount))
    }

    package var description: String {
        switch self {
        case .ifma52: "ifma52"
        case .portable52: "portable52"
        case .mont64: "mont64"
        case .gmp: "mpn_sec_powm"
        }
    }
}

/// `base^e mod N` for one odd N, with the public constants the kernels need computed once.
///
/// The one home of secret exponentiation: ``MontgomeryDomain`` (the SRP engine) and
/// ``ModularContext`` both call ``power(_:base:exponent:bitCount:kernel:scratch:)``.
struct SecretPowerModulus: @unchecked Sendable {
    // invariant: immutable after init.
    let modulusLimbs: LimbBuffer
    let limbCount: Int
    /// 2^(2·52·D) mod N for the radix-2^52 kernels, D = `c_authcore_powm52_digits(n)` (public);
    /// nil for an N beyond their reach, which then runs GMP's kernel.
    let digitSquare: LimbBuffer?
    /// 2^(2·64·n) mod N for the 64-bit-limb kernel (public); nil when `digitSquare` is, or where the
    /// kernel cannot run.
    let limbSquare: LimbBuffer?

    /// The largest N, in limbs, the radix-2^52 kernels take (16,384 bits: every modulus that
    /// ``ModularContext`` and ``SRPGroup`` accept).
    static let maximumLimbCount = Int(C_AUTHCORE_POWM52_MAX_LIMBS)

    init(modulus: BigUInt, modulusLimbs: LimbBuffer) {
        self.modulusLimbs = modulusLimbs
        limbCount = modulusLimbs.count
        guard limbCount <= Self.maximumLimbCount else {
            digitSquare = nil
            limbSquare = nil
            return
        }
        let digits = Int(c_authcore_powm52_digits(limbCount))
        let r = BigUInt.powerOfTwo(52 * digits)
        let r2 = BigUInt.result {
            c_authcore_mpz_mul($0, r.storage.pointer, r.storage.pointer)
            c_authcore_mpz_mod($0, $0, modulus.storage.pointer)
        }
        digitSquare = LimbBuffer(r2, count: limbCount)
        guard SecretPowerKernel.mont64.isAvailable else {
            limbSquare = nil
            return
        }
        let limbR = BigUInt.powerOfTwo(64 * limbCount)
        let limbR2 = BigUInt.result {
            c_authcore_mpz_mul($0, limbR.storage.pointer, limbR.storage.pointer)
            c_authcore_mpz_mod($0, $0, modulus.storage.pointer)
        }
        limbSquare = LimbBuffer(limbR2, count: limbCount)
    }

    /// The kernel that runs when `kernel` is asked for: itself, or GMP's for an N beyond the
    /// radix-2^52 kernels' reach.
    func effective(_ kernel: SecretPowerKernel) -> SecretPowerKernel {
        digitSquare == nil ? .gmp : kernel
    }

    /// The scratch limbs ``power(_:base:exponent:bitCount:kernel:scratch:)`` needs.
    func scratchLimbs(bitCount: Int, kernel: SecretPowerKernel) -> Int {
        switch effective(kernel) {
        case .gmp: Int(c_authcore_mpn_sec_powm_itch(limbCount, mp_bitcnt_t(bitCount), limbCount))
        case .ifma52, .portable52: Int(c_authcore_powm52_scratch_limbs(limbCount, bitCount))
        case .mont64: Int(c_authcore_powm64_scratch_limbs(limbCount, bitCount))
        }
    }

    /// result = base^exponent mod N, fully reduced: `result` and `base` are N's limb count (the base
    /// any value of that width, never normalised), the exponent ⌈`bitCount`/64⌉ limbs below
    /// 2^`bitCount`, the declared public length. `scratch` holds ``scratchLimbs(bitCount:kernel:)``
    /// limbs and holds secrets afterwards: the caller wipes it.
    func power(
        _ result: UnsafeMutablePointer<mp_limb_t>,
        base: UnsafePointer<mp_limb_t>,
        exponent: UnsafePointer<mp_limb_t>,
        bitCount: Int,
        kernel: SecretPowerKernel,
        scratch: UnsafeMutablePointer<mp_limb_t>
    ) {
        // invariant: callers use .preferred or check
        precondition(kernel.isAvailable && bitCount >= 1, "an available kernel and a declared length")
        let n = limbCount
        switch (effective(kernel), digitSquare, limbSquare) {
        case (.ifma52, let square?, _):
            c_authcore_powm52_ifma(result, base, exponent, bitCount, modulusLimbs.pointer, square.pointer, n, scratch)
        case (.portable52, let square?, _):
            c_authcore_powm52_portable(
                result,
                base,
                exponent,
                bitCount,
                modulusLimbs.pointer,
                square.pointer,
                n,
                scratch
            )
        case (.mont64, _, let square?):
            c_authcore_powm64(result, base, exponent, bitCount, modulusLimbs.pointer, square.pointer, n, scratch)
        case (.gmp, _, _):
            c_authcore_mpn_sec_powm(result, base, n, exponent, mp_bitcnt_t(bitCount), modulusLimbs.pointer, n, scratch)
        default:
            // invariant: `effective` names GMP's kernel exactly when the squares are nil, and the
            // 64-bit-limb kernel's is there whenever the kernel is available
            preconditionFailure("a secret-power kernel without its public constant")
        }
    }
}
