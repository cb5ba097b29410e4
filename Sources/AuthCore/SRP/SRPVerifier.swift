/// What a server stores for a user: the salt and the verifier `v = g^x mod N` (RFC 5054 §2.4).
///
/// The verifier is password-equivalent against an offline dictionary attack: `description` shows
/// only sizes. It is held as big-endian bytes of a public length — N's byte length for a verifier
/// made by ``SRPConfiguration/makeVerifier(username:password:salt:)`` — and read into N's limb
/// count when a server uses it, so no word or byte count that the code looks at depends on its
/// value (with a group whose N is not a multiple of 64 bits long, a `v` below N has a zero top word
/// with a probability far from negligible).
public struct SRPVerifier: Sendable, CustomStringConvertible {
    /// The salt `s` (binary; leading zero bytes are part of it).
    public let salt: [UInt8]
    /// `v` as big-endian bytes, leading zeros kept, in wiping storage.
    public let verifierBytes: SecureBytes

    /// A stored verifier given as big-endian bytes of any length, leading zeros kept (store it at
    /// N's byte length: ``SRPGroup/byteCount``).
    public init(salt: [UInt8], verifierBytes: some Collection<UInt8>) {
        self.salt = salt
        self.verifierBytes = SecureBytes(verifierBytes)
    }

    /// A stored verifier given as big-endian bytes in wiping storage.
    public init(salt: [UInt8], verifierBytes: SecureBytes) {
        self.salt = salt
        self.verifierBytes = verifierBytes
    }

    /// A stored verifier given as a number. A ``BigUInt`` keeps only its significant words, so this
    /// form writes `v` at its own length: prefer ``init(salt:verifierBytes:)-(_,Collection<UInt8>)``
    /// with N's byte length.
    public init(salt: [UInt8], verifier: BigUInt) {
        self.salt = salt
        self.verifierBytes = SecureBytes(count: verifier.byteWidth) { out in
            // invariant: the buffer has exactly the value's byte width.
            try? verifier.writeBigEndianBytes(into: out)
        }
    }

    /// The verifier `v` as a number: variable time in its leading zeros, for tools and tests, never
    /// on a server's path.
    public var verifier: BigUInt { BigUInt(bigEndianBytes: verifierBytes) }

    public var description: String { "SRPVerifier(salt \(salt.count) bytes, verifier \(verifierBytes.count) bytes)" }
}

extension SRPConfiguration {
    /// Creates a verifier for a new user with a fresh random salt of ``saltByteCount`` bytes.
    ///
    /// `x = H(s | H(I | ":" | P))`, `v = g^x mod N` (RFC 5054 §2.4), `g^x` in constant time.
    /// - Throws: ``AuthCoreError/Code/randomFailure``; ``AuthCoreError/Code/inputTooLarge`` for a
    ///   username or password over 64 KiB.
    public func makeVerifier(
        username: some Collection<UInt8>,
        password: SecureBytes,
        random: some SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) -> SRPVerifier {
        var salt = [UInt8](repeating: 0, count: saltByteCount)
        try salt.withUnsafeMutableBytesTyped { (buffer) throws(AuthCoreError) in try random.fill(buffer) }
        return try makeVerifier(username: username, password: password, salt: salt)
    }

    /// Computes the verifier for a given salt.
    public func makeVerifier(
        username: some Collection<UInt8>,
        password: SecureBytes,
        salt: [UInt8]
    )
        throws(AuthCoreError) -> SRPVerifier
    {
        let user = try Self.checkedInput(username, field: "username")
        guard password.count <= Self.maximumInputBytes else {
            throw AuthCoreError(.inputTooLarge, "password exceeds \(Self.maximumInputBytes) bytes")
        }
        let x = privateKeyScalar(username: user, password: password, salt: salt)
        return SRPVerifier(
            salt: salt,
            verifierBytes: try group.engine.verifierBytes(privateKey: x, bitCount: hashBitCount)
        )
    }
}

extension SRPConfiguration {
    /// Whether `verifier` may be stored for a user: a value in 2…N−2, checked in constant time at
    /// N's limb count (only the verdict is public); false for bytes wider than N's limbs.
    ///
    /// 0 and values of N or more are not `g^x mod N`; 1 and N−1 are, but only for `x` a multiple of
    /// the group's order (or half of it), and with them `S = (A·v^u)^b` is `A^b` or `±A^b`, which a
    /// client computes from `B − k·v` without the password (RFC 5054 §2.6's formula, with `v^u`
    /// known). Safe-prime groups have no other elements of order below q.
    public func isAcceptableVerifier(_ verifier: SRPVerifier) -> Bool {
        group.engine.isAcceptableVerifier(verifier.verifierBytes)
    }

    /// `verifier` with its bytes at N's byte length (``SRPGroup/byteCount``): left-padded with zeros,
    /// or with leading zero bytes beyond that length dropped; nil when a byte beyond it is not zero
    /// (the value is not below N). Time depends only on the byte counts; only the verdict is public.
    public func verifierAtModulusWidth(_ verifier: SRPVerifier) -> SRPVerifier? {
        let width = group.byteCount
        let stored = verifier.verifierBytes
        let extra = Swift.max(0, stored.count - width)
        let excess = stored.withUnsafeBytes { bytes in bytes[..<extra].reduce(UInt8(0)) { $0 | $1 } }
        // only "any non-zero" is public
        guard ConstantFlow.declassified((Int(excess) &+ 0xFF) >> 8) == 0 else { return nil }
        let value = SecureBytes(count: width) { out in
            stored.withUnsafeBytes { bytes in
                let kept = UnsafeRawBufferPointer(rebasing: bytes[extra...])
                UnsafeMutableRawBufferPointer(rebasing: out[(width - kept.count)...]).copyMemory(from: kept)
            }
        }
        return SRPVerifier(salt: verifier.salt, verifierBytes: value)
    }

    /// The same check for a verifier given as a number (variable time in its length).
    public func isAcceptableVerifier(_ verifier: BigUInt) -> Bool {
        isAcceptableVerifier(SRPVerifier(salt: [], verifier: verifier))
    }
}
