internal import CAuthCoreLibCrypto

/// An ECDSA P-256 key pair in OpenSSL (SEC 2 §2.4.2's curve, FIPS 186-5 ECDSA with SHA-256): the
/// key SigV4a derives from an access key (``SigV4AKey``), and the credential key of a software
/// WebAuthn authenticator (ES256, COSE algorithm -7).
///
/// The private scalar is handed to OpenSSL at creation and lives only in its key object (freed with
/// this object); the caller's copy is wiped by the caller. A fresh key's scalar is drawn in
/// wiping storage: 32 random bytes `c`, kept when `c ≤ n − 2` (compared without a branch on a byte),
/// and `d = c + 1`, so `1 ≤ d ≤ n − 1` (FIPS 186-5 A.2.2's rejection sampling).
public final class P256KeyPair: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // invariant: `key` is an EVP_PKEY key pair never changed after init; OpenSSL allows concurrent use
    // of one EVP_PKEY by several signing contexts. A signing context is used by one caller at a time:
    // it is taken out of `signingContexts` under the lock and put back (or freed) after the signature.
    private let key: OpaquePointer
    /// Idle signing contexts (`EVP_PKEY_CTX`, sign-initialised for this key), at most
    /// ``keptSigningContexts``: making one costs about a tenth of a signature.
    private let signingContexts = Locked<[OpaquePointer]>([])
    /// How many idle signing contexts a key keeps (one per concurrently signing thread, up to this).
    package static let keptSigningContexts = 4
    /// How many signing contexts are idle now (for tests of the reuse).
    package var idleSigningContexts: Int { signingContexts.withLock { $0.count } }
    /// The public point, uncompressed: `0x04 ‖ X ‖ Y` (65 bytes, SEC 1 §2.3.3).
    public let publicKey: [UInt8]

    /// n − 1 for P-256's order n: a candidate below it (that is, at most n − 2) is kept.
    package static let orderMinusOne: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x50,
    ]

    /// The key pair of the private scalar `scalar` (32 bytes, big-endian, `1 ≤ d ≤ n − 1`).
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL cannot build the key.
    package init(scalar: UnsafeRawBufferPointer) throws(AuthCoreError) {
        (key, publicKey) = try Self.makeKey(scalar: scalar)
    }

    /// A fresh key pair from `random`.
    ///
    /// - Throws: ``AuthCoreError/Code/randomFailure``; ``AuthCoreError/Code/libcryptoFailure``.
    public init(random: any SecureRandomGenerator = SystemRandom()) throws(AuthCoreError) {
        let scalar = try Self.randomScalar(random)
        (key, publicKey) = try scalar.withUnsafeBytes { (bytes) throws(AuthCoreError) in try Self.makeKey(scalar: bytes)
        }
    }

    /// OpenSSL's key object for `scalar`, and the public point.
    private static func makeKey(scalar: UnsafeRawBufferPointer) throws(AuthCoreError) -> (OpaquePointer, [UInt8]) {
        var point = [UInt8](repeating: 0, count: Int(C_AUTHCORE_P256_POINT_BYTES))
        // The constant-flow gate ends here: the scalar goes into OpenSSL (BN_bin2bn, EC_POINT_mul,
        // EVP_PKEY_fromdata, then its ECDSA), code AuthCore does not own. `make ctgrind-openssl`
        // counts what memcheck reports inside it with the scalar still secret.
        ConstantFlow.declassify(scalar)
        let made = point.withUnsafeMutableBytes { c_authcore_p256_key_pair_new(scalar.baseAddress, $0.baseAddress) }
        guard let made else { throw libcryptoError("EVP_PKEY_fromdata(P-256)") }
        return (made, point)
    }

    /// A scalar `1 ≤ d ≤ n − 1` from `random`, in wiping storage.
    private static func randomScalar(_ random: any SecureRandomGenerator) throws(AuthCoreError) -> SecureBytes {
        // About 2⁻³² of candidates are refused; 64 tries fail only for a broken generator.
        for _ in 0..<64 {
            let candidate = try random.secureBytes(count: 32)
            let kept = candidate.withUnsafeBytes { bytes in
                orderMinusOne.withUnsafeBytes { constantTimeLessThan(bytes, $0) }
            }
            guard ConstantFlow.declassified(kept) == 1 else { continue }
            return SecureBytes(count: 32) { out in candidate.withUnsafeBytes { addOne(to: $0, into: out) } }
        }
        throw AuthCoreError(.randomFailure, "the random generator gave no P-256 scalar in 64 tries")
    }

    deinit {
        signingContexts.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context) }
            contexts.removeAll()
        }
        EVP_PKEY_free(key)
    }

    /// The public point's X coordinate: the private scalar never leaves OpenSSL's key.
    public var description: String { "P256KeyPair(public X \(Hex.encode(publicKeyX)))" }
    public var debugDescription: String { description }

    /// The public point's X coordinate (32 bytes, big-endian).
    public var publicKeyX: [UInt8] { Array(publicKey[1..<33]) }
    /// The public point's Y coordinate (32 bytes, big-endian).
    public var publicKeyY: [UInt8] { Array(publicKey[33..<65]) }

    /// The DER-encoded ECDSA signature (RFC 3279 §2.2.3) of SHA-256(`message`). ECDSA signatures are
    /// randomized: two signatures of one message differ, and both verify.
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure``.
    public func signature(for message: UnsafeRawBufferPointer) throws(AuthCoreError) -> [UInt8] {
        let digest = LowLevelSHA256.hash(message)
        guard let context = signingContexts.withLock({ $0.popLast() }) ?? c_authcore_ecdsa_sign_context_new(key) else {
            throw libcryptoError("EVP_PKEY_sign_init(ECDSA P-256)")
        }
        var der = [UInt8](repeating: 0, count: 80)
        // The signature and its length are published (the DER length follows the values of r and s).
        let length = ConstantFlow.declassified(
            digest.withUnsafeBytes { hash in
                der.withUnsafeMutableBytes {
                    c_authcore_ecdsa_sign_digest(context, hash.baseAddress, hash.count, $0.baseAddress, $0.count)
                }
            }
        )
        guard length > 0 else {
            EVP_PKEY_CTX_free(context)  // not reused after a failure
            throw libcryptoError("EVP_PKEY_sign(ECDSA P-256)")
        }
        let kept = signingContexts.withLock { contexts in
            guard contexts.count < Self.keptSigningContexts else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
        der.removeLast(der.count - length)
        der.withUnsafeBytes { ConstantFlow.declassify($0) }
        return der
    }

    /// Whether `signature` (DER) is a valid ECDSA-with-SHA-256 signature of `message` under the P-256
    /// public key `publicKey` (65 bytes, uncompressed). A point that is not on the curve is refused.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for a public key that is not a P-256 point;
    ///   ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL cannot run the check (a wrong signature
    ///   is `false`).
    public static func isValidSignature(
        _ signature: [UInt8],
        for message: [UInt8],
        publicKey: [UInt8]
    ) throws(AuthCoreError) -> Bool {
        guard publicKey.count == Int(C_AUTHCORE_P256_POINT_BYTES), publicKey.first == 0x04,
            let key = publicKey.withUnsafeBytes({ c_authcore_p256_public_key_new($0.baseAddress) })
        else {
            ERR_clear_error()
            throw AuthCoreError(.invalidParameter, "the public key is not an uncompressed P-256 point")
        }
        defer { EVP_PKEY_free(key) }
        let result = signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in
                c_authcore_ecdsa_sha256_verify(key, msg.baseAddress, msg.count, sig.baseAddress, sig.count)
            }
        }
        guard result >= 0 else { throw libcryptoError("EVP_DigestVerify(ECDSA P-256)") }
        return result == 1
    }

    /// `out = value + 1` over 32 big-endian bytes, without a branch on any byte (the carry is
    /// arithmetic). `value < n − 1` here, so the sum does not overflow 256 bits.
    package static func addOne(to value: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        var carry: UInt16 = 1
        for index in stride(from: 31, through: 0, by: -1) {
            let sum = UInt16(value[index]) &+ carry
            out[index] = UInt8(truncatingIfNeeded: sum)
            carry = sum >> 8
        }
    }
}
