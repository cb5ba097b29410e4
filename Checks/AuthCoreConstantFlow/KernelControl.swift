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

/// A public value as n little-endian 64-bit limbs.
private func littleEndianLimbs(_ value: BigUInt, count: Int) throws -> [UInt] {
    let bytes = try value.bigEndianBytes(paddedTo: 8 * count)
    return (0..<count).map { index in
        bytes[(8 * (count - 1 - index))..<(8 * (count - index))].reduce(UInt(0)) { $0 << 8 | UInt($1) }
    }
}
