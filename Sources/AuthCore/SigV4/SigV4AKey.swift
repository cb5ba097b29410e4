internal import CAuthCoreLibCrypto

/// The ECDSA P-256 key pair SigV4a (`AWS4-ECDSA-P256-SHA256`) derives from an access key pair, and
/// the signatures it makes.
///
/// The derivation (the AWS Common Runtime's `aws_ecc_key_pair_new_ecdsa_p256_key_from_aws_credentials`,
/// a NIST SP 800-108 counter-mode KDF with HMAC-SHA256 as its PRF, one 256-bit block):
///
/// ```
/// for counter in 1...254:
///     k0 = HMAC-SHA256("AWS4A" ‖ secret, 0x00000001 ‖ "AWS4-ECDSA-P256-SHA256" ‖ 0x00 ‖ accessKeyId ‖ counter ‖ 0x00000100)
///     if k0 <= n − 2 (as a big-endian number): d = k0 + 1; stop
/// ```
///
/// where `n` is the order of P-256's base point (SEC 2 §2.4.2), so `1 <= d <= n − 1`. The comparison
/// and the addition read every byte and branch on none; only the verdict (whether this counter's
/// candidate is kept) is public, and a candidate is refused with probability about 2⁻³².
///
/// The private scalar lives in stack buffers wiped after use and in OpenSSL's key object, which is
/// freed with the key; the public point is exported (``publicKey``) for tests and verifiers.
public final class SigV4AKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // invariant: `key` is an EVP_PKEY key pair never changed after init; OpenSSL allows concurrent use
    // of one EVP_PKEY by several signing contexts. A signing context is used by one caller at a time:
    // it is taken out of `signingContexts` under the lock and put back (or freed) after the signature.
    private let key: OpaquePointer
    /// Idle signing contexts (`EVP_PKEY_CTX`, sign-initialised for this key), at most
    /// ``keptSigningContexts``: making one costs about a tenth of a signature. Each holds a reference
    /// to the key (not a copy of the scalar); they are freed with this object.
    private let signingContexts = Locked<[OpaquePointer]>([])
    /// How many idle signing contexts a key keeps (one per concurrently signing thread, up to this).
    package static let keptSigningContexts = 4
    /// How many signing contexts are idle now (for tests of the reuse).
    package var idleSigningContexts: Int { signingContexts.withLock { $0.count } }
    /// The public point, uncompressed: `0x04 ‖ X ‖ Y` (65 bytes, SEC 1 §2.3.3).
    public let publicKey: [UInt8]
    /// The access key id the key was derived for.
    public let accessKeyId: String

    /// The label of the derivation and the algorithm of the signatures.
    static let algorithm: StaticString = "AWS4-ECDSA-P256-SHA256"

    /// n − 1 for P-256's order n: a candidate below it (that is, at most n − 2) is kept.
    private static let orderMinusOne: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x50,
    ]

    /// Derives the key pair of `credentials` (its access key id and secret; the session token plays
    /// no part).
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL cannot build the key;
    ///   ``AuthCoreError/Code/invalidParameter`` in the (about 2⁻⁸⁰⁰⁰) case that no counter gives a
    ///   candidate.
    public init(credentials: Credentials) throws(AuthCoreError) {
        var point = [UInt8](repeating: 0, count: Int(C_AUTHCORE_P256_POINT_BYTES))
        let made: OpaquePointer? = try Self.withDerivedPrivateScalar(credentials) { scalar throws(AuthCoreError) in
            // The constant-flow gate ends here: the scalar goes into OpenSSL (BN_bin2bn, EC_POINT_mul,
            // EVP_PKEY_fromdata, then its ECDSA), code AuthCore does not own. `make ctgrind-openssl`
            // counts what memcheck reports inside it with the scalar still secret.
            ConstantFlow.declassify(scalar)
            return point.withUnsafeMutableBytes { c_authcore_p256_key_pair_new(scalar.baseAddress, $0.baseAddress) }
        }
        guard let made else { throw libcryptoError("EVP_PKEY_fromdata(P-256)") }
        key = made
        publicKey = point
        accessKeyId = credentials.accessKeyId
    }

    deinit {
        signingContexts.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context) }
            contexts.removeAll()
        }
        EVP_PKEY_free(key)
    }

    /// The access key id and the public point's X coordinate: the private scalar never leaves OpenSSL's key.
    public var description: String { "SigV4AKey(\(accessKeyId), public X \(Hex.encode(publicKeyX)))" }
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
                der.withUnsafeMutableBytes { c_authcore_ecdsa_sign_digest(context, hash.baseAddress, hash.count, $0.baseAddress, $0.count) }
            })
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
    public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) throws(AuthCoreError) -> Bool {
        guard publicKey.count == Int(C_AUTHCORE_P256_POINT_BYTES), publicKey.first == 0x04,
            let key = publicKey.withUnsafeBytes({ c_authcore_p256_public_key_new($0.baseAddress) })
        else {
            ERR_clear_error()
            throw AuthCoreError(.invalidParameter, "the public key is not an uncompressed P-256 point")
        }
        defer { EVP_PKEY_free(key) }
        let result = signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in c_authcore_ecdsa_sha256_verify(key, msg.baseAddress, msg.count, sig.baseAddress, sig.count) }
        }
        guard result >= 0 else { throw libcryptoError("EVP_DigestVerify(ECDSA P-256)") }
        return result == 1
    }

    /// Runs `body` with the private scalar `d` of `credentials` (32 bytes in a stack buffer, wiped
    /// when `body` returns). Package-visible for the constant-flow gate, which runs the derivation
    /// alone (`make ctgrind`: OpenSSL's key import and ECDSA are outside it).
    package static func withDerivedPrivateScalar<R>(
        _ credentials: Credentials, _ body: (UnsafeRawBufferPointer) throws(AuthCoreError) -> R
    ) throws(AuthCoreError) -> R {
        // The PRF's key: "AWS4A" ‖ secret, in a stack block wiped afterwards.
        let prefix: StaticString = "AWS4A"
        let accessKeyId = Array(credentials.accessKeyId.utf8)
        // The fixed input: i = 1 (32 bits) ‖ label ‖ 0x00 ‖ context (access key id ‖ counter) ‖ L = 256 (32 bits).
        var input: [UInt8] = [0, 0, 0, 1]
        algorithm.withUTF8Buffer { input.append(contentsOf: $0) }
        input.append(0)
        input.append(contentsOf: accessKeyId)
        let counterIndex = input.count
        input.append(0)
        input.append(contentsOf: [0, 0, 1, 0])
        return try credentials.secretAccessKey.withUnsafeBytes { secret throws(AuthCoreError) -> R in
            let keyCount = prefix.utf8CodeUnitCount + secret.count
            return try withUnsafeTemporaryAllocation(byteCount: keyCount + 64, alignment: 8) { scratch throws(AuthCoreError) -> R in
                defer { secureZero(scratch) }
                let prfKey = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<keyCount])
                let candidate = UnsafeMutableRawBufferPointer(rebasing: scratch[keyCount..<keyCount + 32])
                let scalar = UnsafeMutableRawBufferPointer(rebasing: scratch[keyCount + 32..<keyCount + 64])
                prefix.withUTF8Buffer { prfKey.copyMemory(from: UnsafeRawBufferPointer($0)) }
                UnsafeMutableRawBufferPointer(rebasing: prfKey[prefix.utf8CodeUnitCount...]).copyMemory(from: secret)
                for counter in UInt8(1)...UInt8(254) {
                    input[counterIndex] = counter
                    input.withUnsafeBytes { HMACSHA256Schedule.authenticationCode(key: UnsafeRawBufferPointer(prfKey), message: $0, into: candidate) }
                    let kept = orderMinusOne.withUnsafeBytes { constantTimeLessThan(UnsafeRawBufferPointer(candidate), $0) }
                    // Only the verdict leaves the constant flow: it decides whether another counter runs.
                    guard ConstantFlow.declassified(kept) == 1 else { continue }
                    addOne(to: UnsafeRawBufferPointer(candidate), into: scalar)
                    return try body(UnsafeRawBufferPointer(scalar))
                }
                throw AuthCoreError(.invalidParameter, "no SigV4a key exists for these credentials (every counter refused)")
            }
        }
    }

    /// `out = value + 1` over 32 big-endian bytes, without a branch on any byte (the carry is
    /// arithmetic). `value < n − 1` here, so the sum does not overflow 256 bits.
    private static func addOne(to value: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        var carry: UInt16 = 1
        for index in stride(from: 31, through: 0, by: -1) {
            let sum = UInt16(value[index]) &+ carry
            out[index] = UInt8(truncatingIfNeeded: sum)
            carry = sum >> 8
        }
    }
}
