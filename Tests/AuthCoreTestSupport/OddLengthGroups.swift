public import AuthCore

/// Odd moduli of 1029, 1535 and 2047 bits, whose top word is partly empty (issue 42): the low bits of
/// RFC 5054's 2048-bit prime with the length's top bit set. Odd, not prime: the handshake's algebra
/// holds for any odd N, and the tests using them compare with plain arithmetic or run both sides;
/// safe primes of these lengths are the vectors' (`vectors/srp6a-srptools.json`).
public enum OddLengthGroups {
    public static let group1029 = group(bits: 1029)
    public static let group1535 = group(bits: 1535)
    public static let group2047 = group(bits: 2047)
    public static let all = [group1029, group1535, group2047]

    private static func group(bits: Int) -> SRPGroup {
        let top = powerOfTwo(bits - 1)
        // invariant: N mod 2^(bits-1) is odd (N is), so the sum is odd, of exactly `bits` bits.
        guard let low = try? SRPGroup.rfc5054Group2048.modulus.modulo(top),
            let group = try? SRPGroup(modulus: low + top, generator: BigUInt(2))
        else { preconditionFailure("an odd-length test group could not be made") }
        return group
    }

    /// 2^bits.
    public static func powerOfTwo(_ bits: Int) -> BigUInt {
        BigUInt(bigEndianBytes: [UInt8(1) << (bits % 8)] + [UInt8](repeating: 0, count: bits / 8))
    }
}
