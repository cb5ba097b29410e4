import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@Suite("SRP-6a groups (RFC 5054 Appendix A)")
struct SRPGroupTests {
    static let expected: [(Int, UInt)] = [(1024, 2), (1536, 2), (2048, 2), (3072, 5), (4096, 5), (6144, 5), (8192, 19)]

    @Test("each RFC 5054 group has the right size and generator, and N and (N-1)/2 are probable primes")
    func groups() throws {
        #expect(SRPGroup.standard.count == 7)
        for (group, (bits, g)) in zip(SRPGroup.standard, Self.expected) {
            #expect(group.modulus.bitWidth == bits)
            #expect(group.byteCount == bits / 8)
            #expect(group.generator == BigUInt(g))
            #expect(group.name == "rfc5054-\(bits)")
            #expect(group.modulus.isProbablePrime(rounds: 10))
            let q = try (group.modulus - BigUInt(1)).modulo(group.modulus)  // N - 1
            let half = BigUInt(bigEndianBytes: q.minimalBigEndianBytes.shiftedRightOneBit())
            #expect(half.isProbablePrime(rounds: 10), "(N-1)/2 for \(bits)")
            #expect(try SRPGroup(named: "\(bits)") == group)
            #expect(try SRPGroup(named: "rfc5054-\(bits)") == group)
        }
        #expect(errorCode { try SRPGroup(named: "rfc5054-1000") } == .invalidGroup)
    }

    @Test("custom groups are validated: odd N of at least 1024 bits (any length), 1 < g < N - 1")
    func customGroups() throws {
        let n = SRPGroup.rfc5054Group2048.modulus
        let custom = try SRPGroup(modulus: n, generator: BigUInt(5))
        #expect(custom.name == "custom-2048")
        #expect(errorCode { try SRPGroup(modulus: n + BigUInt(1), generator: BigUInt(2)) } == .invalidGroup)  // even
        // small
        #expect(errorCode { try SRPGroup(modulus: BigUInt(0xFFFF_FFFB), generator: BigUInt(2)) } == .invalidGroup)
        #expect(throws: AuthCoreError(.invalidGroup, "N must be odd and at least 1024 bits (got 1023 bits)")) {
            try SRPGroup(modulus: OddLengthGroups.powerOfTwo(1022) + BigUInt(1), generator: BigUInt(2))
        }
        #expect(errorCode { try SRPGroup(modulus: n, generator: BigUInt(1)) } == .invalidGroup)
        #expect(errorCode { try SRPGroup(modulus: n, generator: n - BigUInt(1)) } == .invalidGroup)
        #expect(errorCode { try SRPGroup(modulus: n, generator: BigUInt()) } == .invalidGroup)
        // A short top word is accepted: values below N are held at N's limb count (issue 42).
        let longer = n + n + BigUInt(1)
        #expect(try SRPGroup(modulus: longer, generator: BigUInt(2)).name == "custom-2049")
        #expect(
            try SRPGroup(modulus: OddLengthGroups.powerOfTwo(1023) + BigUInt(1), generator: BigUInt(2)).byteCount == 128
        )
    }

    @Test("odd-length groups (1029, 1535, 2047 bits): handshakes agree with plain arithmetic and verify both ways")
    func oddLengthGroups() throws {
        for group in OddLengthGroups.all {
            let bits = group.modulus.bitWidth
            #expect(bits % 64 != 0)
            for padding in SRPProofPadding.allCases {
                let configuration = try SRPConfiguration(group: group, hash: .sha256, proofPadding: padding)
                let password = SecureBytes(Array("odd \(bits)".utf8))
                let verifier = try configuration.makeVerifier(username: Array("dana".utf8), password: password)
                #expect(verifier.verifierBytes.count == group.byteCount, "v is written at N's byte length")
                #expect(configuration.isAcceptableVerifier(verifier))
                let inner = SHA256.hash(bytes: Array("dana:odd \(bits)".utf8)).bytes
                let x = BigUInt(bigEndianBytes: SHA256.hash(bytes: verifier.salt + inner).bytes)
                #expect(
                    verifier.verifier == (try group.generator.powerVariableTime(x, modulo: group.modulus)),
                    "v = g^x for \(bits)"
                )
                let server = SRPServer(configuration: configuration)
                let client = SRPClient(configuration: configuration)
                let serverEphemeral = try server.makeEphemeral(verifier: verifier)
                let resumed = try server.importEphemeral(serverEphemeral.exportedState())
                #expect(serverEphemeral.exportedState().count == server.exportedEphemeralStateByteCount)
                let clientEphemeral = try client.makeEphemeral()
                let a = clientEphemeral.publicValue
                let session = try client.processChallenge(
                    username: Array("dana".utf8),
                    password: password,
                    salt: verifier.salt,
                    serverPublicValue: resumed.serverPublicValue,
                    ephemeral: clientEphemeral,
                    recordingIntermediates: true
                )
                let serverSession = try server.verifyClient(
                    username: Array("dana".utf8),
                    verifier: verifier,
                    clientPublicValue: a,
                    clientProof: session.clientProof,
                    ephemeral: resumed,
                    recordingIntermediates: true
                )
                let key = try session.verifyServerProof(serverSession.serverProof)
                #expect(key == serverSession.sessionKey)
                #expect(serverSession.premasterSecret == session.intermediates?.premasterSecret)
                // A wrong password is refused by the server.
                let wrongEphemeral = try server.makeEphemeral(verifier: verifier)
                let wrong = try client.processChallenge(
                    username: Array("dana".utf8),
                    password: SecureBytes(Array("wrong".utf8)),
                    salt: verifier.salt,
                    serverPublicValue: wrongEphemeral.serverPublicValue,
                    ephemeral: try client.makeEphemeral()
                )
                var refusal: AuthCoreError.Code?
                do {
                    _ = try server.verifyClient(
                        username: Array("dana".utf8),
                        verifier: verifier,
                        clientPublicValue: wrong.clientPublicValue,
                        clientProof: wrong.clientProof,
                        ephemeral: wrongEphemeral
                    )
                } catch { refusal = error.code }
                #expect(refusal == .proofMismatch)
            }
        }
    }

    @Test("a verifier whose top word is zero in an odd-length group is stored at N's length and used as any other")
    func oddLengthGroupShortVerifier() throws {
        let group = OddLengthGroups.group1535
        let configuration = try SRPConfiguration(group: group, hash: .sha256, proofPadding: .padded)
        // A stand-in v below 2^(64·23) (its top word zero): the server's S must still match plain arithmetic.
        let short = BigUInt(
            bigEndianBytes: [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xA5, count: group.byteCount - 8)
        )
        let asNumber = SRPVerifier(salt: [UInt8](repeating: 3, count: 16), verifier: short)
        #expect(asNumber.verifierBytes.count == group.byteCount - 8)
        let padded = try #require(configuration.verifierAtModulusWidth(asNumber))
        #expect(padded.verifierBytes.count == group.byteCount)
        #expect(padded.verifier == short)
        let server = SRPServer(configuration: configuration)
        let b = BigUInt(bigEndianBytes: [UInt8](repeating: 0x42, count: 32))
        let ephemeral = try server.ephemeral(privateValue: b, verifier: padded)
        let gb = try group.generator.powerVariableTime(b, modulo: group.modulus)
        #expect(ephemeral.serverPublicValue == (try (configuration.multiplier * short + gb).modulo(group.modulus)))
        // Bytes wider than N's length are accepted only when the extra ones are zero.
        let wide = SRPVerifier(
            salt: [1],
            verifierBytes: [0, 0, 0] + (try short.bigEndianBytes(paddedTo: group.byteCount))
        )
        #expect(try #require(configuration.verifierAtModulusWidth(wide)).verifier == short)
        #expect(
            configuration.verifierAtModulusWidth(
                SRPVerifier(salt: [1], verifierBytes: [1] + [UInt8](repeating: 0, count: group.byteCount))
            ) == nil
        )
        // 2…N−2 at N's limb count: 0, 1, N−1, N and wider values are refused.
        for refused in [BigUInt(), BigUInt(1), group.modulus - BigUInt(1), group.modulus, group.modulus + BigUInt(2)] {
            #expect(!configuration.isAcceptableVerifier(refused))
        }
        #expect(configuration.isAcceptableVerifier(BigUInt(2)))
        #expect(configuration.isAcceptableVerifier(group.modulus - BigUInt(2)))
        #expect(
            !configuration.isAcceptableVerifier(
                SRPVerifier(salt: [1], verifierBytes: [UInt8](repeating: 0, count: group.byteCount + 9))
            )
        )
    }

}

extension [UInt8] {
    func shiftedRightOneBit() -> [UInt8] {
        var out = self
        var carry: UInt8 = 0
        for i in out.indices {
            let next = out[i] & 1
            out[i] = out[i] >> 1 | carry << 7
            carry = next
        }
        return out
    }
}

@Suite("SRP-6a client and server")
struct SRPHandshakeTests {
    let username = Array("alice".utf8)
    let password = SecureBytes(Array("password123".utf8))

    func handshake(
        _ configuration: SRPConfiguration,
        clientPassword: SecureBytes? = nil,
        seed: UInt64 = 1
    ) throws -> (SRPClientSession, Result<SRPServerSession, AuthCoreError>) {
        let random = SeededRandom(seed: seed)
        let verifier = try configuration.makeVerifier(username: username, password: password, random: random)
        let server = SRPServer(configuration: configuration)
        let client = SRPClient(configuration: configuration)
        let serverEphemeral = try server.makeEphemeral(verifier: verifier, random: random)
        let b = serverEphemeral.serverPublicValue
        let clientEphemeral = try client.makeEphemeral(random: random)
        let a = clientEphemeral.publicValue
        let session = try client.processChallenge(
            username: username,
            password: clientPassword ?? password,
            salt: verifier.salt,
            serverPublicValue: b.minimalBigEndianBytes,
            ephemeral: clientEphemeral
        )
        do {
            let serverSession = try server.verifyClient(
                username: username,
                verifier: verifier,
                clientPublicValue: a.minimalBigEndianBytes,
                clientProof: session.clientProof,
                ephemeral: serverEphemeral
            )
            return (session, .success(serverSession))
        } catch {
            return (session, .failure(error))
        }
    }

    @Test(
        "a full handshake agrees on K and both proofs verify",
        arguments: [
            (SRPGroup.rfc5054Group1024, HashAlgorithm.sha1), (.rfc5054Group2048, .sha256), (.rfc5054Group3072, .sha256),
            (.rfc5054Group3072, .sha512), (.rfc5054Group4096, .sha256),
        ]
    )
    func roundTrip(group: SRPGroup, hash: HashAlgorithm) throws {
        for padG in [false, true] {
            for padding in SRPProofPadding.allCases {
                let configuration = try SRPConfiguration(
                    group: group,
                    hash: hash,
                    proofPadsG: padG,
                    proofPadding: padding
                )
                let (client, serverResult) = try handshake(configuration)
                let server = try serverResult.get()
                let key = try client.verifyServerProof(server.serverProof)
                #expect(key == server.sessionKey)
                #expect(key.count == hash.byteCount)
            }
        }
    }

    @Test(
        "peers with different proof paddings fail exactly when A, B or S has a leading zero byte (srp6a-padded-proofs inputs)"
    )
    func proofPaddingMismatch() throws {
        let url = repositoryRoot.appendingPathComponent("vectors/srp6a-padded-proofs.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try #require(document["cases"] as? [[String: Any]]).filter {
            ($0["group"] as? String) == "rfc5054-2048" && ($0["hash"] as? String) == "sha256"
        }
        #expect(cases.count == 8)
        for item in cases {
            let name = item["name"] as? String ?? ""
            let padG = (item["options"] as? [String: Any])?["proof_pad_g"] as? Bool ?? false
            let user = Array((item["username"] as? String ?? "").utf8)
            let secret = SecureBytes(Array((item["password"] as? String ?? "").utf8))
            let salt = hex(item["salt_hex"] as? String ?? "")
            let a = BigUInt(bigEndianBytes: hex(item["a_hex"] as? String ?? ""))
            let b = BigUInt(bigEndianBytes: hex(item["b_hex"] as? String ?? ""))
            let paddedSide = try SRPConfiguration(
                group: .rfc5054Group2048,
                hash: .sha256,
                proofPadsG: padG,
                proofPadding: .padded
            )
            let minimalSide = try SRPConfiguration(
                group: .rfc5054Group2048,
                hash: .sha256,
                proofPadsG: padG,
                proofPadding: .minimal
            )
            let verifier = try minimalSide.makeVerifier(username: user, password: secret, salt: salt)
            let serverEphemeral = try SRPServer(configuration: minimalSide).ephemeral(
                privateValue: b,
                verifier: verifier
            )
            let session = try SRPClient(configuration: paddedSide).processChallenge(
                username: user,
                password: secret,
                salt: salt,
                serverPublicValue: serverEphemeral.serverPublicValue,
                ephemeral: try SRPClient(configuration: paddedSide).ephemeral(privateValue: a)
            )
            let accepted =
                (try? SRPServer(configuration: minimalSide).verifyClient(
                    username: user,
                    verifier: verifier,
                    clientPublicValue: session.clientPublicValue,
                    clientProof: session.clientProof,
                    ephemeral: serverEphemeral
                )) != nil
            #expect(
                accepted == name.contains("plain"),
                "\(name): a padded client and a minimal server \(accepted ? "agreed" : "disagreed")"
            )
        }
    }

    @Test("a wrong password makes the server refuse M1")
    func wrongPassword() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let (_, result) = try handshake(configuration, clientPassword: SecureBytes(Array("password124".utf8)))
        #expect(throws: AuthCoreError(.proofMismatch, "")) { try result.get() }
    }

    @Test("tampered proofs are refused: M1 on the server, M2 on the client; wrong lengths are invalidLength")
    func tamperedProofs() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let random = SeededRandom(seed: 9)
        let verifier = try configuration.makeVerifier(username: username, password: password, random: random)
        let server = SRPServer(configuration: configuration)
        let client = SRPClient(configuration: configuration)
        let session = try client.processChallenge(
            username: username,
            password: password,
            salt: verifier.salt,
            serverPublicValue: server.makeEphemeral(verifier: verifier, random: SeededRandom(seed: 10))
                .serverPublicValue,
            ephemeral: client.makeEphemeral(random: random)
        )
        var m1 = session.clientProof
        m1[0] ^= 0x01
        #expect(
            errorCode {
                try server.verifyClient(
                    username: username,
                    verifier: verifier,
                    clientPublicValue: session.clientPublicValue,
                    clientProof: m1,
                    ephemeral: server.makeEphemeral(verifier: verifier, random: SeededRandom(seed: 10))
                )
            } == .proofMismatch
        )
        #expect(
            errorCode {
                try server.verifyClient(
                    username: username,
                    verifier: verifier,
                    clientPublicValue: session.clientPublicValue,
                    clientProof: session.clientProof.dropLast(),
                    ephemeral: server.makeEphemeral(verifier: verifier, random: SeededRandom(seed: 10))
                )
            } == .invalidLength
        )
        var m2 = session.serverProof
        try session.verifyServerProof(m2)
        m2[31] ^= 0x80
        #expect(errorCode { try session.verifyServerProof(m2) } == .proofMismatch)
        #expect(errorCode { try session.verifyServerProof(session.serverProof + [0]) } == .invalidLength)
        #expect(errorCode { try session.verifyServerProof([UInt8]()) } == .invalidLength)
    }

    @Test("the client refuses B ≡ 0 (mod N) and B ≥ N; a short B is valid")
    func unsafeServerValues() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let client = SRPClient(configuration: configuration)
        let n = configuration.group.modulus
        let bad: [[UInt8]] = [
            [], [0], [0, 0, 0], n.minimalBigEndianBytes, (n + BigUInt(1)).minimalBigEndianBytes,
            (n * BigUInt(2)).minimalBigEndianBytes, [UInt8](repeating: 0xff, count: 257),
        ]
        for b in bad {
            #expect(
                errorCode {
                    try client.processChallenge(
                        username: username,
                        password: password,
                        salt: [1, 2, 3],
                        serverPublicValue: b,
                        ephemeral: client.makeEphemeral(random: SeededRandom(seed: 3))
                    )
                } == .unsafePublicValue,
                "B of \(b.count) bytes"
            )
        }
        // A 128-bit B (shorter than N), with leading zero bytes: valid.
        let short = [UInt8](repeating: 0, count: 5) + SeededRandom(seed: 4).bytes(16)
        let session = try client.processChallenge(
            username: username,
            password: password,
            salt: [1, 2, 3],
            serverPublicValue: short,
            ephemeral: client.makeEphemeral(random: SeededRandom(seed: 3))
        )
        #expect(session.clientProof.count == 32)
    }

    @Test("the server refuses A ≡ 0 (mod N) and A ≥ N")
    func unsafeClientValues() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let server = SRPServer(configuration: configuration)
        let verifier = try configuration.makeVerifier(
            username: username,
            password: password,
            random: SeededRandom(seed: 5)
        )
        let n = configuration.group.modulus
        for a in [
            [UInt8](), [0, 0], n.minimalBigEndianBytes, (n * BigUInt(3)).minimalBigEndianBytes,
            (n + BigUInt(7)).minimalBigEndianBytes,
        ] {
            #expect(
                errorCode {
                    try server.verifyClient(
                        username: username,
                        verifier: verifier,
                        clientPublicValue: a,
                        clientProof: [UInt8](repeating: 0, count: 32),
                        ephemeral: server.makeEphemeral(verifier: verifier, random: SeededRandom(seed: 6))
                    )
                } == .unsafePublicValue,
                "A of \(a.count) bytes"
            )
        }
    }

    @Test("u = 0 is refused")
    func zeroScramblingParameter() {
        #expect(
            errorCode { try SRPConfiguration.checkedScramblingParameter([UInt8](repeating: 0, count: 32)) }
                == .unsafePublicValue
        )
        #expect(
            errorCode { try SRPConfiguration.checkedScramblingParameter([UInt8](repeating: 0, count: 31) + [1]) } == nil
        )
    }

    @Test("generated ephemerals: A = g^e, e = r + 2^offset with a fixed word count, 256 random bits")
    func ephemeralShape() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
        let client = SRPClient(configuration: configuration)
        for seed in 1...8 as ClosedRange<UInt64> {
            let ephemeral = try client.makeEphemeral(random: SeededRandom(seed: seed))
            let e = ephemeral.exponentValue
            // a + u·x < 2^514 with the offset 2^512: exactly 9 words of 64 bits, whatever r is.
            #expect(e.bitWidth == 513)
            #expect(ephemeral.exponentLimbCount == 9)
            #expect(try BigUInt(5).powerVariableTime(e, modulo: configuration.group.modulus) == ephemeral.publicValue)
        }
        let same1 = try client.makeEphemeral(random: SeededRandom(seed: 77)).publicValue
        let same2 = try client.makeEphemeral(random: SeededRandom(seed: 77)).publicValue
        #expect(same1 == same2)
        #expect(
            errorCode { () throws -> Void in _ = try client.makeEphemeral(random: FailingRandom()) } == .randomFailure
        )
    }

    @Test("configuration validation")
    func configurationValidation() throws {
        #expect(errorCode { try SRPConfiguration(group: .rfc5054Group2048, hash: .sha224) } == .unsupported)
        #expect(
            errorCode { try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, privateValueBitCount: 255) }
                == .invalidParameter
        )
        #expect(
            errorCode { try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, saltByteCount: 15) }
                == .invalidParameter
        )
        #expect(
            errorCode { try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, saltByteCount: 33) }
                == .invalidParameter
        )
        let typed = try SRPConfiguration(group: .rfc5054Group2048, hashFunction: SHA512.self)
        #expect(typed.hash == .sha512)
        let salted = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, saltByteCount: 32)
        #expect(try salted.makeVerifier(username: username, password: password).salt.count == 32)
    }

    @Test("a 1024-bit private value works (exponents beyond the table use mpn_sec_powm)")
    func widePrivateValues() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, privateValueBitCount: 1024)
        let (client, result) = try handshake(configuration)
        let server = try result.get()
        #expect(try client.verifyServerProof(server.serverProof) == server.sessionKey)
    }

    @Test("secret-bearing values never print secrets")
    func descriptions() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let (client, result) = try handshake(configuration)
        let server = try result.get()
        #expect(
            "\(client)".hasPrefix("SRPClientSession(A 2048 bits") || "\(client)".hasPrefix("SRPClientSession(A 204")
        )
        #expect(!"\(client)".contains(server.sessionKey.withUnsafeBytes { Hex.encode($0) }))
        #expect("\(server)" == "SRPServerSession(key 32 bytes)")
        let verifier = try configuration.makeVerifier(
            username: username,
            password: password,
            random: SeededRandom(seed: 2)
        )
        #expect("\(verifier)".hasPrefix("SRPVerifier(salt 16 bytes, verifier "))
        #expect(!"\(verifier)".contains(verifier.verifier.hexLowercased.prefix(12)))
    }

    @Test("oversized username or password is inputTooLarge")
    func oversized() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let huge = [UInt8](repeating: 0x41, count: 65_537)
        #expect(
            errorCode { try configuration.makeVerifier(username: huge, password: password, salt: [1]) }
                == .inputTooLarge
        )
        #expect(
            errorCode { try configuration.makeVerifier(username: username, password: SecureBytes(huge), salt: [1]) }
                == .inputTooLarge
        )
    }
}
