/// How A, B and S are written where the proofs and the session key hash them.
///
/// RFC 2945 §3 and pysrp hash their minimal big-endian bytes; other implementations (the swift-srp
/// package among them) hash them padded to the length of N. The two agree whenever none of A, B, S
/// has a leading zero byte and fail to interoperate otherwise (about 1.5 % of random handshakes at
/// 2048–3072 bits), so both peers must use the same convention.
public enum SRPProofPadding: String, Sendable, CaseIterable {
    /// `M1 = H(… | A | B | K)`, `M2 = H(A | M1 | K)`, `K = H(S)` over minimal bytes (RFC 2945 §3; the default).
    case minimal
    /// `M1 = H(… | PAD(A) | PAD(B) | K)`, `M2 = H(PAD(A) | M1 | K)`, `K = H(PAD(S))`. Also the
    /// constant-flow choice: S's length is never looked at.
    case padded
}

/// How a number is written where SRP hashes it.
public enum SRPNumberEncoding: String, Sendable, CaseIterable {
    /// Minimal big-endian bytes (RFC 2945).
    case minimal
    /// Big-endian bytes left-padded with zeros to the length of N (RFC 5054 `PAD`).
    case padded
    /// Minimal big-endian bytes with a `00` in front when the first byte is ≥ 0x80 (a non-negative
    /// two's-complement form: the AWS SDKs' `padHex`, Amazon Cognito).
    case signPadded

    package func bytes(_ value: BigUInt, group: SRPGroup) throws(AuthCoreError) -> [UInt8] {
        switch self {
        case .minimal: value.minimalBigEndianBytes
        case .padded: try value.bigEndianBytes(paddedTo: group.byteCount)
        case .signPadded: value.signPaddedBigEndianBytes
        }
    }
}

/// How an SRP-6a variant writes N, g, A and B into the multiplier `k = H(N | g)` and the scrambling
/// parameter `u = H(A | B)`: the one difference between RFC 5054 and Amazon Cognito in the parts
/// the two share (x, S and the exponentiations are the same formulas; the proofs differ and live
/// with each).
public struct SRPHashConvention: Sendable, Hashable {
    /// N in `k`.
    public var modulusInMultiplier: SRPNumberEncoding
    /// g in `k`.
    public var generatorInMultiplier: SRPNumberEncoding
    /// A and B in `u`.
    public var publicValuesInScrambling: SRPNumberEncoding

    /// RFC 5054 §2.5.3 and §2.6: `k = H(N | PAD(g))`, `u = H(PAD(A) | PAD(B))`.
    public static let rfc5054 = SRPHashConvention(
        modulusInMultiplier: .minimal,
        generatorInMultiplier: .padded,
        publicValuesInScrambling: .padded
    )
    /// Amazon Cognito: `k = H(PADs(N) | PADs(g))`, `u = H(PADs(A) | PADs(B))` (``SRPNumberEncoding/signPadded``).
    public static let cognito = SRPHashConvention(
        modulusInMultiplier: .signPadded,
        generatorInMultiplier: .signPadded,
        publicValuesInScrambling: .signPadded
    )
}

/// The parameters two SRP-6a peers agree on: group, hash, proof convention and sizes.
///
/// ```swift
/// let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
/// ```
public struct SRPConfiguration: Sendable {
    /// The group (N, g).
    public let group: SRPGroup
    /// The hash H (SHA-1, SHA-256 or SHA-512).
    public let hash: HashAlgorithm
    /// When true, `H(g)` inside M1 is `H(PAD(g))`, as pysrp's RFC 5054 mode and some other libraries
    /// compute it; the default (false) follows RFC 2945 §3 (`H(g)` over g's minimal bytes).
    public let proofPadsG: Bool
    /// How A, B and S are hashed in M1, M2 and K (default ``SRPProofPadding/minimal``, RFC 2945).
    public let proofPadding: SRPProofPadding
    /// Random bits in a fresh private value `a` or `b` (RFC 5054 §2.5.3: at least 256).
    public let privateValueBitCount: Int
    /// Length of a fresh salt, 16...32 bytes.
    public let saltByteCount: Int
    /// How `k` and `u` hash their numbers (default ``SRPHashConvention/rfc5054``).
    public let convention: SRPHashConvention
    /// The multiplier `k = H(N | PAD(g))` (RFC 5054 §2.5.3; per ``convention``), computed once.
    public let multiplier: BigUInt

    /// The accepted salt lengths for new verifiers.
    public static let saltByteCountRange = 16...32
    /// The hashes SRP-6a is offered with.
    public static let supportedHashes: [HashAlgorithm] = [.sha1, .sha256, .sha512]

    /// Validates and prepares a configuration.
    ///
    /// - Throws: ``AuthCoreError/Code/unsupported`` for a hash other than SHA-1/256/512;
    ///   ``AuthCoreError/Code/invalidParameter`` for a private value size outside 256...1024 bits or
    ///   a salt size outside 16...32 bytes.
    public init(
        group: SRPGroup,
        hash: HashAlgorithm,
        proofPadsG: Bool = false,
        proofPadding: SRPProofPadding = .minimal,
        convention: SRPHashConvention = .rfc5054,
        privateValueBitCount: Int = SRPPrivateValue.defaultRandomBitCount,
        saltByteCount: Int = 16
    ) throws(AuthCoreError) {
        guard Self.supportedHashes.contains(hash) else {
            throw AuthCoreError(.unsupported, "SRP-6a is offered with sha1, sha256 or sha512, not \(hash)")
        }
        guard SRPPrivateValue.randomBitCountRange.contains(privateValueBitCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "private value bit count \(privateValueBitCount) is outside \(SRPPrivateValue.randomBitCountRange)"
            )
        }
        guard Self.saltByteCountRange.contains(saltByteCount) else {
            throw AuthCoreError(
                .invalidParameter,
                "salt length \(saltByteCount) is outside \(Self.saltByteCountRange) bytes"
            )
        }
        self.init(
            validGroup: group,
            hash: hash,
            proofPadsG: proofPadsG,
            proofPadding: proofPadding,
            convention: convention,
            privateValueBitCount: privateValueBitCount,
            saltByteCount: saltByteCount
        )
    }

    /// A configuration whose parameters are known to be valid (the library's own, such as Cognito's).
    init(
        validGroup group: SRPGroup,
        hash: HashAlgorithm,
        proofPadsG: Bool = false,
        proofPadding: SRPProofPadding = .minimal,
        convention: SRPHashConvention,
        privateValueBitCount: Int = SRPPrivateValue.defaultRandomBitCount,
        saltByteCount: Int = 16
    ) {
        self.group = group
        self.hash = hash
        self.proofPadsG = proofPadsG
        self.proofPadding = proofPadding
        self.convention = convention
        self.privateValueBitCount = privateValueBitCount
        self.saltByteCount = saltByteCount
        // g < N (SRPGroup's invariant), so no encoding can fail: `bigEndianBytes(paddedTo:)` throws
        // only for values wider than N.
        let n =
            (try? convention.modulusInMultiplier.bytes(group.modulus, group: group))
            ?? group.modulus.minimalBigEndianBytes
        let g =
            (try? convention.generatorInMultiplier.bytes(group.generator, group: group))
            ?? group.generator.minimalBigEndianBytes
        self.multiplier = BigUInt(bigEndianBytes: hash.digest(n, g).bytes)
    }

    /// A configuration with the hash chosen by type, in the style of `SRPConfiguration<H>`.
    public init<H: HashFunction>(
        group: SRPGroup,
        hashFunction: H.Type,
        proofPadsG: Bool = false,
        proofPadding: SRPProofPadding = .minimal,
        privateValueBitCount: Int = SRPPrivateValue.defaultRandomBitCount,
        saltByteCount: Int = 16
    ) throws(AuthCoreError) {
        try self.init(
            group: group,
            hash: H.algorithm,
            proofPadsG: proofPadsG,
            proofPadding: proofPadding,
            convention: .rfc5054,
            privateValueBitCount: privateValueBitCount,
            saltByteCount: saltByteCount
        )
    }

    /// A public value as the proofs hash it: minimal bytes, or padded to N's length (``proofPadding``).
    func proofBytes(_ value: BigUInt) throws(AuthCoreError) -> [UInt8] {
        switch proofPadding {
        case .minimal: value.minimalBigEndianBytes
        case .padded: try value.bigEndianBytes(paddedTo: group.byteCount)
        }
    }

    /// The hash width in bits (the declared length of `x` and `u`).
    var hashBitCount: Int { hash.byteCount * 8 }
    var hashLimbCount: Int { (hashBitCount + 63) / 64 }

    /// The public offset exponent for a client's `a`: the exponent `a + u·x` then always has
    /// `clientOffsetBits / 64 + 1` words (see ``SRPPrivateValue``).
    var clientOffsetBits: Int { clientOffsetBits(randomBits: privateValueBitCount) }
    /// The same for an `a` of `randomBits` random bits (Cognito's callers may draw more than the
    /// default): the one formula.
    func clientOffsetBits(randomBits: Int) -> Int { 64 * ((Swift.max(randomBits, 2 * hashBitCount) + 63) / 64) }
    /// The public offset exponent for a server's `b`.
    var serverOffsetBits: Int { 64 * ((privateValueBitCount + 63) / 64) }

    /// A hash value read as a fixed-width secret scalar (`x`) or public one (`u`).
    func scalar(_ digest: Digest) -> LimbBuffer {
        digest.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: hashLimbCount) }
    }

    /// `u = H(PAD(A) | PAD(B))` (RFC 5054 §2.6; per ``convention``).
    ///
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` (through `PAD`) for a value wider than N.
    func scramblingParameter(clientPublicValue a: BigUInt, serverPublicValue b: BigUInt) throws(AuthCoreError) -> Digest
    {
        let encoding = convention.publicValuesInScrambling
        return hash.digest(try encoding.bytes(a, group: group), try encoding.bytes(b, group: group))
    }

    /// `u` as a number, refusing `u = 0` (RFC 5054 §2.6: "abort if u = 0").
    package static func checkedScramblingParameter(_ digest: some Collection<UInt8>) throws(AuthCoreError) -> BigUInt {
        let u = BigUInt(bigEndianBytes: digest)
        guard !u.isZero else { throw AuthCoreError(.unsafePublicValue, "u = H(PAD(A) | PAD(B)) is zero") }
        return u
    }

    /// `x = H(s | H(I | ":" | P))` (RFC 5054 §2.6, RFC 2945 §3) as a fixed-width secret scalar,
    /// hashed into wiping storage (never through a `Digest` copy). Cognito's
    /// `x = H(PADs(salt) | H(realm | identity | ":" | password))` is this formula with
    /// `I = realm | identity` and the salt's sign-padded bytes.
    func privateKeyScalar(username: [UInt8], password: SecureBytes, salt: [UInt8]) -> LimbBuffer {
        let inner = password.withUnsafeBytes { p in
            username.withUnsafeBytes { i in
                [UInt8(ascii: ":")].withUnsafeBytes { colon in hash.secretHash(parts: [i, colon, p]) }
            }
        }
        let x = inner.withUnsafeBytes { h in salt.withUnsafeBytes { s in hash.secretHash(parts: [s, h]) } }
        return x.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: hashLimbCount) }
    }

    /// `M1 = H(H(N) XOR H(g) | H(I) | s | A | B | K)` (RFC 2945 §3; `H(PAD(g))` with ``proofPadsG``;
    /// `PAD(A)`, `PAD(B)` with ``SRPProofPadding/padded``).
    func clientProof(
        username: [UInt8],
        salt: [UInt8],
        clientPublicValue a: BigUInt,
        serverPublicValue b: BigUInt,
        key: SecureBytes
    )
        throws(AuthCoreError) -> Digest
    {
        let hN = hash.digest(group.modulus.minimalBigEndianBytes).bytes
        let gBytes =
            proofPadsG
            ? try group.generator.bigEndianBytes(paddedTo: group.byteCount) : group.generator.minimalBigEndianBytes
        let hG = hash.digest(gBytes).bytes
        let xored = zip(hN, hG).map { $0 ^ $1 }
        let hI = hash.digest(username).bytes
        let aBytes = try proofBytes(a)
        let bBytes = try proofBytes(b)
        return key.withUnsafeBytes { k in
            xored.withUnsafeBytes { x in
                hI.withUnsafeBytes { i in
                    salt.withUnsafeBytes { s in
                        aBytes.withUnsafeBytes { ab in
                            bBytes.withUnsafeBytes { bb in hash.hash(parts: [x, i, s, ab, bb, k]) }
                        }
                    }
                }
            }
        }
    }

    /// `M2 = H(A | M1 | K)` (RFC 2945 §3; `PAD(A)` with ``SRPProofPadding/padded``).
    func serverProof(
        clientPublicValue a: BigUInt,
        clientProof m1: Digest,
        key: SecureBytes
    ) throws(AuthCoreError) -> Digest {
        let aBytes = try proofBytes(a)
        return key.withUnsafeBytes { k in
            m1.withUnsafeBytes { m in aBytes.withUnsafeBytes { ab in hash.hash(parts: [ab, m, k]) } }
        }
    }

    /// `K = H(S)` with S as minimal big-endian bytes (RFC 2945 §3, as the vectors define it), or
    /// `H(PAD(S))` with ``SRPProofPadding/padded``.
    ///
    /// S stays in fixed-width storage. In minimal mode the hash runs on S from each of its first three
    /// possible starts (N's byte length, one and two bytes less) and the one past S's leading zero
    /// bytes is kept without a branch on it (``SecureBytes/transformingSuffix(from:candidates:_:)``):
    /// only three or more leading zero bytes are declassified, about 2⁻²⁴ of handshakes when N's top
    /// byte is full and at most about 2⁻¹⁷ otherwise (a 2049-bit N leaves S's top byte zero about half
    /// the time).
    /// In padded mode nothing about S is looked at.
    func sessionKey(premasterSecret s: LimbBuffer) -> SecureBytes {
        let bytes = s.secureBigEndianBytes()
        let width = group.byteCount
        precondition(bytes.count >= width, "S is stored at the limb width of N")  // invariant: LimbBuffer of N's limbs
        let base = bytes.count - width  // the bytes before are zero (S < N): a public offset
        switch proofPadding {
        case .minimal:
            return bytes.transformingSuffix(from: bytes.leadingZeroByteCount, candidates: base..<(base + 3)) {
                hash.secretHash(parts: [$0])
            }
        case .padded:
            return bytes.withUnsafeBytes { all in
                hash.secretHash(parts: [UnsafeRawBufferPointer(rebasing: all[base...])])
            }
        }
    }

    static let maximumInputBytes = 65_536

    static func checkedInput(_ bytes: some Collection<UInt8>, field: String) throws(AuthCoreError) -> [UInt8] {
        guard bytes.count <= maximumInputBytes else {
            throw AuthCoreError(.inputTooLarge, "\(field) exceeds \(maximumInputBytes) bytes")
        }
        return Array(bytes)
    }
}

extension HashAlgorithm {
    /// H over the concatenation of byte arrays.
    func digest(_ parts: [UInt8]...) -> Digest {
        let context = DigestContext(algorithm: self)
        for part in parts { part.withUnsafeBytes { context.update($0) } }
        return context.finalize(count: byteCount)
    }
}
