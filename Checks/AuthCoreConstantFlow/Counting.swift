import AuthCore
import AuthCoreServer

/// Instruction counts per secret class (`make ct-count`): each run prepares one operation for one
/// class of secret input, then runs it once between callgrind's collection toggles. A constant-time
/// operation gives the same `Ir` for every class; scripts/ct_count.py runs and compares them.
let countedOperations: [String: [String]] = {
    var operations: [String: [String]] = [
        "comb": ["random", "one", "top-limbs-zero", "all-ones"],
        "client-premaster": ["random", "x-zero", "x-top-bit-only", "a-random-bits-zero", "base-top-byte-zero"],
        "server-premaster": ["random", "v-small", "b-random-bits-zero"],
        "proof-compare": ["equal", "differ-first-byte", "differ-last-byte"],
        // The login service's work on secrets for an enrolled user and an unknown one of the same name
        // length (the table lookup, the decoy, B or the proof check, sealing or opening the state).
        "login-begin": ["enrolled", "unknown"],
        "login-finish": ["enrolled", "unknown"],
        // The controls: GMP's variable-time mpz_powm, whose counts must differ (or the method proves
        // nothing), and a login for a longer name (more HKDF and hash blocks), which must differ too.
        "control-mpz_powm": ["random", "one"],
        "control-login-begin": ["enrolled", "longer-name"],
    ]
    // Groups whose N is not a multiple of 64 bits (issue 42): a value below N may have a zero top
    // word, which must change nothing.
    // K = H(S) over S's minimal bytes, S's leading zero bytes secret (at 1029 bits S's top byte is
    // zero one time in 32), and Cognito's claim key over PADs(S).
    operations["session-key@1029"] = ["random", "s-top-byte-zero", "s-two-bytes-zero"]
    operations["session-key"] = ["random", "s-top-byte-zero", "s-two-bytes-zero"]
    operations["cognito-claim-key"] = ["random", "s-top-bit-set", "s-top-byte-zero", "s-two-bytes-zero"]
    for bits in ["1029", "1535", "2047"] {
        operations["verifier@\(bits)"] = ["random", "x-zero", "x-top-bit-only"]
        operations["client-premaster@\(bits)"] = ["random", "x-zero", "a-random-bits-zero", "base-top-limb-zero"]
        operations["server-premaster@\(bits)"] = ["random", "v-small", "v-top-limb-zero", "b-random-bits-zero"]
        operations["login-begin@\(bits)"] = ["enrolled", "unknown"]
        operations["login-finish@\(bits)"] = ["enrolled", "unknown"]
    }
    // The secret-power kernel's portable twin (issue 42; valgrind runs no AVX-512, so the IFMA
    // compilation of the same source is timed by dudect instead): a 513-bit exponent, as the premaster's.
    operations["secret-power-portable52"] = ["random", "exponent-zero", "exponent-ones", "base-zero", "base-unreduced"]
    operations["secret-power-portable52@2047"] = ["random", "exponent-zero", "base-top-limb-zero", "base-unreduced"]
    operations["comb-portable52"] = ["random", "one", "top-limbs-zero", "all-ones"]
    operations["comb-mont64"] = ["random", "one", "top-limbs-zero", "all-ones"]
    // The 64-bit-limb kernel, called directly (valgrind hides ADX from CPUID), on the same classes.
    operations["secret-power-mont64"] = ["random", "exponent-zero", "exponent-ones", "base-zero", "base-unreduced"]
    operations["secret-power-mont64@2047"] = ["random", "exponent-zero", "base-top-limb-zero", "base-unreduced"]
    // A control: the representation odd-length groups left behind (a BigUInt of v, which trims its
    // zero top words) must count differently when v's top word is zero.
    operations["control-verifier-biguint@2047"] = ["random", "v-top-limb-zero"]
    return operations
}()

/// A login service over a table of 40 users, the in-memory store (not counted: the gate counts the
/// service's own work, not the store's), a fixed clock. Deterministic — salts, the server's `b`
/// (a constant generator) and so `B` are the same in every process — so that the public values'
/// own lengths (B's leading zero bytes, hashed minimal in M1, and words, which its `BigUInt` keeps;
/// one time in 32 at 1029 bits) are the same from run to run: the classes then differ only in what
/// the gate is about.
typealias CountedLogins = (service: SRPLoginService, table: StaticVerifierStore, configuration: SRPConfiguration)

func countedLogins(_ group: SRPGroup) throws -> CountedLogins {
    let configuration = try SRPConfiguration(group: group, hash: .sha256)
    var entries: [(username: String, verifier: SRPVerifier)] = []
    for index in 0..<40 {
        let name = "user\(String(index + 10))"  // 6 bytes each
        let salt = [UInt8](repeating: UInt8(index), count: 16)
        entries.append(
            (
                name,
                try configuration.makeVerifier(
                    username: Array(name.utf8),
                    password: SecureBytes(Array("pw-\(index)".utf8)),
                    salt: salt
                )
            )
        )
    }
    let table = try StaticVerifierStore(entries, configuration: configuration)
    let keys = try ServerKeys(serverSecret: SecureBytes([UInt8](repeating: 0x3C, count: 32)))
    let service = SRPLoginService(
        configuration: configuration,
        verifiers: table,
        handshakes: InMemoryHandshakeStore(),
        keys: keys,
        random: ConstantRandom(byte: 0xB7),
        clock: FixedClock()
    )
    return (service, table, configuration)
}

struct FixedClock: SigningClock {
    func now() -> Timestamp { Timestamp(secondsSince1970: 1_796_000_000) }
}

/// The name each login class uses: an enrolled one, an unknown one of the same length, a longer unknown one.
func loginName(_ secretClass: String) -> String {
    switch secretClass {
    case "enrolled": "user23"
    case "unknown": "user99"
    default: "user-with-a-much-longer-name-" + String(repeating: "x", count: 100)
    }
}

/// A generator that returns one byte value (the "random bits zero" classes).
struct ConstantRandom: SecureRandomGenerator {
    let byte: UInt8
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        for index in buffer.indices { buffer[index] = byte }
    }
}

func randomBytes(_ count: Int) -> [UInt8] {
    (try? SystemRandom().secureBytes(count: count).withUnsafeBytes { Array($0) })
        ?? [UInt8](repeating: 0x5A, count: count)
}

func runCount(_ arguments: [String]) -> Int32 {
    if arguments == ["--list"] {  // scripts/ct_count.py reads the operations and their classes from here
        for name in countedOperations.keys.sorted() {
            print(([name] + countedOperations[name]!).joined(separator: " "))
        }
        return 0
    }
    guard arguments.count == 2, let operation = arguments.first, let classes = countedOperations[operation],
        classes.contains(arguments[1])
    else {
        let known = countedOperations.keys.sorted().map { "\($0) {\(countedOperations[$0]!.joined(separator: "|"))}" }
        print("usage: authcore-ctcheck count OP CLASS, one of: \(known.joined(separator: "; "))")
        return 2
    }
    do {
        let work = try prepared(operation, class: arguments[1])
        work()  // warm-up outside the count: lazily built tables and caches
        ConstantFlow.counting(work)
        return 0
    } catch {
        print("count \(operation) \(arguments[1]): \(error)")
        return 1
    }
}

func prepared(_ name: String, class secretClass: String) throws -> () -> Void {
    // `operation@bits` runs the operation in an odd-length group; without a suffix, in Cognito's
    // 3072-bit group (the login service: RFC 5054's 2048-bit group).
    let parts = name.split(separator: "@", maxSplits: 1)
    let operation = String(parts[0])
    let oddGroup = parts.count == 2 ? OddGroups.named(parts[1]) : nil
    guard parts.count == 1 || oddGroup != nil else {
        throw AuthCoreError(.invalidParameter, "no odd-length group of \(parts[1]) bits")
    }
    let group = oddGroup ?? CognitoSRP.group
    let k = try oddGroup.map { try SRPConfiguration(group: $0, hash: .sha256).multiplier } ?? CognitoSRP.multiplier
    let n = group.modulus
    let topLimbZero =
        [UInt8](repeating: 0, count: group.byteCount - 8 * (n.bitWidth / 64)) + randomBytes(8 * (n.bitWidth / 64))
    switch operation {
    case "comb":
        let exponent: [UInt8]
        switch secretClass {
        case "one": exponent = [UInt8](repeating: 0, count: 31) + [1]
        case "top-limbs-zero": exponent = [UInt8](repeating: 0, count: 24) + randomBytes(8)
        case "all-ones": exponent = [UInt8](repeating: 0xFF, count: 32)
        default: exponent = randomBytes(32)
        }
        return group.preparedGeneratorPower(exponent: exponent, bitCount: 256)
    case "verifier":
        let x: [UInt8]
        switch secretClass {
        case "x-zero": x = [UInt8](repeating: 0, count: 32)
        case "x-top-bit-only": x = [0x80] + [UInt8](repeating: 0, count: 31)
        default: x = randomBytes(32)
        }
        return group.preparedVerifier(x: x)
    case "client-premaster":
        var x = randomBytes(32)
        let u = [UInt8](repeating: 0x11, count: 32)  // public: the same for every class
        if secretClass == "x-zero" { x = [UInt8](repeating: 0, count: 32) }
        if secretClass == "x-top-bit-only" { x = [0x80] + [UInt8](repeating: 0, count: 31) }
        // B = k·g^x + t (mod N): the premaster base B - k·g^x is then t.
        let gx = try group.generator.powerVariableTime(BigUInt(bigEndianBytes: x), modulo: n)
        let kgx = try (k * gx).modulo(n)
        let t: BigUInt
        switch secretClass {
        case "base-top-byte-zero": t = BigUInt(bigEndianBytes: [0] + randomBytes(group.byteCount - 1))
        case "base-top-limb-zero": t = BigUInt(bigEndianBytes: topLimbZero)
        default: t = try BigUInt(bigEndianBytes: randomBytes(group.byteCount)).modulo(n)
        }
        let b = try (kgx + t).modulo(n)
        let random: any SecureRandomGenerator =
            secretClass == "a-random-bits-zero" ? ConstantRandom(byte: 0) : SystemRandom()
        return try group.preparedClientPremaster(serverPublicValue: b, multiplier: k, x: x, u: u, random: random)
    case "server-premaster":
        let a = try BigUInt(bigEndianBytes: [UInt8](repeating: 0x33, count: group.byteCount)).modulo(n)  // public
        let u = [UInt8](repeating: 0x11, count: 32)
        let v: [UInt8]  // at N's byte length, as a stored verifier
        switch secretClass {
        case "v-small": v = [UInt8](repeating: 0, count: group.byteCount - 9) + [0x01, 0, 0, 0, 0, 0, 0, 0, 0x01]
        case "v-top-limb-zero": v = topLimbZero
        default:
            v = try BigUInt(bigEndianBytes: randomBytes(group.byteCount)).modulo(n).bigEndianBytes(
                paddedTo: group.byteCount
            )
        }
        let random: any SecureRandomGenerator =
            secretClass == "b-random-bits-zero" ? ConstantRandom(byte: 0) : SystemRandom()
        return try group.preparedServerPremaster(clientPublicValue: a, verifierBytes: v, u: u, random: random)
    case "login-begin", "control-login-begin":
        let (service, table, configuration) = try countedLogins(oddGroup ?? .rfc5054Group2048)
        let name = loginName(secretClass)
        let a = try BigUInt(bigEndianBytes: [UInt8](repeating: 0x33, count: configuration.group.byteCount)).modulo(
            configuration.group.modulus
        )
        return {
            _ = try? service.prepareChallenge(
                username: name,
                clientPublicValue: a,
                stored: table.lookup(name),
                loginId: "0123456789abcdef0123456789abcdef",
                deviceId: nil,
                now: FixedClock().now()
            )
        }
    case "login-finish":
        let (service, table, configuration) = try countedLogins(oddGroup ?? .rfc5054Group2048)
        let name = loginName(secretClass)
        let loginId = "0123456789abcdef0123456789abcdef"
        let a = try BigUInt(bigEndianBytes: [UInt8](repeating: 0x33, count: configuration.group.byteCount)).modulo(
            configuration.group.modulus
        )
        let (_, sealed) = try service.prepareChallenge(
            username: name,
            clientPublicValue: a,
            stored: table.lookup(name),
            loginId: loginId,
            deviceId: nil,
            now: FixedClock().now()
        )
        let wrongProof = [UInt8](repeating: 0x5A, count: 32)
        return {
            guard let state = try? service.openState(sealed, loginId: loginId) else { return }
            _ = try? service.verifiedProof(state: state, clientProof: wrongProof, stored: table.lookup(state.username))
        }
    case "session-key", "cognito-claim-key":
        // S below N at N's byte length: a top byte of 0x11 (or 0x91, top bit set), or leading zeros.
        var s = randomBytes(group.byteCount)
        s[0] = secretClass == "s-top-bit-set" ? 0x91 : 0x01
        if secretClass == "s-top-byte-zero" || secretClass == "s-two-bytes-zero" {
            s[0] = 0
            s[1] |= 0x01
        }
        if secretClass == "s-two-bytes-zero" {
            s[1] = 0
            s[2] |= operation == "cognito-claim-key" ? 0x80 : 0x01
        }  // PADs(S) then starts at S's third byte
        if operation == "cognito-claim-key" { return CognitoSRP.preparedClaimKey(premasterBytes: s) }
        return try SRPConfiguration(group: group, hash: .sha256).preparedSessionKey(premasterBytes: s)
    case "comb-portable52", "comb-mont64":
        let exponents = [
            BigUInt(bigEndianBytes: randomBytes(32)), BigUInt(1), BigUInt(bigEndianBytes: randomBytes(8)),
            BigUInt(bigEndianBytes: [UInt8](repeating: 0xFF, count: 32)),
        ]
        let chosen = ["one": 1, "top-limbs-zero": 2, "all-ones": 3][secretClass] ?? 0
        // The 64-bit-limb kernel's comb runs on GMP's n-limb form (valgrind hides ADX: the table is
        // built for GMP's kernel and the kernel's comb called on it).
        let table = FixedBaseTable(
            base: group.generator,
            domain: MontgomeryDomain(modulus: n),
            maximumExponentBitCount: 256,
            kernel: operation == "comb-mont64" ? .gmp : .portable52
        )
        return withExtendedLifetime(exponents) {
            operation == "comb-mont64"
                ? table.preparedLimbCombPower(exponents[chosen], exponentBitCount: 256)
                : table.preparedPower(exponents[chosen], exponentBitCount: 256)
        }
    case "secret-power-portable52", "secret-power-mont64":
        // Every class builds every candidate, in the same order, and frees them in that order (an
        // array, not a dictionary, whose per-process hash seed would shuffle the frees): the heap —
        // and with it the alignment of the buffers memset clears in the counted work — is then the
        // same in every class.
        let bases = [
            try BigUInt(bigEndianBytes: randomBytes(group.byteCount)).modulo(n), BigUInt(),
            BigUInt(bigEndianBytes: topLimbZero),
            BigUInt(bigEndianBytes: [UInt8](repeating: 0xFF, count: 8 * ((n.bitWidth + 63) / 64))),  // ≥ N
        ]
        let exponents = [
            BigUInt(bigEndianBytes: randomBytes(64)), BigUInt(),
            BigUInt(bigEndianBytes: [0x01] + [UInt8](repeating: 0xFF, count: 64)),  // 2^513 − 1
        ]
        let base = ["base-zero": 1, "base-top-limb-zero": 2, "base-unreduced": 3][secretClass] ?? 0
        let exponent = ["exponent-zero": 1, "exponent-ones": 2][secretClass] ?? 0
        let domain = MontgomeryDomain(modulus: n)
        // every candidate freed after the work is built, whichever was chosen
        if operation == "secret-power-mont64" {
            return try withExtendedLifetime((bases, exponents)) {
                try preparedMont64Power(modulus: n, base: bases[base], exponent: exponents[exponent], bitCount: 513)
            }
        }
        return withExtendedLifetime((bases, exponents)) {
            domain.preparedSecretPower(bases[base], exponent: exponents[exponent], bitCount: 513, kernel: .portable52)
        }
    case "control-verifier-biguint":
        let v =
            secretClass == "v-top-limb-zero"
            ? topLimbZero
            : try BigUInt(bigEndianBytes: randomBytes(group.byteCount)).modulo(n).bigEndianBytes(
                paddedTo: group.byteCount
            )
        return { _ = BigUInt(bigEndianBytes: v) }
    case "control-mpz_powm":
        let exponent = BigUInt(
            bigEndianBytes: secretClass == "one" ? [UInt8](repeating: 0, count: 31) + [1] : randomBytes(32)
        )
        return { _ = try? group.generator.powerVariableTime(exponent, modulo: n) }
    default:  // proof-compare
        let expected = randomBytes(32)
        var received = expected
        if secretClass == "differ-first-byte" { received[0] ^= 0x01 }
        if secretClass == "differ-last-byte" { received[31] ^= 0x80 }
        return {
            expected.withUnsafeBytes { e in received.withUnsafeBytes { r in _ = constantTimeEqual(e, r) } }
        }
    }
}
