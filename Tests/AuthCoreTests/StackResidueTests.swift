import AuthCoreTestSupport
import Testing

@testable import AuthCore

#if canImport(Glibc)
import Glibc

/// Issue 11's stack-residue gate: secret operations run on a thread whose stack is memory the test
/// provides (zero-filled, `pthread_attr_setstack`); once the thread has ended, that memory is
/// searched for the secrets the operations handled — `x`, `S` and `K` of an SRP-6a handshake,
/// `x`, `S` and the HKDF key of a Cognito claim and its server check, `kSigning` of a SigV4
/// signature — in big-endian and in limb (little-endian) order, by every
/// 16-byte window, so a copy half overwritten still counts. glibc keeps the thread's descriptor and
/// TLS in the same memory, so they are searched too. A control leaves a secret in a stack
/// buffer on purpose and must be found, or the search proves nothing.
@Suite("Stack residue: no secret left in a thread's stack after a handshake or a signature")
struct StackResidueTests {
    static let stackBytes = 1 << 20
    static let window = 16

    /// A zero-filled, page-aligned stack that `work` runs on, on a new thread; returns a copy of the
    /// stack's bytes after the thread ended, or nil if the thread could not be made.
    static func afterRunningOnOwnStack(_ work: @escaping () -> Void) -> [UInt8]? {
        guard let memory = mmap(nil, stackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != MAP_FAILED
        else {
            return nil
        }
        defer { munmap(memory, stackBytes) }
        final class Work {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
        // Allocated, not `pthread_attr_t()`: initialised by pthread_attr_init.
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        guard pthread_attr_init(attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(attributes) }
        guard pthread_attr_setstack(attributes, memory, stackBytes) == 0 else { return nil }
        let context = Unmanaged.passRetained(Work(work)).toOpaque()
        var thread = pthread_t()
        guard
            pthread_create(
                &thread,
                attributes,
                { context in
                    // invariant: pthread_create passes the context given
                    Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                },
                context
            ) == 0
        else {
            Unmanaged<Work>.fromOpaque(context).release()
            return nil
        }
        pthread_join(thread, nil)
        return Array(UnsafeRawBufferPointer(start: memory, count: stackBytes))
    }

    /// Which of `secrets` (name: big-endian bytes) have a 16-byte window, in either byte order, in
    /// `stack`. Windows are looked up by their first 8 bytes, then compared whole.
    static func residues(of secrets: [(String, [UInt8])], in stack: [UInt8]) -> [String] {
        func word(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
        return secrets.compactMap { name, bytes in
            var windows: [UInt64: [ArraySlice<UInt8>]] = [:]
            for form in [bytes, Array(bytes.reversed())] where form.count >= window {
                for start in 0...(form.count - window) {
                    let slice = form[start..<(start + window)]
                    windows[word(slice.prefix(8)), default: []].append(slice)
                }
            }
            var rolling: UInt64 = 0
            for index in stack.indices {
                rolling = rolling << 8 | UInt64(stack[index])
                let start = index - 7
                guard start >= 0, start + window <= stack.count, rolling != 0, let candidates = windows[rolling] else {
                    continue
                }
                if candidates.contains(where: { $0.elementsEqual(stack[start..<(start + window)]) }) { return name }
            }
            return nil
        }
    }

    static func bytes(_ secret: SecureBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    /// Runs `body` below `depth` frames of recursion, so that what it leaves on the stack lies deeper
    /// than the calls made after it returns reach (which would otherwise overwrite, and hide, it).
    @inline(never)
    static func deep<R>(_ depth: Int, _ body: () -> R) -> R {
        var pad = (UInt64(depth), UInt64(0), UInt64(0), UInt64(0))  // each frame takes room
        let result = depth == 0 ? body() : deep(depth - 1, body)
        withUnsafeMutableBytes(of: &pad) { _ in }
        return result
    }

    @Test("an SRP-6a handshake (client and server) leaves none of x, S, K on the stack")
    func srpHandshake() throws {
        let recorded = Locked<(x: [UInt8], s: [UInt8], k: [UInt8])?>(nil)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
                    let password = SecureBytes(Array("stack-residue-password".utf8))
                    let salt = Array("stack-residue-salt".utf8)
                    let username = Array("alice".utf8)
                    let verifier = try configuration.makeVerifier(username: username, password: password, salt: salt)
                    let server = SRPServer(configuration: configuration)
                    let serverEphemeral = try server.makeEphemeral(verifier: verifier)
                    let client = SRPClient(configuration: configuration)
                    let session = try client.processChallenge(
                        username: username,
                        password: password,
                        salt: salt,
                        serverPublicValue: serverEphemeral.serverPublicValue,
                        ephemeral: try client.makeEphemeral(),
                        recordingIntermediates: true
                    )
                    let serverSession = try server.verifyClient(
                        username: username,
                        verifier: verifier,
                        clientPublicValue: session.clientPublicValue,
                        clientProof: session.clientProof,
                        ephemeral: serverEphemeral
                    )
                    let key = try session.verifyServerProof(serverSession.serverProof)
                    if let intermediates = session.intermediates {
                        recorded.withLock {
                            $0 = (
                                intermediates.privateKey.minimalBigEndianBytes,
                                intermediates.premasterSecret.minimalBigEndianBytes, Self.bytes(key)
                            )
                        }
                    }
                } catch {}
            }
        )
        let values = try #require(recorded.withLock { $0 })
        #expect(values.x.count >= 24 && values.s.count >= 300 && values.k.count == 32)
        #expect(Self.residues(of: [("x", values.x), ("S", values.s), ("K", values.k)], in: stack) == [])
    }

    /// A value's radix-2^52 digits (the secret-power kernel's representation), each as a big-endian
    /// 8-byte word, the most significant first: reversed, the bytes the digit array has in memory.
    static func digits52(_ value: BigUInt, count: Int) throws -> [UInt8] {
        let bytes = try value.bigEndianBytes(paddedTo: (52 * count + 7) / 8)
        var digits: [UInt8] = []
        for index in (0..<count).reversed() {
            var digit: UInt64 = 0
            for bit in 0..<52 {
                let position = 52 * index + bit  // bit of the value, from the least significant
                let byte = bytes[bytes.count - 1 - position / 8]
                digit |= UInt64((byte >> (position % 8)) & 1) << bit
            }
            digits += (0..<8).reversed().map { UInt8(truncatingIfNeeded: digit >> (8 * $0)) }
        }
        return digits
    }

    @Test(
        "the secret-power kernels (IFMA, its portable twin, the 64-bit-limb kernel) leave no table entry and no accumulator on the stack: the base's Montgomery form, gathered for every window, and the result's"
    )
    func secretPowerKernels() throws {
        let n = SRPGroup.rfc5054Group3072.modulus
        let domain = MontgomeryDomain(modulus: n)
        let base = try BigUInt(bigEndianBytes: SeededRandom(seed: 52).bytes(384)).modulo(n)
        // Every 5-bit window of the 513-bit exponent is 1, so every gather selects table[1] = base·R
        // mod N (R = 2^(52·60), below 2N: the value or the value plus N), and the gathers' and
        // multiplications' accumulators hold its digits.
        var exponentBytes = [UInt8](repeating: 0, count: 65)
        for window in 0..<103 { exponentBytes[64 - (5 * window) / 8] |= UInt8(1) << ((5 * window) % 8) }
        let exponent = BigUInt(bigEndianBytes: exponentBytes)
        let expected = try base.powerVariableTime(exponent, modulo: n)
        let r = BigUInt(bigEndianBytes: [0x01] + [UInt8](repeating: 0, count: 390))  // 2^3120
        let montgomery = try (base * r).modulo(n)
        let digits = 60  // c_authcore_powm52_digits(48)
        // And the accumulator's last values: the result in Montgomery form (below 2N) and the result.
        let resultMontgomery = try (expected * r).modulo(n)
        let entries = [
            ("base·R mod N", try Self.digits52(montgomery, count: digits)),
            ("base·R mod N + N", try Self.digits52(montgomery + n, count: digits)),
            ("S·R mod N", try Self.digits52(resultMontgomery, count: digits)),
            ("S·R mod N + N", try Self.digits52(resultMontgomery + n, count: digits)),
            ("S", try Self.digits52(expected, count: digits)),
        ]
        for kernel in [SecretPowerKernel.ifma52, .portable52] where kernel.isAvailable {
            let result = Locked<BigUInt?>(nil)
            let stack = try #require(
                Self.afterRunningOnOwnStack {
                    let value = domain.secretPower(base, exponent: exponent, bitCount: 513, kernel: kernel)
                    result.withLock { $0 = value }
                }
            )
            #expect(result.withLock { $0 } == expected, "\(kernel)")
            #expect(Self.residues(of: entries, in: stack) == [], "\(kernel)")
        }
        // The 64-bit-limb kernel: the same values in limbs, R = 2^3072 (its table and accumulators
        // live in the caller's scratch, its stack holds spilled words at most).
        guard SecretPowerKernel.mont64.isAvailable else { return }
        let limbR = BigUInt(bigEndianBytes: [0x01] + [UInt8](repeating: 0, count: 384))  // 2^3072
        let limbEntries = [
            ("base·R mod N", try ((base * limbR).modulo(n)).bigEndianBytes(paddedTo: 384)),
            ("S·R mod N", try ((expected * limbR).modulo(n)).bigEndianBytes(paddedTo: 384)),
            ("S", try expected.bigEndianBytes(paddedTo: 384)),
        ]
        let result = Locked<BigUInt?>(nil)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                let value = domain.secretPower(base, exponent: exponent, bitCount: 513, kernel: .mont64)
                result.withLock { $0 = value }
            }
        )
        #expect(result.withLock { $0 } == expected, "mont64")
        #expect(Self.residues(of: limbEntries, in: stack) == [], "mont64")
    }

    @Test("a Cognito claim and its server check leave none of x, S and the HKDF key on the stack")
    func cognitoClaim() throws {
        let recorded = Locked<(x: [UInt8], s: [UInt8], k: [UInt8])?>(nil)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let password = SecureBytes(Array("stack-residue-password".utf8))
                    let salt = BigUInt(bigEndianBytes: Array("stack-residue-salt".utf8))
                    let verifier = try CognitoSRPServer.verifier(
                        realm: "AbCdEf123",
                        identity: "user-id",
                        password: password,
                        salt: salt
                    )
                    let challenge = try CognitoSRPServer.makeChallenge(verifier: verifier)
                    let ephemeral = try CognitoSRP.makeEphemeral()
                    let a = ephemeral.publicValue
                    let time = "Tue Dec 1 12:00:00 UTC 2026"
                    let claim = try CognitoSRP.passwordClaim(
                        realm: "AbCdEf123",
                        identity: "user-id",
                        password: password,
                        ephemeral: ephemeral,
                        serverPublicValue: challenge.serverPublicValue,
                        salt: salt,
                        secretBlock: challenge.secretBlock,
                        timestamp: time,
                        recordingIntermediates: true
                    )
                    _ = try CognitoSRPServer.verifyClaim(
                        realm: "AbCdEf123",
                        identity: "user-id",
                        verifier: verifier,
                        clientPublicValue: a,
                        signature: claim.signature,
                        timestamp: time,
                        challenge: challenge
                    )
                    if let intermediates = claim.intermediates {
                        recorded.withLock {
                            $0 = (
                                intermediates.privateKey.minimalBigEndianBytes,
                                intermediates.premasterSecret.minimalBigEndianBytes, Self.bytes(intermediates.key)
                            )
                        }
                    }
                } catch {}
            }
        )
        let values = try #require(recorded.withLock { $0 })
        #expect(values.x.count >= 24 && values.s.count >= 300 && values.k.count == 16)
        #expect(Self.residues(of: [("x", values.x), ("S", values.s), ("K", values.k)], in: stack) == [])
    }

    @Test(
        "SigV4 signers and signatures leave no secret, kDate, kRegion, kService, kSigning and no state of kSigning's HMAC schedule on the stack"
    )
    func sigV4Signature() throws {
        let signed = Locked(false)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let credentials = try Credentials(
                        accessKeyId: "AKIDEXAMPLE",
                        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
                    )
                    let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "iam")
                    let request = SigV4Request(
                        method: "GET",
                        target: "/?Action=ListUsers&Version=2010-05-08",
                        headers: [HTTPHeader("Host", "iam.amazonaws.com")]
                    )
                    _ = try signer.sign(request, at: try Timestamp(iso8601: "2015-08-30T12:36:00Z"))
                    _ = try signer.sign(request, at: try Timestamp(iso8601: "2015-08-30T12:36:01Z"))  // the memo's path
                    signed.withLock { $0 = true }
                } catch {}
            }
        )
        #expect(signed.withLock { $0 })
        // kSigning by the public HMAC API, on this thread (AWS SigV4: date, region, service, aws4_request).
        var key = Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8)
        var intermediate: [(String, [UInt8])] = []
        for part in ["20150830", "us-east-1", "iam", "aws4_request"] {
            key = HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key).bytes
            intermediate.append(("key after \(part)", key))  // kDate, kRegion, kService, kSigning
        }
        // The key's HMAC schedule: the chaining words of its inner and outer SHA-256 states (the rest
        // of each state is the block count and an empty buffer, mostly zeros), which the MAC copies.
        let states = key.withUnsafeBytes { HMACSHA256Schedule.make(key: $0) }.withSavedStatesForTesting { Array($0) }
        let half = states.count / 2
        let chaining = [("inner state", Array(states[0..<32])), ("outer state", Array(states[half..<(half + 32)]))]
        // The secret itself: the signer's cache identity hashes it from a stack block (wiped), and
        // the key chain is seeded with `AWS4 ‖ secret` in another.
        let secret = ("secret", Array("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8))
        #expect(Self.residues(of: intermediate + chaining + [secret], in: stack) == [])
    }

    @Test(
        "making signers (SigV4, OSS V4) leaves no copy of the secret on the stack: their cache identity hashes it from a wiped block"
    )
    func signerConstruction() throws {
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        let made = Locked(0)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let credentials = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret)
                    let sigV4 = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "iam")
                    let oss = try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou")
                    withExtendedLifetime((sigV4, oss)) { made.withLock { $0 += 2 } }
                } catch {}
            }
        )
        #expect(made.withLock { $0 } == 2)
        #expect(Self.residues(of: [("secret", Array(secret.utf8))], in: stack) == [])
    }

    @Test(
        "an Alibaba Cloud RPC signature with an STS token leaves no copy of the token on the stack"
    )
    func rpcSessionToken() throws {
        // A whole-signature smoke test: it was not seen to fail with either of the RPC path's block
        // wipes removed (later frames overwrite those blocks here); `canonicalQueryOfPairs` does fail
        // without the canonical query's. A marker of 41 unreserved bytes (its percent-encoding is itself).
        let token = "RPC-STS-TOKEN-0123456789abcdefghijklmnopq"
        let signed = Locked(false)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let credentials = try Credentials(
                        accessKeyId: "STS.NUgYrLnoC37mZZCNnAbez2Ej",
                        secretAccessKey: "testSecret",
                        sessionToken: token
                    )
                    let signature = try AliyunRPCSigner(credentials: credentials).sign(
                        action: "AssumeRole",
                        version: "2015-04-01",
                        parameters: [("RoleSessionName", "user-42")],
                        at: try Timestamp(iso8601: "2026-12-07T12:00:00Z"),
                        nonce: "3f2b6c1e9d4a4e57"
                    )
                    signed.withLock { $0 = !signature.signature.isEmpty }
                } catch {}
            }
        )
        #expect(signed.withLock { $0 })
        #expect(Self.residues(of: [("token", Array(token.utf8))], in: stack) == [])
    }

    @Test("a canonical query of pairs with a session token leaves no copy of the token on the stack")
    func canonicalQueryOfPairs() throws {
        let token = "QUERY-PAIR-TOKEN-0123456789abcdefghijklmn"
        let built = Locked<[UInt8]>([])
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                let query = Self.deep(64) {
                    CanonicalQuery.fromPairs(
                        [("x-oss-expires", "3600"), ("x-oss-security-token", token), ("b", "2")],
                        emptyValue: .keyEquals
                    )
                }
                built.withLock { $0 = query }
            }
        )
        #expect(
            String(decoding: built.withLock { $0 }, as: UTF8.self)
                == "b=2&x-oss-expires=3600&x-oss-security-token=\(token)"
        )
        #expect(Self.residues(of: [("token", Array(token.utf8))], in: stack) == [])
    }

    @Test(
        "credentials in what is signed leave no copy on the stack: a Cookie and a Proxy-Authorization value, a request's own session token, and a presigned URL's token (SigV4 and OSS V4)"
    )
    func credentialFieldsAndPresignedTokens() throws {
        // Markers of 40 bytes (past a small string's 15), none a substring of another.
        let cookie = "session=C00KIE-0123456789abcdefghijklmnopq"
        let proxy = "Basic UFJPWFktMDEyMzQ1Njc4OWFiY2RlZmdoaWpr"
        let requestToken = "REQUEST-TOKEN-0123456789abcdefghijklmnopqrst"
        let sessionToken = "SESSION-TOKEN-0123456789abcdefghijklmnopqrst"
        let signed = Locked(0)
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                do {
                    let time = try Timestamp(iso8601: "2015-08-30T12:36:00Z")
                    let plain = try Credentials(
                        accessKeyId: "AKIDEXAMPLE",
                        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
                    )
                    let temporary = try Credentials(
                        accessKeyId: "AKIDEXAMPLE",
                        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                        sessionToken: sessionToken
                    )
                    let headers = [
                        HTTPHeader("Host", "iam.amazonaws.com"), HTTPHeader("Cookie", cookie),
                        HTTPHeader("Proxy-Authorization", proxy),
                        HTTPHeader("X-Amz-Security-Token", requestToken),
                    ]
                    let request = SigV4Request(
                        method: "GET",
                        target: "/?Action=ListUsers&Version=2010-05-08",
                        headers: headers
                    )
                    _ = try SigV4Signer(credentials: plain, region: "us-east-1", service: "iam").sign(request, at: time)
                    let get = SigV4Request(
                        method: "GET",
                        target: "/bucket/key",
                        headers: [HTTPHeader("Host", "s3.amazonaws.com")],
                        payload: .unsigned
                    )
                    _ = try SigV4Signer(credentials: temporary, region: "us-east-1", service: "s3", options: .s3)
                        .presign(get, at: time, expires: 60)
                    let oss = OSSRequest(
                        method: "GET",
                        target: "/key",
                        headers: [HTTPHeader("Host", "bucket.oss-cn-hangzhou.aliyuncs.com")],
                        bucket: "bucket",
                        key: "key"
                    )
                    _ = try OSSSigner(credentials: temporary, version: .v4, region: "cn-hangzhou").presign(
                        oss,
                        at: time,
                        expires: 60
                    )
                    signed.withLock { $0 = 3 }
                } catch {}
            }
        )
        #expect(signed.withLock { $0 } == 3)
        let markers = [
            ("cookie", cookie), ("proxy credential", proxy), ("request's token", requestToken),
            ("session token", sessionToken),
        ]
        #expect(Self.residues(of: markers.map { ($0.0, Array($0.1.utf8)) }, in: stack) == [])
    }

    @Test("the control: a secret copied into a stack buffer and not wiped is found")
    func control() throws {
        let secret = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }
        let stack = try #require(
            Self.afterRunningOnOwnStack {
                // A local tuple: on the thread's stack (withUnsafeTemporaryAllocation is a heap block
                // in sanitizer builds).
                var local: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &local) { raw in
                    raw.copyBytes(from: secret)
                    // Opaque to the optimiser: the copy must really be made.
                    _ = withExtendedLifetime(raw) { raw.load(fromByteOffset: Int(secret[0] & 7), as: UInt8.self) }
                }
            }
        )
        #expect(Self.residues(of: [("control", secret)], in: stack) == ["control"])
    }
}
#endif
