internal import CAuthCoreLibCrypto

/// SHA-256 (FIPS 180-4) on a stack `SHA256_CTX`: libcrypto's own block function with no context
/// allocation, for the signing hot path (`digest_contexts.h` says why; every other hash goes
/// through ``SHA256``, on EVP).
///
/// Memory safety: each context is a `withUnsafeTemporaryAllocation` of exactly one
/// `SHA256_CTX`, initialised by libcrypto before it is read and wiped before it is released.
enum LowLevelSHA256 {
    /// The digest length in bytes.
    static var byteCount: Int { 32 }
    /// The block length in bytes (FIPS 180-4 §1).
    static var blockByteCount: Int { 64 }

    /// SHA-256 of `message`. The context is wiped afterwards: a canonical request can hold a
    /// session token, and libcrypto's final step cleanses only the partial block.
    static func hash(_ message: UnsafeRawBufferPointer) -> Digest {
        Digest(count: byteCount) { hash(message, into: $0) }
    }

    /// SHA-256 of `message` written straight into `out` (at least 32 bytes), never through a
    /// ``Digest`` value: for secrets too (an HMAC key longer than a block, RFC 2104 §2).
    static func hash(_ message: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= byteCount, "SHA-256 output buffer too small")
        withUnsafeTemporaryAllocation(of: c_authcore_sha256_ctx.self, capacity: 1) { context in
            let state = context.baseAddress!  // invariant: capacity 1
            c_authcore_sha256_init(state)
            c_authcore_sha256_update(state, message.baseAddress, message.count)
            c_authcore_sha256_final(state, out.baseAddress)
            secureZero(UnsafeMutableRawPointer(state), count: MemoryLayout<c_authcore_sha256_ctx>.size)
        }
    }
}
