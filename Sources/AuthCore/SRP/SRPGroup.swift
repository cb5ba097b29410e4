/// An SRP group: a large safe prime N and a generator g (RFC 5054 §2.5, Appendix A).
///
/// Use one of the seven RFC 5054 groups (``rfc5054Group1024`` … ``rfc5054Group8192``) or a custom
/// `(N, g)` that passes basic validation.
public struct SRPGroup: Sendable, Equatable, CustomStringConvertible {
    /// A short identifier: `rfc5054-3072`, or `custom-<bits>`.
    public let name: String
    /// The modulus N.
    public let modulus: BigUInt
    /// The generator g.
    public let generator: BigUInt
    /// The byte length of N: the width of RFC 5054's `PAD()`.
    public let byteCount: Int
    /// Shared arithmetic: Montgomery domain, fixed-base table for g, exponentiation kernel.
    let engine: SRPGroupEngine

    public var description: String { "SRPGroup(\(name))" }

    public static func == (lhs: SRPGroup, rhs: SRPGroup) -> Bool {
        lhs.modulus == rhs.modulus && lhs.generator == rhs.generator
    }

    /// A validated custom group.
    ///
    /// N may have any bit length from 1024 up, such as the 1535- or 2047-bit primes some SRP
    /// libraries ship: every value modulo N that depends on a secret (a verifier, `S`, an exported
    /// server state) is held at N's limb count whatever its value, so no count of words or bytes
    /// that the code looks at depends on a secret.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidGroup`` unless N is odd and at least 1024 bits, and
    ///   1 < g < N - 1. (Primality of N and (N-1)/2 is the caller's responsibility: testing it costs
    ///   seconds for large N.)
    public init(modulus: BigUInt, generator: BigUInt) throws(AuthCoreError) {
        guard modulus.isOdd, modulus.bitWidth >= 1024 else {
            throw AuthCoreError(.invalidGroup, "N must be odd and at least 1024 bits (got \(modulus.bitWidth) bits)")
        }
        guard modulus.bitWidth <= ModularContext.maximumModulusBitCount else {
            throw AuthCoreError(.invalidGroup, "N exceeds \(ModularContext.maximumModulusBitCount) bits")
        }
        guard generator > BigUInt(1), generator + BigUInt(1) < modulus else {
            throw AuthCoreError(.invalidGroup, "g must satisfy 1 < g < N - 1")
        }
        self.init(name: "custom-\(modulus.bitWidth)", modulus: modulus, generator: generator)
    }

    /// Looks a standard group up by its vector-file name (`rfc5054-1024` … `rfc5054-8192`) or bit size (`3072`).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidGroup`` for an unknown name.
    public init(named name: String) throws(AuthCoreError) {
        let key = name.hasPrefix("rfc5054-") ? String(name.dropFirst("rfc5054-".count)) : name
        guard let group = SRPGroup.standard.first(where: { $0.name == "rfc5054-\(key)" }) else {
            throw AuthCoreError(
                .invalidGroup,
                "unknown SRP group '\(name)' (expected one of 1024, 1536, 2048, 3072, 4096, 6144, 8192)"
            )
        }
        self = group
    }

    init(name: String, modulus: BigUInt, generator: BigUInt) {
        self.name = name
        self.modulus = modulus
        self.generator = generator
        self.byteCount = modulus.byteWidth
        self.engine = SRPGroupEngine(modulus: modulus, generator: generator)
    }

    /// `g^e mod N` for a secret exponent, in constant time, through the group's fixed-base table
    /// (built on first use; exponents over 512 bits use `mpn_sec_powm`). The result, a `BigUInt`,
    /// keeps only its significant words: its word count is public (for a value to publish, such as
    /// `A`; a secret result is kept at N's width by the engine, as verifiers are).
    ///
    /// - Parameters:
    ///   - exponent: the secret exponent, at most `exponentBitCount` bits.
    ///   - exponentBitCount: the declared (public) exponent length; it alone sets the running time.
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when the exponent does not fit or the length
    ///   is outside 1...``ModularContext/maximumExponentBitCountLimit``.
    public func generatorPower(secretExponent exponent: BigUInt, exponentBitCount: Int) throws(AuthCoreError) -> BigUInt
    {
        guard (1...ModularContext.maximumExponentBitCountLimit).contains(exponentBitCount) else {
            throw AuthCoreError(.invalidParameter, "exponent bit count \(exponentBitCount) is out of range")
        }
        guard exponent.bitWidth <= exponentBitCount else {
            throw AuthCoreError(.invalidParameter, "exponent is wider than the declared \(exponentBitCount) bits")
        }
        return try engine.generatorPower(
            LimbBuffer(exponent, count: (exponentBitCount + 63) / 64),
            bitCount: exponentBitCount
        )
    }

    /// `base^e mod N` through the premaster-secret path (GMP's `mpn_sec_powm` over fixed-width limbs,
    /// constant time in the base and the exponent) at the declared `exponentBitCount`.
    package func variableBasePower(
        _ base: BigUInt,
        secretExponent exponent: BigUInt,
        exponentBitCount: Int
    )
        throws(AuthCoreError) -> BigUInt
    {
        guard exponentBitCount >= 1, exponent.bitWidth <= exponentBitCount else {
            throw AuthCoreError(.invalidParameter, "exponent is wider than the declared \(exponentBitCount) bits")
        }
        let result = engine.secretPower(
            base: LimbBuffer(try base.modulo(modulus), count: engine.limbCount),
            exponent: LimbBuffer(exponent, count: (exponentBitCount + 63) / 64),
            bitCount: exponentBitCount
        )
        return result.bigUInt
    }

    /// Reads a peer's public value (`A` or `B`) and applies the RFC 5054 §2.5.4 checks.
    ///
    /// The bytes are a big-endian number of any length (leading zeros allowed): a value with fewer
    /// bytes than N is valid.
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when the value is ≥ N or ≡ 0 (mod N).
    public func validatedPublicValue(_ bytes: some Collection<UInt8>, field: String) throws(AuthCoreError) -> BigUInt {
        let significant = bytes.drop(while: { $0 == 0 })
        guard significant.count <= byteCount else {
            throw AuthCoreError(
                .unsafePublicValue,
                "\(field) is not below N (\(significant.count) bytes for a \(byteCount)-byte N)"
            )
        }
        return try validatedPublicValue(BigUInt(bigEndianBytes: Array(significant)), field: field)
    }

    /// Applies the RFC 5054 §2.5.4 checks to a peer's public value.
    ///
    /// - Throws: ``AuthCoreError/Code/unsafePublicValue`` when the value is ≥ N or ≡ 0 (mod N).
    public func validatedPublicValue(_ value: BigUInt, field: String) throws(AuthCoreError) -> BigUInt {
        guard value < modulus else { throw AuthCoreError(.unsafePublicValue, "\(field) is not below N") }
        guard !value.isZero else { throw AuthCoreError(.unsafePublicValue, "\(field) ≡ 0 (mod N)") }
        return value
    }

    private static func rfc5054(_ bits: Int, _ entry: (modulusHex: String, generator: UInt)) -> SRPGroup {
        guard let modulus = try? BigUInt(hex: entry.modulusHex) else {
            // invariant: the RFC 5054 table is compile-time constant hex.
            preconditionFailure("RFC 5054 group table is malformed")
        }
        return SRPGroup(name: "rfc5054-\(bits)", modulus: modulus, generator: BigUInt(entry.generator))
    }

    /// RFC 5054 Appendix A 1024-bit group (g = 2).
    public static let rfc5054Group1024 = rfc5054(1024, RFC5054Groups.group1024)
    /// RFC 5054 Appendix A 1536-bit group (g = 2).
    public static let rfc5054Group1536 = rfc5054(1536, RFC5054Groups.group1536)
    /// RFC 5054 Appendix A 2048-bit group (g = 2).
    public static let rfc5054Group2048 = rfc5054(2048, RFC5054Groups.group2048)
    /// RFC 5054 Appendix A 3072-bit group (g = 5); Amazon Cognito uses its N with g = 2.
    public static let rfc5054Group3072 = rfc5054(3072, RFC5054Groups.group3072)
    /// RFC 5054 Appendix A 4096-bit group (g = 5).
    public static let rfc5054Group4096 = rfc5054(4096, RFC5054Groups.group4096)
    /// RFC 5054 Appendix A 6144-bit group (g = 5).
    public static let rfc5054Group6144 = rfc5054(6144, RFC5054Groups.group6144)
    /// RFC 5054 Appendix A 8192-bit group (g = 19).
    public static let rfc5054Group8192 = rfc5054(8192, RFC5054Groups.group8192)

    /// The seven RFC 5054 groups, smallest first.
    public static let standard: [SRPGroup] = [
        rfc5054Group1024, rfc5054Group1536, rfc5054Group2048, rfc5054Group3072, rfc5054Group4096,
        rfc5054Group6144, rfc5054Group8192,
    ]
}
