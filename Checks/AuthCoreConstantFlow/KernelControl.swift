import AuthCore
import CAuthCoreBigNum

/// The ctgrind control for the secret-power flows: the portable kernel compiled with each window's
/// table entry read at the exponent digit's address (`c_authcore_powm52_indexed_gather_control`).
/// The checker must report it, or the kernel's clean flows prove nothing.
func indexedGatherControl() throws {
    let modulus = SRPGroup.rfc5054Group2048.modulus
    let n = 32
    let digits = c_authcore_powm52_digits(n)
    let square = try BigUInt(2).powerVariableTime(BigUInt(UInt(2 * 52 * digits)), modulo: modulus)  // 2^(2·52·D) mod N
    let m = try littleEndianLimbs(modulus, count: n)
    let r2 = try littleEndianLimbs(square, count: n)
    var base = [UInt](repeating: 0, count: n)
    var exponent = [UInt](repeating: 0, count: 4)
    try base.withUnsafeMutableBytes { try SecretRandom().fill($0) }
    try exponent.withUnsafeMutableBytes { try SecretRandom().fill($0) }
    var result = [UInt](repeating: 0, count: n)
    var scratch = [UInt](repeating: 0, count: c_authcore_powm52_scratch_limbs(n, 256))
    c_authcore_powm52_indexed_gather_control(&result, base, exponent, 256, m, r2, n, &scratch)
}

/// base^e mod N on the 64-bit-limb kernel, called directly (valgrind runs MULX, ADCX and ADOX but
/// hides ADX from CPUID, so `SecretPowerKernel.mont64` is unavailable under it): a base of N's limb
/// count and an exponent from the secret generator (secret to the checker), neither reduced.
/// `control` runs the kernel's compilation that reads each window's entry at the digit's address.
func mont64Power(modulus: BigUInt, exponentBits: Int, control: Bool = false) throws {
    let n = (modulus.bitWidth + 63) / 64
    let square = try BigUInt(2).powerVariableTime(BigUInt(UInt(128 * n)), modulo: modulus)  // 2^(128·n) mod N
    let m = try littleEndianLimbs(modulus, count: n)
    let r2 = try littleEndianLimbs(square, count: n)
    var base = [UInt](repeating: 0, count: n)
    var exponent = [UInt](repeating: 0, count: (exponentBits + 63) / 64)
    try base.withUnsafeMutableBytes { try SecretRandom().fill($0) }
    try exponent.withUnsafeMutableBytes { try SecretRandom().fill($0) }
    // Bits from the declared length up are zero (the kernel ignores them; mpz_powm below would not).
    if exponentBits % 64 != 0 { exponent[exponent.count - 1] &= (1 << UInt(exponentBits % 64)) - 1 }
    var result = [UInt](repeating: 0, count: n)
    var scratch = [UInt](repeating: 0, count: c_authcore_powm64_scratch_limbs(n, exponentBits))
    let power = control ? c_authcore_powm64_indexed_gather_control : c_authcore_powm64
    power(&result, base, exponent, exponentBits, m, r2, n, &scratch)
    // The result against mpz_powm, on the values declassified (after the kernel: a kernel that wrote
    // nothing would leave no report either).
    for buffer in [base, exponent, result] { buffer.withUnsafeBytes { ConstantFlow.declassify($0) } }
    let expected = try value(ofLimbs: base).powerVariableTime(value(ofLimbs: exponent), modulo: modulus)
    guard value(ofLimbs: result) == expected else {
        throw AuthCoreError(.proofMismatch, "the 64-bit-limb kernel's result differs from mpz_powm")
    }
}

/// g^e mod N by the 64-bit-limb kernel's fixed-base comb, called on a table in GMP's n-limb
/// Montgomery form (the kernel's own; valgrind hides ADX, so the table cannot name the kernel
/// itself), the exponent random and marked secret once it is a number (its conversion normalises,
/// which is not the comb's work); the result checked against mpz_powm after declassifying.
func mont64Comb(group: SRPGroup, exponentBits: Int) throws {
    let table = FixedBaseTable(
        base: group.generator,
        domain: MontgomeryDomain(modulus: group.modulus),
        maximumExponentBitCount: exponentBits,
        kernel: .gmp
    )
    var bytes = [UInt8](repeating: 0, count: (exponentBits + 7) / 8)
    try bytes.withUnsafeMutableBytes { try SystemRandom().fill($0) }
    let exponent = BigUInt(bigEndianBytes: bytes)
    markSecret(exponent)
    let result = table.limbCombPower(exponent, exponentBitCount: exponentBits)
    result.withUnsafeBytes { ConstantFlow.declassify($0) }
    exponent.withUnsafeLimbBytes { ConstantFlow.declassify($0) }
    guard value(ofLimbs: result) == (try group.generator.powerVariableTime(exponent, modulo: group.modulus)) else {
        throw AuthCoreError(.proofMismatch, "the 64-bit-limb kernel's comb differs from mpz_powm")
    }
}

/// The number whose little-endian 64-bit limbs these are.
private func value(ofLimbs limbs: [UInt]) -> BigUInt {
    BigUInt(
        bigEndianBytes: limbs.reversed().flatMap { limb in
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> (8 * $0)) }
        }
    )
}

/// base^e mod N on the 64-bit-limb kernel, called directly (as ``mont64Power(modulus:exponentBits:control:)``),
/// prepared for `make ct-count`: the limbs and the scratch are built here, the closure runs the kernel
/// alone. `base` is below 2^(64·n), `exponent` below 2^`bitCount`.
func preparedMont64Power(modulus: BigUInt, base: BigUInt, exponent: BigUInt, bitCount: Int) throws -> () -> Void {
    final class Work {
        let n: Int
        let bitCount: Int
        let m: [UInt]
        let r2: [UInt]
        let base: [UInt]
        let exponent: [UInt]
        var result: [UInt]
        var scratch: [UInt]
        init(modulus: BigUInt, base: BigUInt, exponent: BigUInt, bitCount: Int) throws {
            n = (modulus.bitWidth + 63) / 64
            self.bitCount = bitCount
            let square = try BigUInt(2).powerVariableTime(BigUInt(UInt(128 * n)), modulo: modulus)
            m = try littleEndianLimbs(modulus, count: n)
            r2 = try littleEndianLimbs(square, count: n)
            self.base = try littleEndianLimbs(base, count: n)
            self.exponent = try littleEndianLimbs(exponent, count: (bitCount + 63) / 64)
            result = [UInt](repeating: 0, count: n)
            scratch = [UInt](repeating: 0, count: c_authcore_powm64_scratch_limbs(n, bitCount))
        }
        func run() {
            result.withUnsafeMutableBufferPointer { result in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    c_authcore_powm64(
                        result.baseAddress,
                        base,
                        exponent,
                        bitCount,
                        m,
                        r2,
                        n,
                        scratch.baseAddress
                    )
                }
            }
        }
    }
    let work = try Work(modulus: modulus, base: base, exponent: exponent, bitCount: bitCount)
    return { work.run() }
}

/// A public value as n little-endian 64-bit limbs.
private func littleEndianLimbs(_ value: BigUInt, count: Int) throws -> [UInt] {
    let bytes = try value.bigEndianBytes(paddedTo: 8 * count)
    return (0..<count).map { index in
        bytes[(8 * (count - 1 - index))..<(8 * (count - index))].reduce(UInt(0)) { $0 << 8 | UInt($1) }
    }
}
