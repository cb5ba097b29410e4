// CAuthCoreLibCrypto: libcrypto's low-level SHA-256 and SHA-1 contexts, the one exception to the
// shim's "non-deprecated OpenSSL 3 APIs only".
//
// Why: in OpenSSL 3.0 every EVP digest or MAC (re-)initialisation allocates a provider context
// (`EVP_DigestInit_ex2`, `EVP_MD_CTX_copy_ex` and `EVP_MAC_init` with a NULL key each call the
// provider's newctx/dupctx), so a SigV4 signature over EVP costs three heap allocations and about
// 0.5 µs of set-up around 0.5 µs of hashing. `SHA256_CTX` is a plain struct: it lives on the stack
// or inside its owner, is copied by `memcpy`, and drives the same assembly block function (SHA-NI,
// AVX2 or SSSE3, chosen by the CPU) as the EVP path. AuthCore uses it for the signing hot path
// only (`HMACSHA256Schedule`, `LowLevelSHA256`, and `LowLevelHMACSHA1` for Alibaba Cloud's RPC
// signature, where one-shot `HMAC()` costs 3.6 µs against 0.55 µs on two stack `SHA_CTX`s for a
// 400-byte string to sign); everything else stays on EVP.
//
// OpenSSL 3 marks these functions deprecated because they bypass providers: a process that loads
// the FIPS provider still signs with this code, outside the FIPS module (the README says so). The
// wrappers below silence the deprecation warning once, here, and nowhere else. A libcrypto built
// with `no-deprecated` (or a build with OPENSSL_API_COMPAT >= 30000) lacks them: see the #error.
#ifndef C_AUTHCORE_DIGEST_CONTEXTS_H
#define C_AUTHCORE_DIGEST_CONTEXTS_H

#include <stddef.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#ifdef OPENSSL_NO_DEPRECATED_3_0
#error "AuthCore needs libcrypto's SHA256_CTX and SHA_CTX: an OpenSSL 3 built without no-deprecated, and no OPENSSL_API_COMPAT >= 30000"
#endif

/// A SHA-256 state (FIPS 180-4 §6.2): eight chaining words, the bit count and one partial block.
typedef SHA256_CTX c_authcore_sha256_ctx;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// Sets `ctx` to SHA-256's initial state (FIPS 180-4 §5.3.3). Cannot fail.
static inline void c_authcore_sha256_init(c_authcore_sha256_ctx *ctx) { (void)SHA256_Init(ctx); }
/// Absorbs `len` bytes. Cannot fail (`len` may be 0 with `data` NULL).
static inline void c_authcore_sha256_update(c_authcore_sha256_ctx *ctx, const void *data, size_t len) {
    if (len > 0) (void)SHA256_Update(ctx, data, len);
}
/// Pads, writes the 32-byte digest to `out` and cleanses the partial block (libcrypto's final step
/// does `OPENSSL_cleanse` of it). The chaining words stay: the caller wipes a keyed context.
static inline void c_authcore_sha256_final(c_authcore_sha256_ctx *ctx, void *out) {
    (void)SHA256_Final((unsigned char *)out, ctx);
}

/// A SHA-1 state (FIPS 180-4 §6.1): five chaining words, the bit count and one partial block.
typedef SHA_CTX c_authcore_sha1_ctx;

/// Sets `ctx` to SHA-1's initial state (FIPS 180-4 §5.3.1). Cannot fail.
static inline void c_authcore_sha1_init(c_authcore_sha1_ctx *ctx) { (void)SHA1_Init(ctx); }
/// Absorbs `len` bytes. Cannot fail (`len` may be 0 with `data` NULL).
static inline void c_authcore_sha1_update(c_authcore_sha1_ctx *ctx, const void *data, size_t len) {
    if (len > 0) (void)SHA1_Update(ctx, data, len);
}
/// Pads and writes the 20-byte digest to `out`; the caller wipes a keyed context.
static inline void c_authcore_sha1_final(c_authcore_sha1_ctx *ctx, void *out) { (void)SHA1_Final((unsigned char *)out, ctx); }
#pragma GCC diagnostic pop

#endif
