/// An SRP ephemeral private value (`a` for a client, `b` for a server) with its public value.
///
/// A generated value is `r + 2^o`, where `r` holds `randomBitCount` random bits and `2^o` is a public
/// offset chosen per operation so that the exponent the premaster computation raises to (`b`, or
/// `a + u·x`) always has the same number of 64-bit words: the constant-time exponentiation's running
/// time then never depends on the value's leading zeros. The entropy is that of `r` (RFC 5054 §2.5.3
/// asks for at least 256 bits); the public value is `g^(r + 2^o) = g^r · g^(2^o)`, computed with the
/// group's fixed-base table and one multiplication by the precomputed `g^(2^o)`.
///
/// Values given explicitly (test vectors, through package API only) are used as they are, without
/// an offset, at their own bit length.
///
/// The value is `~Copyable` and wiped when freed: a prepared ephemeral is used once.
public struct SRPPrivateValue: ~Copyable, Sendable {
    /// The exponent limbs (including the offset, if any), fixed width.
    let exponent: LimbBuffer
    /// The declared (public) bit length the exponent is used at: `o + 1` for a generated value.
    let exponentBitCount: Int
    /// The public value g^exponent mod N.
    public let publicValue: BigUInt
    /// The group it belongs to.
    public let group: SRPGroup

    init(exponent: LimbBuffer, exponentBitCount: Int, publicValue: BigUInt, group: SRPGroup) {
        self.exponent = exponent
        self.exponentBitCount = exponentBitCount
        self.publicValue = publicValue
        self.group = group
    }

    /// The exponent as a number (secret; for tests).
    package var exponentValue: BigUInt { exponent.bigUInt }
    /// The number of 64-bit words of the exponent (for tests of the fixed-width property).
    package var exponentLimbCount: Int { exponent.count }

    /// The number of random bits used when none is given: RFC 5054's minimum.
    public static let defaultRandomBitCount = 256
    /// The accepted range of random bit counts.
    public static let randomBitCountRange = 256...1024
}

extension SRPPrivateValue {
    /// A description without the value (the type is `~Copyable`, so it cannot conform to
    /// `CustomStringConvertible`; nothing can print it by reflection either).
    public var description: String { "SRPPrivateValue(\(group.name), public value \(publicValue.bitWidth) bits)" }
}
