/// What a server stores for a user: the salt and the verifier `v = g^x mod N` (RFC 5054 §2.4).
///
/// The verifier is password-equivalent against an offline dictionary attack: `description` shows
/// only sizes.
public struct SRPVerifier: Sendable, CustomStringConvertible {
    /// The salt `s` (binary; leading zero bytes are part of it).
    public let salt: [UInt8]
    /// The verifier `v = g^x mod N`.
    public let verifier: BigUInt

    /// A stored verifier.
    public init(salt: [UInt8], verifier: BigUInt) {
        self.salt = salt
        self.verifier = verifier
    }

    public var description: String { "SRPVerifier(salt \(salt.count) bytes, verifier \(verifier.bitWidth) bits)" }
}

extension SRPConfiguration {
    /// Creates a verifier for a new user with a fresh random salt of ``saltByteCount`` bytes.
    ///
    /// `x = H(s | H(I | ":" | P))`, `v = g^x mod N` (RFC 5054 §2.4), `g^x` in constant time.
    /// - Throws: ``AuthCoreError/Code/randomFailure``; ``AuthCoreError/Code/inputTooLarge`` for a
    ///   username or password over 64 KiB.
    public func makeVerifier(
        username: some Collection<UInt8>, password: SecureBytes, random: some SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) -> SRPVerifier {
        var salt = [UInt8](repeating: 0, count: saltByteCount)
        try salt.withUnsafeMutableBytesTyped { (buffer) throws(AuthCoreError) in try random.fill(buffer) }
        return try makeVerifier(username: username, password: password, salt: salt)
    }

    /// Computes the verifier for a given salt.
    public func makeVerifier(username: some Collection<UInt8>, password: SecureBytes, salt: [UInt8])
        throws(AuthCoreError) -> SRPVerifier
    {
        let user = try Self.checkedInput(username, field: "username")
        guard password.count <= Self.maximumInputBytes else {
            throw AuthCoreError(.inputTooLarge, "password exceeds \(Self.maximumInputBytes) bytes")
        }
        let x = privateKeyScalar(username: user, password: password, salt: salt)
        return SRPVerifier(salt: salt, verifier: try group.engine.verifierValue(privateKey: x, bitCount: hashBitCount))
    }
}

extension SRPConfiguration {
    /// Whether `verifier` may be stored for a user: a value in 2…N−2. Variable time (a table's
    /// values are checked when it is loaded, not per login).
    ///
    /// 0 and values of N or more are not `g^x mod N`; 1 and N−1 are, but only for `x` a multiple of
    /// the group's order (or half of it), and with them `S = (A·v^u)^b` is `A^b` or `±A^b`, which a
    /// client computes from `B − k·v` without the password (RFC 5054 §2.6's formula, with `v^u`
    /// known). Safe-prime groups have no other elements of order below q.
    public func isAcceptableVerifier(_ verifier: BigUInt) -> Bool {
        let two = BigUInt(2)
        return !(verifier < two) && !(group.modulus - two < verifier)
    }
}
