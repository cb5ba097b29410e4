internal import CAuthCoreLibCrypto

/// An RSA public key for verifying RSASSA-PKCS1-v1_5 signatures (RFC 8017 §8.2.2), the `RS256`/
/// `RS384`/`RS512` algorithms of JSON Web Signatures (RFC 7518 §3.3), over OpenSSL's EVP interface.
///
/// Only public values pass through here, so nothing needs constant time or wiping. Keys shorter
/// than 2048 bits (RFC 7518 §3.3: "a key of size 2048 bits or larger MUST be used") or longer than
/// 16384 bits, and even or tiny exponents, are refused.
public final class RSAPublicKey: @unchecked Sendable {
    // invariant: `key` is an EVP_PKEY holding only public parameters, never changed after init; OpenSSL
    // allows concurrent use of one EVP_PKEY by several verification contexts (each call makes its own).
    private let key: OpaquePointer
    /// The modulus size in bits.
    public let bitCount: Int

    /// A key from its big-endian modulus `n` and public exponent `e` (a JWK's `n` and `e` after
    /// Base64url decoding, RFC 7518 §6.3.1).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for a modulus outside 2048…16384 bits or an
    ///   exponent that is even, below 3 or longer than 8 bytes; ``AuthCoreError/Code/libcryptoFailure``.
    public init(modulus: [UInt8], exponent: [UInt8]) throws(AuthCoreError) {
        let n = modulus.drop { $0 == 0 }
        let e = exponent.drop { $0 == 0 }
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[n.startIndex].leadingZeroBitCount)
        guard (2048...16384).contains(bits) else {
            throw AuthCoreError(.invalidParameter, "an RSA modulus of \(bits) bits is outside 2048...16384")
        }
        guard let last = e.last, e.count <= 8, last & 1 == 1, e.count > 1 || last >= 3 else {
            throw AuthCoreError(.invalidParameter, "the RSA exponent is not an odd number from 3 up to 64 bits")
        }
        let nBytes = Array(n)
        let eBytes = Array(e)
        let made = nBytes.withUnsafeBytes { nBuffer in
            eBytes.withUnsafeBytes { eBuffer in
                c_authcore_rsa_public_key_new(nBuffer.baseAddress, nBuffer.count, eBuffer.baseAddress, eBuffer.count)
            }
        }
        guard let made else { throw libcryptoError("EVP_PKEY_fromdata(RSA)") }
        key = made
        bitCount = Int(c_authcore_pkey_bits(made))
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 signature of `message` with `hash`.
    ///
    /// - Throws: ``AuthCoreError/Code/libcryptoFailure`` when OpenSSL could not run the check (not for
    ///   a wrong signature: that is `false`).
    public func isValidSignature(
        _ signature: [UInt8],
        for message: [UInt8],
        hash: HashAlgorithm = .sha256
    ) throws(AuthCoreError) -> Bool {
        guard signature.count == (bitCount + 7) / 8 else { return false }  // RFC 8017 §8.2.2 step 1
        let result = hash.openSSLName.withUTF8Buffer { name in
            signature.withUnsafeBytes { sig in
                message.withUnsafeBytes { msg in
                    c_authcore_rsa_pkcs1_verify(
                        key,
                        // invariant: static NUL-terminated name
                        UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self),
                        msg.baseAddress,
                        msg.count,
                        sig.baseAddress,
                        sig.count
                    )
                }
            }
        }
        guard result >= 0 else { throw libcryptoError("EVP_DigestVerify(RSA)") }
        return result == 1
    }
}
