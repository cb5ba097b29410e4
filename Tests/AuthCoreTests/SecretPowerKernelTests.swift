import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// The secret-power kernels (issue 42, item 1) against GMP's `mpz_powm` (variable time, the oracle):
/// AVX-512 IFMA, its portable twin, the 64-bit-limb kernel and `mpn_sec_powm`, on random odd moduli from 2 to 8192 bits,
/// unreduced bases and exponents at their declared lengths.
@Suite("Secret-power kernels against mpz_powm")
struct SecretPowerKernelTests {
    /// The kernels this process can run (IFMA on this project's machines: see `preferredKernel`).
    let kernels = SecretPowerKernel.allCases.filter(\.isAvailable)

    /// A random odd modulus of exactly `bits` bits (above 1).
    func modulus(bits: Int, _ random: SeededRandom) -> BigUInt {
        var bytes = random.bytes((bits + 7) / 8)
        let spare = bytes.count * 8 - bits
        bytes[0] &= UInt8(0xFF >> spare)
        bytes[0] |= UInt8(0x80 >> spare)
        bytes[bytes.count - 1] |= 1
        let value = BigUInt(bigEndianBytes: bytes)
        return value > BigUInt(1) ? value : BigUInt(3)
    }

    /// A random value below 2^bits.
    func value(bits: Int, _ random: SeededRandom) -> BigUInt {
        guard bits > 0 else { return BigUInt() }
        var bytes = random.bytes((bits + 7) / 8)
        bytes[0] &= UInt8(0xFF >> (bytes.count * 8 - bits))
        return BigUInt(bigEndianBytes: bytes)
    }

    /// 2^bits − 1.
    func ones(_ bits: Int) -> BigUInt {
        var bytes = [UInt8](repeating: 0xFF, count: (bits + 7) / 8)
        bytes[0] >>= bytes.count * 8 - bits
        return BigUInt(bigEndianBytes: bytes)
    }

    func expectAgreement(
        _ domain: MontgomeryDomain,
        modulus: BigUInt,
        base: BigUInt,
        exponent: BigUInt,
        bitCount: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = try base.powerVariableTime(exponent, modulo: modulus)
        for kernel in kernels {
            let result = domain.secretPower(base, exponent: exponent, bitCount: bitCount, kernel: kernel)
            #expect(
                result == expected,
                "\(kernel), \(modulus.bitWidth)-bit N, \(bitCount)-bit exponent",
                sourceLocation: sourceLocation
            )
        }
    }

    @Test("every kernel equals mpz_powm on random moduli of 2 to 8192 bits, random unreduced bases and exponents")
    func randomModuli() throws {
        // The portable twin and GMP's everywhere; IFMA, and the 64-bit-limb kernel (BMI2 and ADX),
        // where the processor has them (`preferredKernel` checks that against /proc/cpuinfo).
        #expect(
            kernels.count
                == 2 + (SecretPowerKernel.ifma52.isAvailable ? 1 : 0) + (SecretPowerKernel.mont64.isAvailable ? 1 : 0)
        )
        let random = SeededRandom(seed: 0x42_52)
        let sizes = [2, 3, 17, 52, 63, 64, 65, 104, 127, 500, 1024, 1029, 1535, 2047, 2048, 3072, 4096, 6144, 8192]
        for bits in sizes {
            let n = modulus(bits: bits, random)
            let domain = MontgomeryDomain(modulus: n)
            let limbBits = 64 * ((bits + 63) / 64)
            let exponentLengths = bits > 3000 ? [1, 256, 513] : [1, 5, 64, 256, 513, 1030]
            for bitCount in exponentLengths {
                // A base below N, then one anywhere below 2^(64·n) (the kernels never reduce it first).
                try expectAgreement(
                    domain,
                    modulus: n,
                    base: value(bits: bits - 1, random),
                    exponent: value(bits: bitCount, random),
                    bitCount: bitCount
                )
                try expectAgreement(
                    domain,
                    modulus: n,
                    base: value(bits: limbBits, random),
                    exponent: value(bits: bitCount, random),
                    bitCount: bitCount
                )
            }
        }
    }

    @Test("edge values: bases 0, 1, N−1, N, 2^(64n)−1; exponents 0, 1, all ones, with leading zero bits")
    func edges() throws {
        let random = SeededRandom(seed: 7)
        for n in [
            SRPGroup.rfc5054Group3072.modulus, OddLengthGroups.group1029.modulus, BigUInt(3), modulus(bits: 65, random),
        ] {
            let domain = MontgomeryDomain(modulus: n)
            let allOnes = ones(64 * ((n.bitWidth + 63) / 64))
            for base in [BigUInt(), BigUInt(1), BigUInt(2), n - BigUInt(1), n, allOnes] {
                for (exponent, bitCount) in [
                    (BigUInt(), 1), (BigUInt(), 300), (BigUInt(1), 1), (BigUInt(1), 513), (BigUInt(0x1F), 5),
                    (BigUInt(12345), 700),
                ] {
                    try expectAgreement(domain, modulus: n, base: base, exponent: exponent, bitCount: bitCount)
                }
                try expectAgreement(domain, modulus: n, base: base, exponent: ones(513), bitCount: 513)
            }
        }
    }

    @Test("the fixed-base comb on every kernel equals mpz_powm: windows of 1 to 6 bits, moduli of 65 to 8192 bits")
    func combOnEveryKernel() throws {
        let random = SeededRandom(seed: 0xC0B)
        for (bits, window) in [(65, 1), (1024, 4), (1029, 5), (2047, 6), (3072, 5), (4096, 3), (8192, 5)] {
            let n = modulus(bits: bits, random)
            let domain = MontgomeryDomain(modulus: n)
            let g = value(bits: bits - 1, random)
            for kernel in kernels {
                let table = FixedBaseTable(
                    base: g,
                    domain: domain,
                    window: window,
                    maximumExponentBitCount: 300,
                    kernel: kernel
                )
                for (exponent, bitCount) in [
                    (BigUInt(), 1), (value(bits: 256, random), 256), (ones(300), 300), (value(bits: 31, random), 64),
                ] {
                    #expect(
                        table.power(exponent, exponentBitCount: bitCount)
                            == (try g.powerVariableTime(exponent, modulo: n)),
                        "\(kernel), \(bits)-bit N, window \(window), \(bitCount)-bit exponent"
                    )
                }
            }
        }
    }

    @Test("beyond the radix-2^52 kernels' 16,384 bits every kernel name runs GMP's, and agrees")
    func beyondReach() throws {
        let n = BigUInt(bigEndianBytes: [1] + [UInt8](repeating: 0, count: 2050)) + BigUInt(1)  // 2^16400 + 1
        let domain = MontgomeryDomain(modulus: n)
        try expectAgreement(domain, modulus: n, base: BigUInt(0x1234_5678), exponent: BigUInt(0xFFFF), bitCount: 17)
    }

    @Test("a context sized for a long exponent serves every shorter one (the window never narrows as exponents grow)")
    func contextScratchServesShorterExponents() throws {
        // 326 and 325 bits: the minimum of the rounded-up counts would give 326 bits a 4-bit window
        // and 325 bits a 5-bit one, whose table does not fit the scratch sized for 326.
        let n = SRPGroup.rfc5054Group3072.modulus
        let random = SeededRandom(seed: 326)
        for maximum in [26, 100, 326, 966, 2700] {
            let context = try ModularContext(modulus: n, maximumExponentBitCount: maximum)
            for bitCount in Set([1, 5, 25, 27, 97, 101, 321, 325, 961, 965, 2689, 2699].filter { $0 <= maximum })
                .sorted()
            {
                let base = try value(bits: 3072, random).modulo(n)
                let exponent = value(bits: bitCount, random)
                #expect(
                    try context.power(base, secretExponent: exponent, exponentBitCount: bitCount)
                        == base.powerVariableTime(exponent, modulo: n)
                )
            }
        }
        var previous = 0
        for bits in 1...20_000 {
            let window = SecretPowerKernel.windowWidth(exponentBitCount: bits)
            #expect(window >= previous, "window at \(bits) bits")
            previous = window
        }
        #expect(
            SecretPowerKernel.windowWidth(exponentBitCount: 256) == 4
                && SecretPowerKernel.windowWidth(exponentBitCount: 513) == 5
        )
    }

    @Test("the preferred kernel is IFMA when the processor lists avx512f and avx512ifma, else mont64 with bmi2 and adx")
    func preferredKernel() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? []
        )
        let hasIFMA = flags.contains("avx512f") && flags.contains("avx512ifma")
        let hasADX = flags.contains("bmi2") && flags.contains("adx")
        #expect(SecretPowerKernel.preferred == (hasIFMA ? .ifma52 : hasADX ? .mont64 : .gmp))
        #expect(SecretPowerKernel.ifma52.isAvailable == hasIFMA)
        #expect(SecretPowerKernel.mont64.isAvailable == hasADX)
        #expect(SecretPowerKernel.portable52.isAvailable && SecretPowerKernel.gmp.isAvailable)
    }
}
