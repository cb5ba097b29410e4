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
