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
public final class SigV4AKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key pair (OpenSSL's key object, its signing contexts).
    private let pair: P256KeyPair
    /// How many idle signing contexts a key keeps (``P256KeyPair``'s).
    package static var keptSigningContexts: Int { P256KeyPair.keptSigningContexts }
    /// How many signing contexts are idle now (for tests of the reuse).
    package var idleSigningContexts: Int { pair.idleSigningContexts }
    /// The public point, uncompressed: `0x04 ‖ X ‖ Y` (65 bytes, SEC 1 §2.3.3).
    public var publicKey: [UInt8] { pair.publicKey }
    /// The access key id the key was derived for.
    public let accessKeyId: String

    /// The label of the derivation and the algorithm of the signatures.
    static let algorithm: StaticString = "AWS4-ECDSA-P256-SHA256"

    /// Derives the key pair of `credentials` (its access key id and secret; the session token plays
    /// no part).
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL cannot build the key;
    ///   ``AuthCoreError/Code/invalidParameter`` in the (about 2⁻⁸⁰⁰⁰) case that no counter gives a
    ///   candidate.
    public init(credentials: Credentials) throws(AuthCoreError) {
        pair = try Self.withDerivedPrivateScalar(credentials) { (scalar) throws(AuthCoreError) in
            try P256KeyPair(scalar: scalar)
        }
        accessKeyId = credentials.accessKeyId
    }

    /// The access key id and the public point's X coordinate: the private scalar never leaves OpenSSL's key.
    public var description: String { "SigV4AKey(\(accessKeyId), public X \(Hex.encode(publicKeyX)))" }
    public var debugDescription: String { description }

    /// The public point's X coordinate (32 bytes, big-endian).
    public var publicKeyX: [UInt8] { pair.publicKeyX }
    /// The public point's Y coordinate (32 bytes, big-endian).
    public var publicKeyY: [UInt8] { pair.publicKeyY }

    /// The DER-encoded ECDSA signature (RFC 3279 §2.2.3) of SHA-256(`message`). ECDSA signatures are
    /// randomized: two signatures of one message differ, and both verify.
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure``.
    public func signature(for message: UnsafeRawBufferPointer) throws(AuthCoreError) -> [UInt8] {
        try pair.signature(for: message)
    }

    /// Whether `signature` (DER) is a valid ECDSA-with-SHA-256 signature of `message` under the P-256
    /// public key `publicKey` (``P256KeyPair/isValidSignature(_:for:publicKey:)``).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for a public key that is not a P-256 point;
    ///   ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL cannot run the check.
    public static func isValidSignature(
        _ signature: [UInt8],
        for message: [UInt8],
        publicKey: [UInt8]
    ) throws(AuthCoreError) -> Bool {
        try P256KeyPair.isValidSignature(signature, for: message, publicKey: publicKey)
    }

    /// Runs `body` with the private scalar `d` of `credentials` (32 bytes in a stack buffer, wiped
    /// when `body` returns). Package-visible for the constant-flow gate, which runs the derivation
    /// alone (`make ctgrind`: OpenSSL's key import and ECDSA are outside it).
    package static func withDerivedPrivateScalar<R>(
        _ credentials: Credentials,
        _ body: (UnsafeRawBufferPointer) throws(AuthCoreError) -> R
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
            return try withUnsafeTemporaryAllocation(byteCount: keyCount + 64, alignment: 8) {
                scratch throws(AuthCoreError) -> R in
                defer { secureZero(scratch) }
                let prfKey = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<keyCount])
                let candidate = UnsafeMutableRawBufferPointer(rebasing: scratch[keyCount..<keyCount + 32])
                let scalar = UnsafeMutableRawBufferPointer(rebasing: scratch[keyCount + 32..<keyCount + 64])
                prefix.withUTF8Buffer { prfKey.copyMemory(from: UnsafeRawBufferPointer($0)) }
                UnsafeMutableRawBufferPointer(rebasing: prfKey[prefix.utf8CodeUnitCount...]).copyMemory(from: secret)
                for counter in UInt8(1)...UInt8(254) {
                    input[counterIndex] = counter
                    input.withUnsafeBytes {
                        HMACSHA256Schedule.authenticationCode(
                            key: UnsafeRawBufferPointer(prfKey),
                            message: $0,
                            into: candidate
                        )
                    }
                    let kept = P256KeyPair.orderMinusOne.withUnsafeBytes {
                        constantTimeLessThan(UnsafeRawBufferPointer(candidate), $0)
                    }
                    // Only the verdict leaves the constant flow: it decides whether another counter runs.
                    guard ConstantFlow.declassified(kept) == 1 else { continue }
                    P256KeyPair.addOne(to: UnsafeRawBufferPointer(candidate), into: scalar)
                    return try body(UnsafeRawBufferPointer(scalar))
                }
                throw AuthCoreError(
                    .invalidParameter,
                    "no SigV4a key exists for these credentials (every counter refused)"
                )
            }
        }
    }
}
