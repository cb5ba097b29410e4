import AuthCore
import CAuthCoreBaselines

/// SHA-256, HMAC-SHA256 and HKDF benchmarks with their C twins.
func digestBenchmarks() -> [BenchmarkCase] {
    var cases: [BenchmarkCase] = []
    for (label, size) in [("64B", 64), ("1KiB", 1024), ("1MiB", 1 << 20)] {
        let message = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        cases.append(
            BenchmarkCase(name: "sha256.\(label)", bytesPerIteration: size) { n in
                message.withUnsafeBytes { buffer in
                    for _ in 0..<n { blackHole(SHA256.hash(bufferPointer: buffer)) }
                }
            }
        )
        cases.append(
            BenchmarkCase(name: "c.sha256.\(label)", bytesPerIteration: size) { n in
                var out = [UInt8](repeating: 0, count: 32)
                message.withUnsafeBytes { c_authcore_baseline_sha256($0.baseAddress, size, n, &out) }
                blackHole(out)
            }
        )
    }

    let key = [UInt8](repeating: 0x4B, count: 32)
    let message200 = [UInt8]((0..<200).map { UInt8(truncatingIfNeeded: $0) })
    cases.append(
        BenchmarkCase(name: "hmac-sha256.200B", bytesPerIteration: 200, note: "reused keyed context") { n in
            var mac = KeyedHMAC(algorithm: .sha256, key: key)
            message200.withUnsafeBytes { buffer in
                for _ in 0..<n { blackHole(mac.authenticationCode(for: buffer)) }
            }
        }
    )
    cases.append(
        BenchmarkCase(name: "c.hmac-sha256.200B", bytesPerIteration: 200) { n in
            var out = [UInt8](repeating: 0, count: 32)
            key.withUnsafeBytes { k in
                message200.withUnsafeBytes { m in
                    c_authcore_baseline_hmac_sha256_reused(k.baseAddress, k.count, m.baseAddress, m.count, n, &out)
                }
            }
            blackHole(out)
        }
    )
    cases.append(
        BenchmarkCase(name: "hmac-sha256.200B.oneshot", bytesPerIteration: 200, note: "keyed per call") { n in
            key.withUnsafeBytes { k in
                message200.withUnsafeBytes { m in
                    for _ in 0..<n { blackHole(HMAC<SHA256>.authenticationCode(for: m, using: k)) }
                }
            }
        }
    )

    // HKDF as Cognito uses it: salt = PADs(u) (32 bytes), IKM = PADs(S) (384 bytes), 16 bytes out.
    let salt = [UInt8](repeating: 0x9C, count: 32)
    let ikm = [UInt8]((0..<384).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let info = Array("Caldera Derived Key".utf8)
    cases.append(
        BenchmarkCase(name: "hkdf.cognito", note: "SHA-256, 384 B IKM, 16 B out") { n in
            for _ in 0..<n {
                let prk = ikm.withUnsafeBytes { i in
                    salt.withUnsafeBytes { HashAlgorithm.sha256.hkdfExtract(inputKeyMaterial: i, salt: $0) }
                }
                blackHole(try? HKDF<SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: 16))
            }
        }
    )
    cases.append(
        BenchmarkCase(name: "c.hkdf.cognito") { n in
            var out = [UInt8](repeating: 0, count: 16)
            ikm.withUnsafeBytes { i in
                salt.withUnsafeBytes { s in
                    c_authcore_baseline_hkdf_cognito(i.baseAddress, i.count, s.baseAddress, s.count, n, &out)
                }
            }
            blackHole(out)
        }
    )
    return cases
}
