// CAuthCoreLibCrypto: the OpenSSL 3 libcrypto surface AuthCore uses (EVP digests and MACs, params,
// randomness, cleansing, constant-time comparison). Only non-deprecated OpenSSL 3 APIs.
#ifndef C_AUTHCORE_LIBCRYPTO_SHIM_H
#define C_AUTHCORE_LIBCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

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
static inline int c_authcore_rand_bytes(void *out, size_t len) {
    // RAND_bytes takes an int length: callers chunk larger requests.
    return RAND_bytes((unsigned char *)out, (int)len);
}
static inline void c_authcore_cleanse(void *ptr, size_t len) { OPENSSL_cleanse(ptr, len); }
static inline int c_authcore_memcmp(const void *a, const void *b, size_t len) { return CRYPTO_memcmp(a, b, len); }

#endif
