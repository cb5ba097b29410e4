// CAuthCoreLibCrypto: the OpenSSL 3 libcrypto surface AuthCore uses (EVP digests and MACs, params,
// randomness, cleansing, constant-time comparison). Only non-deprecated OpenSSL 3 APIs; the one
// exception, the signing hot path's SHA256_CTX and SHA_CTX, is in digest_contexts.h with its reasons.
#ifndef C_AUTHCORE_LIBCRYPTO_SHIM_H
#define C_AUTHCORE_LIBCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

/// Creates a MAC context keyed for HMAC with `digest_name` (e.g. "SHA256"); NULL on failure.
static inline EVP_MAC_CTX *c_authcore_hmac_ctx_new(EVP_MAC *mac, const char *digest_name, const void *key,
                                                   size_t key_len) {
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest_name, 0);
    params[1] = OSSL_PARAM_construct_end();
    // An empty key is valid for HMAC (RFC 2104); OpenSSL wants a non-NULL pointer for it.
    static const unsigned char empty = 0;
    if (EVP_MAC_init(ctx, key_len == 0 ? &empty : (const unsigned char *)key, key_len, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// Returns a keyed HMAC context to the state right after keying (OpenSSL 3 keeps the key when
/// `EVP_MAC_init` is called with a NULL key). 1 on success.
static inline int c_authcore_hmac_ctx_reset(EVP_MAC_CTX *ctx) { return EVP_MAC_init(ctx, NULL, 0, NULL); }

static inline int c_authcore_mac_update(EVP_MAC_CTX *ctx, const void *data, size_t len) {
    return EVP_MAC_update(ctx, (const unsigned char *)data, len);
}
static inline int c_authcore_mac_final(EVP_MAC_CTX *ctx, void *out, size_t *out_len, size_t out_size) {
    return EVP_MAC_final(ctx, (unsigned char *)out, out_len, out_size);
}
static inline int c_authcore_digest_update(EVP_MD_CTX *ctx, const void *data, size_t len) {
    return EVP_DigestUpdate(ctx, data, len);
}
static inline int c_authcore_digest_final(EVP_MD_CTX *ctx, void *out, unsigned int *len) {
    return EVP_DigestFinal_ex(ctx, (unsigned char *)out, len);
}
static inline int c_authcore_digest_oneshot(const EVP_MD *md, const void *data, size_t len, void *out) {
    return EVP_Digest(data, len, (unsigned char *)out, NULL, md, NULL);
}
/// An RSA public key from its big-endian modulus and exponent (a JWK's `n` and `e`, RFC 7518 §6.3.1);
/// NULL on failure. Free with EVP_PKEY_free.
static inline EVP_PKEY *c_authcore_rsa_public_key_new(const void *n, size_t n_len, const void *e, size_t e_len) {
    if (n_len > 4096 || e_len > 4096) return NULL;  // BN_bin2bn takes an int; RSAPublicKey checks far smaller limits
    EVP_PKEY *pkey = NULL;
    BIGNUM *bn_n = BN_bin2bn((const unsigned char *)n, (int)n_len, NULL);
    BIGNUM *bn_e = BN_bin2bn((const unsigned char *)e, (int)e_len, NULL);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (bn_n == NULL || bn_e == NULL || bld == NULL) goto done;
    if (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) != 1) goto done;
    if (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn_n);
    BN_free(bn_e);
    return pkey;
}

/// RSASSA-PKCS1-v1_5 verification (RFC 8017 §8.2.2) of `sig` over `msg` with the digest named
/// `digest_name` ("SHA256"): 1 valid, 0 invalid, -1 when the check could not be run.
static inline int c_authcore_rsa_pkcs1_verify(EVP_PKEY *pkey, const char *digest_name, const void *msg, size_t msg_len,
                                              const void *sig, size_t sig_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return -1;
    EVP_PKEY_CTX *pctx = NULL;
    int result = -1;
    if (EVP_DigestVerifyInit_ex(ctx, &pctx, digest_name, NULL, NULL, pkey, NULL) == 1 &&
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1) {
        int verified = EVP_DigestVerify(ctx, (const unsigned char *)sig, sig_len, (const unsigned char *)msg, msg_len);
        result = verified == 1 ? 1 : 0;
        if (result == 0) ERR_clear_error();  // a wrong signature is an answer, not an error to report
    }
    EVP_MD_CTX_free(ctx);
    return result;
}

// MARK: - Constant-flow checking (make ctgrind)
//
// Built with -DAUTHCORE_CONSTANT_FLOW_CHECK and run under Valgrind memcheck, secrets are marked
// "undefined" where they enter (random bytes, passwords, keys) and memcheck reports every branch,
// memory address or system call that depends on them: the technique of BoringSSL's
// CONSTTIME_SECRET/CONSTTIME_DECLASSIFY and of libsecp256k1's valgrind_ctime_test. A value becomes
// public ("declassified") only at the points where the protocol publishes it (A, B, M1, a MAC
// comparison's verdict). In every other build, and outside Valgrind, these are no-ops.
#if defined(AUTHCORE_CONSTANT_FLOW_CHECK) && defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define C_AUTHCORE_HAS_MEMCHECK 1
#endif
#endif
#if defined(AUTHCORE_CONSTANT_FLOW_CHECK) && defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define C_AUTHCORE_HAS_CALLGRIND 1
#endif
#endif
#ifdef C_AUTHCORE_HAS_CALLGRIND
/// Switches callgrind's event collection on or off (run with --collect-atstart=no).
static inline void c_authcore_callgrind_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
#else
static inline void c_authcore_callgrind_toggle(void) {}
#endif
#ifdef C_AUTHCORE_HAS_MEMCHECK
static inline void c_authcore_classify(const void *p, size_t n) { (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
static inline void c_authcore_declassify(const void *p, size_t n) { (void)VALGRIND_MAKE_MEM_DEFINED(p, n); }
static inline int c_authcore_constant_flow_checking(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
static inline unsigned c_authcore_constant_flow_errors(void) { return (unsigned)VALGRIND_COUNT_ERRORS; }
#else
static inline void c_authcore_classify(const void *p, size_t n) { (void)p; (void)n; }
static inline void c_authcore_declassify(const void *p, size_t n) { (void)p; (void)n; }
static inline int c_authcore_constant_flow_checking(void) { return 0; }
static inline unsigned c_authcore_constant_flow_errors(void) { return 0; }
#endif

// MARK: - ECDSA P-256 (SigV4a)

/// The uncompressed encoding of a P-256 point: 0x04 ‖ X ‖ Y (SEC 1 §2.3.3).
#define C_AUTHCORE_P256_POINT_BYTES 65

/// Wipes every value of `params` (one of them may be a private scalar), then frees the array
/// (OpenSSL 3.0 has no OSSL_PARAM_clear_free).
static inline void c_authcore_params_wipe_free(OSSL_PARAM *params) {
    if (params == NULL) return;
    for (OSSL_PARAM *p = params; p->key != NULL; p++) {
        if (p->data != NULL) OPENSSL_cleanse(p->data, p->data_size);
    }
    OSSL_PARAM_free(params);
}

/// An EVP_PKEY for P-256 from OSSL_PARAMs: the group, the public point and, when `priv` is not
/// NULL, the private scalar (a key pair); NULL on failure.
static inline EVP_PKEY *c_authcore_p256_pkey_from(const BIGNUM *priv, const unsigned char *point) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (bld == NULL) goto done;
    if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1) goto done;
    if (OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, C_AUTHCORE_P256_POINT_BYTES) != 1) goto done;
    if (priv != NULL && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &pkey, priv != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    c_authcore_params_wipe_free(params);  // it held a copy of the private scalar
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/// The P-256 key pair of the private scalar `d` (32 bytes, big-endian, 1 <= d < n): its public point
/// d·G (computed by EC_POINT_mul, OpenSSL's constant-time scalar multiplication for a secret scalar)
/// written to `point_out` (65 bytes, uncompressed); NULL on failure. The scalar's BIGNUM lives in
/// OpenSSL's secure heap when there is one and is cleared before it is freed. Outside AuthCore's
/// constant-flow gate: BN_bin2bn drops the scalar's leading zero bytes (its word count can differ
/// for one key in 2^64), as OpenSSL's own key import does; the scalar multiplication's scratch is
/// OpenSSL's to wipe.
static inline EVP_PKEY *c_authcore_p256_key_pair_new(const void *d, void *point_out) {
    EVP_PKEY *pkey = NULL;
    BN_CTX *bn_ctx = BN_CTX_secure_new();
    BIGNUM *priv = BN_secure_new();
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *point = NULL;
    if (bn_ctx == NULL || priv == NULL || group == NULL) goto done;
    BN_set_flags(priv, BN_FLG_CONSTTIME);
    if (BN_bin2bn((const unsigned char *)d, 32, priv) == NULL) goto done;
    point = EC_POINT_new(group);
    if (point == NULL || EC_POINT_mul(group, point, priv, NULL, NULL, bn_ctx) != 1) goto done;
    if (EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, (unsigned char *)point_out, C_AUTHCORE_P256_POINT_BYTES,
                           bn_ctx) != C_AUTHCORE_P256_POINT_BYTES)
        goto done;
    c_authcore_declassify(point_out, C_AUTHCORE_P256_POINT_BYTES);  // the public key d·G: published
    pkey = c_authcore_p256_pkey_from(priv, (const unsigned char *)point_out);
done:
    EC_POINT_free(point);
    EC_GROUP_free(group);
    BN_clear_free(priv);
    BN_CTX_free(bn_ctx);
    return pkey;
}

/// A P-256 public key from its uncompressed point (65 bytes); NULL when it is not a point of the curve.
static inline EVP_PKEY *c_authcore_p256_public_key_new(const void *point) {
    return c_authcore_p256_pkey_from(NULL, (const unsigned char *)point);
}

/// A signing context for the P-256 key `pkey`, initialised for ECDSA over a SHA-256 digest
/// (`EVP_PKEY_sign_init`): one context serves many signatures, one caller at a time (the provider
/// keeps no per-signature state in it; each signature draws its own nonce). NULL on failure.
static inline EVP_PKEY_CTX *c_authcore_ecdsa_sign_context_new(EVP_PKEY *pkey) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_sign_init(ctx) != 1 || EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) != 1) {
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// ECDSA (FIPS 186-5 §6.4) of the SHA-256 digest `digest` (32 bytes) with a context from
/// `c_authcore_ecdsa_sign_context_new`, the signature DER-encoded (RFC 3279 §2.2.3) into `sig` (room
/// for `cap` bytes; 72 are enough for P-256): its length, or 0 on failure.
static inline size_t c_authcore_ecdsa_sign_digest(EVP_PKEY_CTX *ctx, const void *digest, size_t digest_len, void *sig, size_t cap) {
    size_t length = cap;
    if (EVP_PKEY_sign(ctx, (unsigned char *)sig, &length, (const unsigned char *)digest, digest_len) != 1) return 0;
    return length;
}

/// ECDSA-with-SHA-256 verification of the DER signature `sig` over `msg`: 1 valid, 0 invalid, -1
/// when the check could not be run.
static inline int c_authcore_ecdsa_sha256_verify(EVP_PKEY *pkey, const void *msg, size_t msg_len, const void *sig, size_t sig_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int result = -1;
    if (ctx == NULL) return -1;
    if (EVP_DigestVerifyInit_ex(ctx, NULL, "SHA256", NULL, NULL, pkey, NULL) == 1) {
        result = EVP_DigestVerify(ctx, (const unsigned char *)sig, sig_len, (const unsigned char *)msg, msg_len) == 1 ? 1 : 0;
        if (result == 0) ERR_clear_error();  // a wrong signature is an answer, not an error to report
    }
    EVP_MD_CTX_free(ctx);
    return result;
}

/// The key's size in bits.
static inline int c_authcore_pkey_bits(const EVP_PKEY *pkey) { return EVP_PKEY_get_bits(pkey); }

static inline int c_authcore_rand_bytes(void *out, size_t len) {
    // RAND_bytes takes an int length: callers chunk larger requests.
    return RAND_bytes((unsigned char *)out, (int)len);
}
static inline void c_authcore_cleanse(void *ptr, size_t len) { OPENSSL_cleanse(ptr, len); }
static inline int c_authcore_memcmp(const void *a, const void *b, size_t len) { return CRYPTO_memcmp(a, b, len); }

// MARK: - Constant-time byte helpers
//
// Branch-free loops over secret bytes. The value barrier (an empty asm the optimiser cannot see
// through) keeps the compiler from turning "once zero, always zero" masks back into early exits,
// which it does for the same loop written in Swift (the ctgrind gate caught exactly that).

static inline size_t c_authcore_value_barrier(size_t x) {
    __asm__("" : "+r"(x));
    return x;
}

/// 1 for a zero byte, else 0, without a branch.
static inline size_t c_authcore_ct_is_zero_byte(unsigned char b) {
    return ((size_t)b - 1) >> (sizeof(size_t) * 8 - 1);
}

/// The number of leading zero bytes of {p, n}, reading every byte and branching on none.
static inline size_t c_authcore_ct_leading_zero_bytes(const void *p, size_t n) {
    const unsigned char *bytes = (const unsigned char *)p;
    size_t count = 0, leading = 1;
    for (size_t i = 0; i < n; i++) {
        leading = c_authcore_value_barrier(leading & c_authcore_ct_is_zero_byte(bytes[i]));
        count += leading;
    }
    return count;
}

/// 1 when lo <= x < hi, else 0, without a branch (every value below 2^62).
static inline size_t c_authcore_ct_in_range(size_t x, size_t lo, size_t hi) {
    size_t below_lo = c_authcore_value_barrier((x - lo) >> (sizeof(size_t) * 8 - 1));
    size_t below_hi = c_authcore_value_barrier((x - hi) >> (sizeof(size_t) * 8 - 1));
    return (below_lo ^ 1) & below_hi;
}

/// {out, n} ^= {candidate, n} when a == b, else nothing: every byte read and written, no branch on a or b.
static inline void c_authcore_ct_xor_if_equal(void *out, const void *candidate, size_t n, size_t a, size_t b) {
    size_t diff = a ^ b;
    size_t equal = c_authcore_value_barrier(((diff | ((size_t)0 - diff)) >> (sizeof(size_t) * 8 - 1)) ^ 1);
    unsigned char mask = (unsigned char)((size_t)0 - equal);
    unsigned char *o = (unsigned char *)out;
    const unsigned char *c = (const unsigned char *)candidate;
    for (size_t i = 0; i < n; i++) o[i] ^= c[i] & mask;
}

/// The first non-zero byte of {p, n} (0 when all are zero), reading every byte and branching on none.
static inline unsigned c_authcore_ct_first_nonzero_byte(const void *p, size_t n) {
    const unsigned char *bytes = (const unsigned char *)p;
    size_t first = 0, leading = 1;
    for (size_t i = 0; i < n; i++) {
        size_t zero = c_authcore_ct_is_zero_byte(bytes[i]);
        size_t is_first = c_authcore_value_barrier(leading & (zero ^ 1));
        first |= bytes[i] & ((size_t)0 - is_first);
        leading = c_authcore_value_barrier(leading & zero);
    }
    return (unsigned)first;
}

#endif
