import AuthCore
import CAuthCoreBaselines

/// A deterministic generator for benchmark inputs (xorshift; not for secrets).
struct BenchmarkRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// Constant-time modular exponentiation against `mpz_powm_sec`.
func modexpBenchmarks() -> [BenchmarkCase] {
    var random = BenchmarkRandom(state: 0x5EED_0001)
    let modulus = SRPGroup.rfc5054Group3072.modulus
    let modulusBytes = modulus.minimalBigEndianBytes
    var baseBytes = random.bytes(384)
    baseBytes[0] &= 0x7F
    var exponentBytes = random.bytes(128)
    exponentBytes[0] |= 0x80
    let base = BigUInt(bigEndianBytes: baseBytes)
    let exponent = BigUInt(bigEndianBytes: exponentBytes)
    return [
        BenchmarkCase(
            name: "modexp.3072.e1024.secret",
            note: "secret-power kernel (\(SecretPowerKernel.preferred)), scratch per context"
        ) { n in
            guard let context = try? ModularContext(modulus: modulus, maximumExponentBitCount: 1024) else { return }
            for _ in 0..<n { blackHole(try? context.power(base, secretExponent: exponent, exponentBitCount: 1024)) }
        },
        BenchmarkCase(name: "c.modexp.3072.e1024.secret", note: "mpz_powm_sec") { n in
            var out = [UInt8](repeating: 0, count: 384)
            baseBytes.withUnsafeBytes { b in
                exponentBytes.withUnsafeBytes { e in
                    modulusBytes.withUnsafeBytes { m in
                        _ = c_authcore_baseline_powm_sec(
                            b.baseAddress,
                            b.count,
                            e.baseAddress,
                            e.count,
                            m.baseAddress,
                            m.count,
                            n,
                            &out,
                            out.count
                        )
                    }
                }
            }
            blackHole(out)
        },
    ]
}
