internal import CAuthCoreLibCrypto

/// Variable-base modular exponentiation for SRP's premaster secret, over OpenSSL's Montgomery code.
///
/// GMP stays AuthCore's big-integer type; this one operation, `base^e mod N` with a secret `e` and a
/// base that changes every session (`S` on both sides of SRP), is routed to OpenSSL's
/// `BN_mod_exp_mont_consttime` because Debian's libgmp is built for generic x86-64 (no MULX/ADX
/// kernels) while libcrypto dispatches to MULX/ADX Montgomery code at run time: about 1.4× faster at
/// a 256-bit exponent and 2× at 513 bits for a 3072-bit N on this machine (see `authcore-bench`,
/// `srp.spow.*`). The result is checked against GMP's `mpz_powm` in the tests.
///
/// Constant time: `BN_mod_exp_mont_consttime` uses a fixed 5-bit window with `bn_gather5` table
/// lookups, and takes its iteration count from the exponent's stored word count (`p->top * 64`),
/// not from its bit length. OpenSSL normalises a BIGNUM's word count, so the callers hand it
/// exponents whose top 64-bit word is never zero (SRP ephemerals carry a public offset, see
/// ``SRPPrivateValue``); the word count is then a public constant of the operation.
///
/// The Montgomery context (`BN_MONT_CTX`) is built once per modulus and only read afterwards.
final class MontgomeryExponentiationKernel: @unchecked Sendable {
    // invariant: `montgomery` and `modulus` are written in init only; OpenSSL reads a BN_MONT_CTX
    // without modifying it during exponentiation, so sharing between threads is safe.
    private let montgomery: OpaquePointer
    private let modulus: OpaquePointer
    let limbCount: Int

    init(modulus value: BigUInt) throws(AuthCoreError) {
        limbCount = value.limbCount
        let bytes = value.minimalBigEndianBytes
        guard let modulus = bytes.withUnsafeBytes({ BN_bin2bn($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count), nil) }),  // invariant: modulus is non-zero
            let montgomery = BN_MONT_CTX_new()
        else { throw libcryptoError("BN_bin2bn/BN_MONT_CTX_new") }
        guard let context = BN_CTX_new() else {
            BN_free(modulus)
            BN_MONT_CTX_free(montgomery)
            throw libcryptoError("BN_CTX_new")
        }
        defer { BN_CTX_free(context) }
        guard BN_MONT_CTX_set(montgomery, modulus, context) == 1 else {
            BN_free(modulus)
            BN_MONT_CTX_free(montgomery)
            throw libcryptoError("BN_MONT_CTX_set")
        }
        self.modulus = modulus
        self.montgomery = montgomery
    }

    deinit {
        BN_MONT_CTX_free(montgomery)
        BN_free(modulus)
    }

    /// `base^exponent mod N` for a secret exponent (constant time for a fixed exponent word count).
    ///
    /// - Parameters:
    ///   - base: n limbs, below N.
    ///   - exponent: the secret exponent; its top limb must be non-zero for the timing to be fixed.
    func power(_ base: LimbBuffer, secretExponent exponent: LimbBuffer) throws(AuthCoreError) -> LimbBuffer {
        try exponentiate(base, exponent, constantTime: true)
    }

    /// `base^exponent mod N` for a public exponent (variable time in the exponent).
    func power(_ base: LimbBuffer, publicExponent exponent: LimbBuffer) throws(AuthCoreError) -> LimbBuffer {
        try exponentiate(base, exponent, constantTime: false)
    }

    private func exponentiate(_ base: LimbBuffer, _ exponent: LimbBuffer, constantTime: Bool) throws(AuthCoreError)
        -> LimbBuffer
    {
        guard let context = BN_CTX_secure_new() else { throw libcryptoError("BN_CTX_secure_new") }
        defer { BN_CTX_free(context) }  // BN_CTX_free clears every BIGNUM it handed out
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let b = BN_CTX_get(context), let e = BN_CTX_get(context), let r = BN_CTX_get(context) else {
            throw libcryptoError("BN_CTX_get")
        }
        let result = LimbBuffer(count: limbCount)
        let ok: Bool = withUnsafeTemporaryAllocation(byteCount: Swift.max(base.count, exponent.count, limbCount) * 8, alignment: 8) {
            bytes in
            defer { secureZero(bytes) }
            let bytePointer = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)  // invariant: capacity > 0
            base.writeLittleEndianBytes(into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<(base.count * 8)]))
            guard BN_lebin2bn(bytePointer, Int32(base.count * 8), b) != nil else { return false }
            exponent.writeLittleEndianBytes(into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<(exponent.count * 8)]))
            guard BN_lebin2bn(bytePointer, Int32(exponent.count * 8), e) != nil else { return false }
            if constantTime {
                BN_set_flags(e, BN_FLG_CONSTTIME)
                BN_set_flags(b, BN_FLG_CONSTTIME)
                guard BN_mod_exp_mont_consttime(r, b, e, modulus, context, montgomery) == 1 else { return false }
            } else {
                guard BN_mod_exp_mont(r, b, e, modulus, context, montgomery) == 1 else { return false }
            }
            guard BN_bn2lebinpad(r, bytePointer, Int32(limbCount * 8)) == Int32(limbCount * 8) else { return false }
            for index in 0..<limbCount {
                result.pointer[index] = UInt(UInt64(littleEndian: bytes.load(fromByteOffset: index * 8, as: UInt64.self)))
            }
            return true
        }
        guard ok else { throw libcryptoError("BN_mod_exp_mont") }
        return result
    }
}
