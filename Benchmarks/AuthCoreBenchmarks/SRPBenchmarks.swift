import AuthCore
import CAuthCoreBaselines

/// SRP-6a: g^a through the fixed-base table vs the generic constant-time path vs `mpz_powm_sec`;
/// the premaster-secret kernel; whole handshakes.
func srpBenchmarks() -> [BenchmarkCase] {
    var random = BenchmarkRandom(state: 0x5EED_0002)
    let group = SRPGroup.rfc5054Group3072
    let n = group.modulus
    let nBytes = n.minimalBigEndianBytes
    var aBytes = random.bytes(32)
    aBytes[0] |= 0x80
    let a = BigUInt(bigEndianBytes: aBytes)
    _ = try? group.generatorPower(secretExponent: a, exponentBitCount: 256)  // build the table outside the timing
    var eBytes = [0x01] + random.bytes(64)
    eBytes[1] |= 0x80
    let e513 = BigUInt(bigEndianBytes: eBytes)
    let base = (try? BigUInt(bigEndianBytes: random.bytes(384)).modulo(n)) ?? BigUInt(7)
    let baseBytes = base.minimalBigEndianBytes
    let domain = MontgomeryDomain(modulus: n)
    /// One secret-power kernel alone on prepared limbs (`base` and, unless named, the 513-bit exponent).
    func kernelRow(
        _ name: String,
        note: String,
        kernel: SecretPowerKernel,
        exponent: (value: BigUInt, bitCount: Int) = (e513, 513),
        pairedWith: String? = nil
    ) -> BenchmarkCase {
        BenchmarkCase(name: name, note: note, pairedWith: pairedWith) { iterations in
            let work = domain.preparedSecretPower(
                base,
                exponent: exponent.value,
                bitCount: exponent.bitCount,
                kernel: kernel
            )
            for _ in 0..<iterations { work() }
        }
    }

    var cases: [BenchmarkCase] = [
        BenchmarkCase(name: "srp.gpow.3072.e256", note: "fixed-base comb, 5-bit windows") { iterations in
            for _ in 0..<iterations { blackHole(try? group.generatorPower(secretExponent: a, exponentBitCount: 256)) }
        },
        BenchmarkCase(
            name: "srp.gpow.3072.e256.generic",
            note: "secret-power kernel (\(SecretPowerKernel.preferred)), no table"
        ) { iterations in
            guard let context = try? ModularContext(modulus: n, maximumExponentBitCount: 256) else { return }
            for _ in 0..<iterations {
                blackHole(try? context.power(group.generator, secretExponent: a, exponentBitCount: 256))
            }
        },
        BenchmarkCase(name: "c.srp.gpow.3072.e256", note: "mpz_powm_sec") { iterations in
            var out = [UInt8](repeating: 0, count: 384)
            let g: [UInt8] = [5]
            g.withUnsafeBytes { gb in
                aBytes.withUnsafeBytes { eb in
                    nBytes.withUnsafeBytes { nb in
                        _ = c_authcore_baseline_powm_sec(
                            gb.baseAddress,
                            1,
                            eb.baseAddress,
                            eb.count,
                            nb.baseAddress,
                            nb.count,
                            iterations,
                            &out,
                            out.count
                        )
                    }
                }
            }
            blackHole(out)
        },
        BenchmarkCase(
            name: "srp.spow.3072.e513",
            note: "premaster: \(SecretPowerKernel.preferred) kernel, fixed-width base and exponent"
        ) { iterations in
            for _ in 0..<iterations {
                blackHole(try? group.variableBasePower(base, secretExponent: e513, exponentBitCount: 513))
            }
        },
        // The kernels side by side on the same limbs (issue 42): GMP's, the one before, the IFMA
        // kernel's portable twin and the 64-bit-limb kernel; and a 256-bit exponent, the server's v^u and (A·v^u)^b each.
        kernelRow(
            "srp.spow.3072.e513.mpn_sec_powm",
            note: "GMP's mpn_sec_powm (the premaster's kernel before issue 42)",
            kernel: .gmp,
            pairedWith: "srp.spow.3072.e513"
        ),
        kernelRow(
            "srp.spow.3072.e513.portable52",
            note: "the IFMA kernel's portable twin (what valgrind checks)",
            kernel: .portable52
        ),
        kernelRow(
            "srp.spow.3072.e256",
            note: "\(SecretPowerKernel.preferred) kernel, a 256-bit exponent (v^u, (A·v^u)^b)",
            kernel: .preferred,
            exponent: (a, 256)
        ),
        BenchmarkCase(
            name: "c.srp.spow.3072.e513.openssl",
            note: "BN_mod_exp_mont_consttime (the kernel before issue 11)",
            pairedWith: "srp.spow.3072.e513"
        ) { iterations in
            var out = [UInt8](repeating: 0, count: 384)
            baseBytes.withUnsafeBytes { bb in
                eBytes.withUnsafeBytes { eb in
                    nBytes.withUnsafeBytes { nb in
                        _ = c_authcore_baseline_openssl_powm_consttime(
                            bb.baseAddress,
                            bb.count,
                            eb.baseAddress,
                            eb.count,
                            nb.baseAddress,
                            nb.count,
                            iterations,
                            &out,
                            out.count
                        )
                    }
                }
            }
            blackHole(out)
        },
        BenchmarkCase(name: "c.srp.spow.3072.e513", note: "mpz_powm_sec") { iterations in
            var out = [UInt8](repeating: 0, count: 384)
            baseBytes.withUnsafeBytes { bb in
                eBytes.withUnsafeBytes { eb in
                    nBytes.withUnsafeBytes { nb in
                        _ = c_authcore_baseline_powm_sec(
                            bb.baseAddress,
                            bb.count,
                            eb.baseAddress,
                            eb.count,
                            nb.baseAddress,
                            nb.count,
                            iterations,
                            &out,
                            out.count
                        )
                    }
                }
            }
            blackHole(out)
        },
    ]

    for bits in [2048, 3072, 4096] {
        guard let group = try? SRPGroup(named: "\(bits)"),
            let configuration = try? SRPConfiguration(group: group, hash: .sha256)
        else { continue }
        let client = SRPClient(configuration: configuration)
        let server = SRPServer(configuration: configuration)
        let username = Array("alice@example.com".utf8)
        let password = SecureBytes(Array("correct horse battery staple".utf8))
        guard let verifier = try? configuration.makeVerifier(username: username, password: password) else { continue }
        cases.append(
            BenchmarkCase(name: "srp.handshake.\(bits).sha256", note: "client + server, verifier stored") {
                iterations in
                for _ in 0..<iterations {
                    do {
                        let serverEphemeral = try server.makeEphemeral(verifier: verifier)
                        let b = serverEphemeral.serverPublicValue
                        let clientEphemeral = try client.makeEphemeral()
                        let aValue = clientEphemeral.publicValue
                        let session = try client.processChallenge(
                            username: username,
                            password: password,
                            salt: verifier.salt,
                            serverPublicValue: b,
                            ephemeral: clientEphemeral
                        )
                        let serverSession = try server.verifyClient(
                            username: username,
                            verifier: verifier,
                            clientPublicValue: aValue,
                            clientProof: session.clientProof,
                            ephemeral: serverEphemeral
                        )
                        try session.verifyServerProof(serverSession.serverProof)
                        blackHole(serverSession)
                    } catch {
                        blackHole(error)
                    }
                }
            }
        )
        if bits == 3072 {
            let groupBytes = group.modulus.minimalBigEndianBytes
            cases.append(
                BenchmarkCase(name: "c.srp.handshake.3072.sha256", note: "six mpz_powm_sec, same exponent sizes") {
                    iterations in
                    let checksum = groupBytes.withUnsafeBytes {
                        c_authcore_baseline_srp_handshake_powm_sec($0.baseAddress, $0.count, 5, iterations)
                    }
                    blackHole(checksum)
                }
            )
            cases.append(
                BenchmarkCase(name: "srp.client.3072.sha256", note: "client: (a, A), then S, K, M1, M2 check") {
                    iterations in
                    guard let serverEphemeral = try? server.makeEphemeral(verifier: verifier) else { return }
                    let b = serverEphemeral.serverPublicValue
                    for _ in 0..<iterations {
                        do {
                            let clientEphemeral = try client.makeEphemeral()
                            let session = try client.processChallenge(
                                username: username,
                                password: password,
                                salt: verifier.salt,
                                serverPublicValue: b,
                                ephemeral: clientEphemeral
                            )
                            blackHole(session)
                        } catch {
                            blackHole(error)
                        }
                    }
                }
            )
        }
    }
    // The 64-bit-limb kernel where the processor has BMI2 and ADX, beside the other kernels' rows.
    if SecretPowerKernel.mont64.isAvailable {
        let index = cases.firstIndex { $0.name == "srp.spow.3072.e513.portable52" }.map { $0 + 1 } ?? cases.endIndex
        cases.insert(
            kernelRow(
                "srp.spow.3072.e513.mont64",
                note: "the 64-bit-limb kernel (MULX, ADCX, ADOX; the preferred one without IFMA)",
                kernel: .mont64,
                pairedWith: "srp.spow.3072.e513"
            ),
            at: index
        )
        // Its floor on this processor (issue 42): the same number of row steps with nothing else, so
        // the paired ratio is the kernel's overhead over its own instruction mix.
        let limbs = (nBytes.count + 7) / 8
        func floorRow(_ name: String, bitCount: Int, pairedWith partner: String) -> BenchmarkCase {
            let steps = c_authcore_baseline_powm64_row_steps(limbs, bitCount)
            return BenchmarkCase(
                name: name,
                note: "floor: the mont64 kernel's \(steps) row steps (MULX, ADOX, ADCX) on registers only",
                pairedWith: partner
            ) { iterations in
                blackHole(c_authcore_baseline_row_step_floor(steps, iterations))
            }
        }
        cases.insert(
            floorRow("c.srp.spow.3072.e513.floor", bitCount: 513, pairedWith: "srp.spow.3072.e513.mont64"),
            at: index + 1
        )
        if SecretPowerKernel.preferred == .mont64,
            let e256 = cases.firstIndex(where: { $0.name == "srp.spow.3072.e256" })
        {
            cases.insert(
                floorRow("c.srp.spow.3072.e256.floor", bitCount: 256, pairedWith: "srp.spow.3072.e256"),
                at: e256 + 1
            )
        }
    }
    return cases
}
