import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Cognito SRP: client and server, interop with pycognito", .serialized)
struct CognitoSRPTests {
    let pool = "us-east-1_AbCdEf123"
    let userId = "7dc1653c-8866-499d-9bd0-05662060d645"
    let password = SecureBytes(Array("Corr3ct Horse ✓".utf8))

    @Test("a client claim verifies on the server side; a wrong password or a tampered signature does not")
    func roundTrip() throws {
        let random = SeededRandom(seed: 99)
        for round in 0..<6 {
            let salt = BigUInt(bigEndianBytes: random.bytes(16))
            let verifier = try CognitoSRPServer.verifier(
                realm: "AbCdEf123",
                identity: userId,
                password: password,
                salt: salt
            )
            let timestamp = Timestamp(secondsSince1970: 1_772_510_706 + Int64(round) * 86_400).cognitoTimestamp
            for (candidate, shouldVerify) in [(password, true), (SecureBytes(Array("wrong".utf8)), false)] {
                let challenge = try CognitoSRPServer.makeChallenge(verifier: verifier, random: random)
                let b = challenge.serverPublicValue
                let block = challenge.secretBlock
                let ephemeral = try CognitoSRP.makeEphemeral(random: random)
                let a = ephemeral.publicValue
                let claim = try CognitoSRP.passwordClaim(
                    realm: try CognitoSRP.poolName(fromPoolId: pool),
                    identity: userId,
                    password: candidate,
                    ephemeral: ephemeral,
                    serverPublicValue: b,
                    salt: salt,
                    secretBlock: block,
                    timestamp: timestamp
                )
                #expect(claim.timestamp == timestamp)
                var code: AuthCoreError.Code?
                do {
                    _ = try CognitoSRPServer.verifyClaim(
                        realm: "AbCdEf123",
                        identity: userId,
                        verifier: verifier,
                        clientPublicValue: a,
                        signature: claim.signature,
                        timestamp: timestamp,
                        challenge: challenge
                    )
                } catch {
                    code = error.code
                }
                #expect(code == (shouldVerify ? nil : .signatureMismatch))
            }
        }
    }

    @Test("the client refuses SRP_B ≡ 0 (mod N) and SRP_B ≥ N; a 128-bit SRP_B is valid")
    func unsafeServerValues() throws {
        let n = CognitoSRP.group.modulus
        for b in [BigUInt(), n, n + BigUInt(5), n * BigUInt(2)] {
            #expect(
                errorCode {
                    try CognitoSRP.passwordClaim(
                        realm: "p",
                        identity: "u",
                        password: password,
                        ephemeral: CognitoSRP.makeEphemeral(random: SeededRandom(seed: 1)),
                        serverPublicValue: b,
                        salt: BigUInt(7),
                        secretBlock: [1, 2, 3],
                        timestamp: "t"
                    )
                } == .unsafePublicValue
            )
        }
        let short = BigUInt(bigEndianBytes: SeededRandom(seed: 2).bytes(16))
        let claim = try CognitoSRP.passwordClaim(
            realm: "p",
            identity: "u",
            password: password,
            ephemeral: CognitoSRP.makeEphemeral(random: SeededRandom(seed: 1)),
            serverPublicValue: short,
            salt: BigUInt(7),
            secretBlock: [1, 2, 3],
            timestamp: "t"
        )
        #expect(try Base64.decode(claim.signature).count == 32)
        #expect(errorCode { try CognitoSRP.number(fromHex: "0f5e3c2a-1b4d", parameter: "SRP_B") } == .invalidHex)
        #expect(errorCode { try CognitoSRP.poolName(fromPoolId: "nounderscore") } == .invalidParameter)
        #expect(errorCode { try CognitoSRP.poolName(fromPoolId: "us-east-1_") } == .invalidParameter)
    }

    @Test("an SRP_B equal to k·g^x (which would make S = 0) is refused as an unsafe value")
    func premasterBaseZero() throws {
        let salt = BigUInt(bigEndianBytes: [0x5A, 0x17])
        let password = SecureBytes(Array("Passw0rd!".utf8))
        let x = CognitoSRP.privateKeyValue(salt: salt, realm: "AbCdEf123", identity: "user", password: password)
        let n = CognitoSRP.group.modulus
        let kgx = try (CognitoSRP.multiplier * CognitoSRP.group.generator.powerVariableTime(x, modulo: n)).modulo(n)
        let ephemeral = try CognitoSRP.makeEphemeral()
        #expect(throws: AuthCoreError(.unsafePublicValue, "")) {
            try CognitoSRP.passwordClaim(
                realm: "AbCdEf123",
                identity: "user",
                password: password,
                ephemeral: ephemeral,
                serverPublicValue: kgx,
                salt: salt,
                secretBlock: [1, 2, 3],
                timestamp: "Tue Dec 1 12:00:00 UTC 2026"
            )
        }
        // One more than k·g^x is an ordinary value.
        let claim = try CognitoSRP.passwordClaim(
            realm: "AbCdEf123",
            identity: "user",
            password: password,
            ephemeral: try CognitoSRP.makeEphemeral(),
            serverPublicValue: try (kgx + BigUInt(1)).modulo(n),
            salt: salt,
            secretBlock: [1, 2, 3],
            timestamp: "Tue Dec 1 12:00:00 UTC 2026"
        )
        #expect(claim.signature.count == 44)
    }

    @Test("SECRET_HASH and the device verifier")
    func secretHashAndDevice() throws {
        // SECRET_HASH = Base64(HMAC-SHA256(secret, username | client id)).
        let hash = cognitoSecretHash(
            username: "alice",
            clientId: "client",
            clientSecret: SecureBytes(Array("secret".utf8))
        )
        #expect(
            hash == HMAC<SHA256>.authenticationCode(for: Array("aliceclient".utf8), using: Array("secret".utf8)).base64
        )
        let (devicePassword, verifier) = try CognitoDeviceVerifier.generate(
            deviceGroupKey: "-3TNkh2gr",
            deviceKey: "us-east-1_dev",
            random: SeededRandom(seed: 5)
        )
        #expect(devicePassword.count == 56)  // Base64 of 40 bytes
        #expect(try Base64.decode(verifier.salt).count >= 16)
        #expect(BigUInt(bigEndianBytes: try Base64.decode(verifier.passwordVerifier)) == verifier.verifier)
        #expect(!"\(verifier)".contains(verifier.passwordVerifier))
    }

    // MARK: - Interop with pycognito

    func pycognito(_ request: [String: Any]) throws -> [String: Any] {
        let input = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let result = try run(
            venvPython,
            [repositoryRoot.appendingPathComponent("scripts/pycognito_claim.py").path],
            stdin: input
        )
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw PeerError(description: "pycognito_claim.py failed (\(result.status)): \(result.stderr)")
        }
        return object
    }

    @Test("claim signatures made by pycognito verify on AuthCore's server side; tampered ones do not")
    func pycognitoClientAuthcoreServer() throws {
        let random = SeededRandom(seed: 2026)
        for round in 0..<4 {
            let salt = BigUInt(bigEndianBytes: random.bytes(16))
            let verifier = try CognitoSRPServer.verifier(
                realm: "AbCdEf123",
                identity: userId,
                password: password,
                salt: salt
            )
            let challenge = try CognitoSRPServer.makeChallenge(verifier: verifier, random: random)
            let timestamp = Timestamp(secondsSince1970: 1_772_510_706 + Int64(round) * 3_700_000).cognitoTimestamp
            let a = BigUInt(bigEndianBytes: random.bytes(32))
            let reply = try pycognito([
                "op": "client", "pool_id": pool, "user_id_for_srp": userId, "password": "Corr3ct Horse ✓",
                "a_hex": a.hexLowercased,
                "srp_b_hex": challenge.serverPublicValue.hexLowercased, "salt_hex": salt.hexLowercased,
                "secret_block_b64": Base64.encode(challenge.secretBlock), "timestamp": timestamp,
            ])
            let signature = try #require(reply["signature_b64"] as? String)
            let clientA = try BigUInt(hex: try #require(reply["srp_a_hex"] as? String))
            var tampered = try Base64.decode(signature)
            tampered[0] ^= 1
            let blockCopy = challenge.secretBlock
            let b = challenge.serverPublicValue
            // Verify the genuine one (consumes the challenge), then a tampered one against a re-made challenge.
            _ = try CognitoSRPServer.verifyClaim(
                realm: "AbCdEf123",
                identity: userId,
                verifier: verifier,
                clientPublicValue: clientA,
                signature: signature,
                timestamp: timestamp,
                challenge: challenge
            )
            _ = (blockCopy, b)
            let again = try CognitoSRPServer.makeChallenge(verifier: verifier, random: random)
            var code: AuthCoreError.Code?
            do {
                _ = try CognitoSRPServer.verifyClaim(
                    realm: "AbCdEf123",
                    identity: userId,
                    verifier: verifier,
                    clientPublicValue: clientA,
                    signature: Base64.encode(tampered),
                    timestamp: timestamp,
                    challenge: again
                )
            } catch {
                code = error.code
            }
            #expect(code == .signatureMismatch)
        }
    }

    @Test(
        "AuthCore client signatures are accepted by a re-computation with pycognito's functions; a tampered one is not"
    )
    func authcoreClientPycognitoVerifies() throws {
        let random = SeededRandom(seed: 77)
        for round in 0..<4 {
            let b = try BigUInt(bigEndianBytes: random.bytes(round == 0 ? 16 : 384)).modulo(CognitoSRP.group.modulus)
            let salt = BigUInt(bigEndianBytes: random.bytes(16))
            let block = random.bytes(64)
            let a = BigUInt(bigEndianBytes: random.bytes(32))
            let timestamp = Timestamp(secondsSince1970: 1_700_000_000 + Int64(round) * 999_999).cognitoTimestamp
            let claim = try CognitoSRP.passwordClaim(
                realm: "AbCdEf123",
                identity: userId,
                password: password,
                ephemeral: CognitoSRP.ephemeral(privateValue: a),
                serverPublicValue: b,
                salt: salt,
                secretBlock: block,
                timestamp: timestamp
            )
            var request: [String: Any] = [
                "op": "verify", "pool_id": pool, "user_id_for_srp": userId, "password": "Corr3ct Horse ✓",
                "a_hex": a.hexLowercased,
                "srp_b_hex": b.hexLowercased, "salt_hex": salt.hexLowercased, "secret_block_b64": Base64.encode(block),
                "timestamp": timestamp, "signature_b64": claim.signature,
            ]
            #expect(try pycognito(request)["ok"] as? Bool == true, "round \(round)")
            var tampered = try Base64.decode(claim.signature)
            tampered[31] ^= 0x80
            request["signature_b64"] = Base64.encode(tampered)
            #expect(try pycognito(request)["ok"] as? Bool == false)
        }
    }
}

/// The TIMESTAMP under other process locales: the formatter runs in a child process whose locale is
/// really de_DE.UTF-8 or ja_JP.UTF-8 (built with localedef into a temporary LOCPATH; the child checks
/// that strftime("%a") gives the localised weekday before formatting).
@Suite("Cognito TIMESTAMP is English whatever the locale", .serialized)
struct CognitoTimestampLocaleTests {
    static let localeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-locales").path

    static func buildLocales() throws {
        try FileManager.default.createDirectory(atPath: localeDirectory, withIntermediateDirectories: true)
        for (input, name) in [("de_DE", "de_DE.UTF-8"), ("ja_JP", "ja_JP.UTF-8")]
        where !FileManager.default.fileExists(atPath: "\(localeDirectory)/\(name)") {
            let result = try run(
                URL(fileURLWithPath: "/usr/bin/localedef"),
                ["-i", input, "-f", "UTF-8", "\(localeDirectory)/\(name)"]
            )
            guard FileManager.default.fileExists(atPath: "\(localeDirectory)/\(name)") else {
                throw PeerError(description: "localedef \(input) failed: \(result.stderr)")
            }
        }
    }

    @Test("de_DE.UTF-8: weekday Mo in the process, TIMESTAMP in English")
    func german() async throws {
        try Self.buildLocales()
        await #expect(processExitsWith: .success) {
            Self.checkInChild(
                locale: "de_DE.UTF-8",
                monday: "Mo",
                stamp: Timestamp(year: 2026, month: 3, day: 2, hour: 9, minute: 5, second: 7),
                expected: "Mon Mar 2 09:05:07 UTC 2026"
            )
        }
    }

    @Test("ja_JP.UTF-8: weekday 月 in the process, TIMESTAMP in English")
    func japanese() async throws {
        try Self.buildLocales()
        await #expect(processExitsWith: .success) {
            Self.checkInChild(
                locale: "ja_JP.UTF-8",
                monday: "月",
                stamp: Timestamp(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 59),
                expected: "Thu Dec 31 23:59:59 UTC 2026"
            )
        }
    }

    /// In the child process: switch to `locale`, check that `%a` of 2026-03-02 (a Monday) really is
    /// the localised `monday`, then that the Cognito TIMESTAMP of `stamp` is still `expected`.
    /// Exits 0, or 3 (no locale), 4 (`%a` not localised), 5 (wrong TIMESTAMP).
    static func checkInChild(locale: String, monday: String, stamp: Timestamp?, expected: String) -> Never {
        setenv("LOCPATH", CognitoTimestampLocaleTests.localeDirectory, 1)
        setenv("LC_ALL", locale, 1)
        guard setlocale(LC_ALL, "") != nil else { exit(3) }
        var time = tm()
        time.tm_year = 126
        time.tm_mon = 2
        time.tm_mday = 2
        time.tm_wday = 1
        var buffer = [CChar](repeating: 0, count: 64)
        strftime(&buffer, buffer.count, "%a", &time)
        guard String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) == monday
        else { exit(4) }
        exit(stamp?.cognitoTimestamp == expected ? 0 : 5)
    }
}

@Suite("One SRP front end: Cognito is a hash convention of SRPConfiguration")
struct SRPHashConventionTests {
    @Test("k under the RFC 5054 convention is Appendix B's; under the Cognito convention it is Cognito's (and differs)")
    func multiplierPerConvention() throws {
        let rfc = try SRPConfiguration(group: .rfc5054Group1024, hash: .sha1)
        // RFC 5054 Appendix B
        #expect(Hex.encode(rfc.multiplier.minimalBigEndianBytes) == "7556aa045aef2cdd07abaf0f665c3e818913186f")
        let cognito = try SRPConfiguration(group: CognitoSRP.group, hash: .sha256, convention: .cognito)
        #expect(cognito.multiplier == CognitoSRP.multiplier)
        let rfcOnCognitosGroup = try SRPConfiguration(group: CognitoSRP.group, hash: .sha256)
        #expect(rfcOnCognitosGroup.multiplier != CognitoSRP.multiplier)
    }

    @Test("the number encodings: minimal, PAD to N, and sign-padded (a 00 before a first byte ≥ 0x80)")
    func encodings() throws {
        let group = SRPGroup.rfc5054Group1024
        let high = BigUInt(0x80_01)
        let low = BigUInt(0x7F)
        #expect(try SRPNumberEncoding.minimal.bytes(high, group: group) == [0x80, 0x01])
        #expect(try SRPNumberEncoding.signPadded.bytes(high, group: group) == [0x00, 0x80, 0x01])
        #expect(try SRPNumberEncoding.signPadded.bytes(low, group: group) == [0x7F])
        let padded = try SRPNumberEncoding.padded.bytes(low, group: group)
        #expect(padded.count == 128 && padded.last == 0x7F && padded.dropLast().allSatisfy { $0 == 0 })
    }
}
