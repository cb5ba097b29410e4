/* The SigV4 floors use libcrypto's low-level SHA256_CTX, as AuthCore's signer does
 * (Sources/CAuthCoreLibCrypto/digest_contexts.h): deprecated in OpenSSL 3, so the warning is off here. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CAuthCoreBaselines.h"

#include <gmp.h>
#include <openssl/sha.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <string.h>

static EVP_MD *sha256_md(void) {
    static EVP_MD *md = NULL;
    if (md == NULL) md = EVP_MD_fetch(NULL, "SHA256", NULL);
    return md;
}

static EVP_MAC *hmac_mac(void) {
    static EVP_MAC *mac = NULL;
    if (mac == NULL) mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    return mac;
}

static EVP_MAC_CTX *keyed_hmac(const void *key, size_t key_length) {
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(hmac_mac());
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    EVP_MAC_init(ctx, key, key_length, params);
    return ctx;
}

void c_authcore_baseline_sha256(const void *message, size_t length, long iterations, unsigned char out[32]) {
    EVP_MD *md = sha256_md();
    for (long i = 0; i < iterations; i++) EVP_Digest(message, length, out, NULL, md, NULL);
}

void c_authcore_baseline_hmac_sha256_reused(const void *key, size_t key_length, const void *message, size_t length,
                                            long iterations, unsigned char out[32]) {
    EVP_MAC_CTX *ctx = keyed_hmac(key, key_length);
    size_t out_length = 0;
    for (long i = 0; i < iterations; i++) {
        EVP_MAC_init(ctx, NULL, 0, NULL);
        EVP_MAC_update(ctx, message, length);
        EVP_MAC_final(ctx, out, &out_length, 32);
    }
    EVP_MAC_CTX_free(ctx);
}

void c_authcore_baseline_hkdf_cognito(const void *ikm, size_t ikm_length, const void *salt, size_t salt_length,
                                      long iterations, unsigned char out[16]) {
    static const char info[] = "Caldera Derived Key";
    unsigned char prk[32], block[32];
    size_t n = 0;
    for (long i = 0; i < iterations; i++) {
        EVP_MAC_CTX *extract = keyed_hmac(salt, salt_length);
        EVP_MAC_update(extract, ikm, ikm_length);
        EVP_MAC_final(extract, prk, &n, sizeof prk);
        EVP_MAC_CTX_free(extract);
        EVP_MAC_CTX *expand = keyed_hmac(prk, sizeof prk);
        const unsigned char counter = 1;
        EVP_MAC_update(expand, (const unsigned char *)info, sizeof info - 1);
        EVP_MAC_update(expand, &counter, 1);
        EVP_MAC_final(expand, block, &n, sizeof block);
        EVP_MAC_CTX_free(expand);
        memcpy(out, block, 16);
    }
}

size_t c_authcore_baseline_powm_sec(const void *base, size_t base_length, const void *exponent, size_t exponent_length,
                                    const void *modulus, size_t modulus_length, long iterations, unsigned char *out,
                                    size_t out_capacity) {
    mpz_t b, e, m, r;
    mpz_inits(b, e, m, r, NULL);
    mpz_import(b, base_length, 1, 1, 1, 0, base);
    mpz_import(e, exponent_length, 1, 1, 1, 0, exponent);
    mpz_import(m, modulus_length, 1, 1, 1, 0, modulus);
    for (long i = 0; i < iterations; i++) mpz_powm_sec(r, b, e, m);
    size_t count = 0;
    if (mpz_sizeinbase(r, 256) <= out_capacity) mpz_export(out, &count, 1, 1, 1, 0, r);
    mpz_clears(b, e, m, r, NULL);
    return count;
}

static void fill_bits(mpz_t z, gmp_randstate_t state, unsigned bits) {
    mpz_urandomb(z, state, bits);
    mpz_setbit(z, bits - 1);  // exactly `bits` bits
}

unsigned c_authcore_baseline_srp_handshake_powm_sec(const void *modulus, size_t modulus_length, unsigned long g,
                                                    long iterations) {
    mpz_t n, gen, a, b, x, u, e, v, bigA, bigB, base, r1, r2;
    mpz_inits(n, gen, a, b, x, u, e, v, bigA, bigB, base, r1, r2, NULL);
    mpz_import(n, modulus_length, 1, 1, 1, 0, modulus);
    mpz_set_ui(gen, g);
    gmp_randstate_t state;
    gmp_randinit_default(state);
    gmp_randseed_ui(state, 20261129);
    fill_bits(a, state, 256);
    fill_bits(b, state, 256);
    fill_bits(x, state, 256);
    fill_bits(u, state, 256);
    fill_bits(e, state, 513);
    mpz_urandomm(v, state, n);
    mpz_urandomm(bigA, state, n);
    mpz_urandomm(bigB, state, n);
    mpz_urandomm(base, state, n);
    unsigned checksum = 0;
    for (long i = 0; i < iterations; i++) {
        mpz_powm_sec(r1, gen, a, n);     // client A = g^a
        mpz_powm_sec(r2, gen, b, n);     // server g^b (B = k·v + g^b)
        mpz_powm_sec(r1, gen, x, n);     // client g^x
        mpz_powm_sec(r2, base, e, n);    // client S = (B - k·g^x)^(a + u·x)
        mpz_powm_sec(r1, v, u, n);       // server v^u
        mpz_powm_sec(r2, bigA, b, n);    // server S = (A·v^u)^b
        checksum ^= (unsigned)mpz_get_ui(r1) ^ (unsigned)mpz_get_ui(r2);
    }
    gmp_randclear(state);
    mpz_clears(n, gen, a, b, x, u, e, v, bigA, bigB, base, r1, r2, NULL);
    return checksum & 0xff;
}

unsigned c_authcore_baseline_cognito_client_powm_sec(const void *modulus, size_t modulus_length, long iterations) {
    mpz_t n, gen, a, x, e, base, r;
    mpz_inits(n, gen, a, x, e, base, r, NULL);
    mpz_import(n, modulus_length, 1, 1, 1, 0, modulus);
    mpz_set_ui(gen, 2);
    gmp_randstate_t state;
    gmp_randinit_default(state);
    gmp_randseed_ui(state, 20261130);
    fill_bits(a, state, 256);
    fill_bits(x, state, 256);
    fill_bits(e, state, 513);
    mpz_urandomm(base, state, n);
    unsigned checksum = 0;
    for (long i = 0; i < iterations; i++) {
        mpz_powm_sec(r, gen, a, n);    // SRP_A = g^a
        checksum ^= (unsigned)mpz_get_ui(r);
        mpz_powm_sec(r, gen, x, n);    // g^x
        checksum ^= (unsigned)mpz_get_ui(r);
        mpz_powm_sec(r, base, e, n);   // S = (B - k·g^x)^(a + u·x)
        checksum ^= (unsigned)mpz_get_ui(r);
    }
    gmp_randclear(state);
    mpz_clears(n, gen, a, x, e, base, r, NULL);
    return checksum & 0xff;
}

static void to_hex(const unsigned char *bytes, size_t length, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < length; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * length] = 0;
}

/* HMAC-SHA256 key schedule (RFC 2104 section 2): the SHA-256 states after K0^ipad and K0^opad, for a
 * key of at most one block (SigV4 signing keys are 32 bytes). */
static void hmac_schedule(const void *key, size_t key_length, SHA256_CTX *inner, SHA256_CTX *outer) {
    unsigned char block[64];
    memset(block, 0, sizeof block);
    memcpy(block, key, key_length);  /* callers pass at most 64 bytes (checked at the entry points) */
    for (int i = 0; i < 64; i++) block[i] ^= 0x36;
    SHA256_Init(inner);
    SHA256_Update(inner, block, 64);
    for (int i = 0; i < 64; i++) block[i] ^= 0x36 ^ 0x5c;
    SHA256_Init(outer);
    SHA256_Update(outer, block, 64);
    OPENSSL_cleanse(block, sizeof block);
}

/* The low-level floor's per-signature hashing: SHA-256 of the canonical request on a stack context,
 * its hex appended to the string-to-sign prefix, then HMAC-SHA256 from the saved states. */
static void sigv4_floor(const void *canonical, size_t canonical_length, char *string_to_sign, size_t prefix_length,
                        const SHA256_CTX *inner, const SHA256_CTX *outer, char signature_hex[65]) {
    SHA256_CTX work;
    unsigned char digest[32], tag[32];
    /* The wipes the signer makes: the hash's context, then the MAC's working state and inner digest. */
    SHA256_Init(&work);
    SHA256_Update(&work, canonical, canonical_length);
    SHA256_Final(digest, &work);
    OPENSSL_cleanse(&work, sizeof work);
    to_hex(digest, 32, string_to_sign + prefix_length);
    work = *inner;
    SHA256_Update(&work, string_to_sign, prefix_length + 64);
    SHA256_Final(digest, &work);
    work = *outer;
    SHA256_Update(&work, digest, 32);
    SHA256_Final(tag, &work);
    OPENSSL_cleanse(&work, sizeof work);
    OPENSSL_cleanse(digest, sizeof digest);
    to_hex(tag, 32, signature_hex);
}

void c_authcore_baseline_sigv4_hashing(const void *canonical, size_t canonical_length, const void *prefix,
                                       size_t prefix_length, const void *key, size_t key_length, long iterations,
                                       char signature_hex[65]) {
    SHA256_CTX inner, outer;
    char string_to_sign[512];
    if (prefix_length + 65 > sizeof string_to_sign || key_length > 64) return;
    memcpy(string_to_sign, prefix, prefix_length);
    hmac_schedule(key, key_length, &inner, &outer);
    for (long i = 0; i < iterations; i++) {
        sigv4_floor(canonical, canonical_length, string_to_sign, prefix_length, &inner, &outer, signature_hex);
    }
    OPENSSL_cleanse(&inner, sizeof inner);
    OPENSSL_cleanse(&outer, sizeof outer);
}

void c_authcore_baseline_sigv4_hashing_evp(const void *canonical, size_t canonical_length, const void *prefix,
                                           size_t prefix_length, const void *key, size_t key_length, long iterations,
                                           char signature_hex[65]) {
    EVP_MD *md = sha256_md();
    EVP_MAC_CTX *mac = keyed_hmac(key, key_length);
    unsigned char digest[32], tag[32];
    char string_to_sign[512];
    size_t n = 0;
    if (prefix_length + 65 > sizeof string_to_sign) return;
    memcpy(string_to_sign, prefix, prefix_length);
    for (long i = 0; i < iterations; i++) {
        EVP_Digest(canonical, canonical_length, digest, NULL, md, NULL);
        to_hex(digest, 32, string_to_sign + prefix_length);
        EVP_MAC_init(mac, NULL, 0, NULL);
        EVP_MAC_update(mac, (const unsigned char *)string_to_sign, prefix_length + 64);
        EVP_MAC_final(mac, tag, &n, sizeof tag);
        to_hex(tag, 32, signature_hex);
    }
    EVP_MAC_CTX_free(mac);
}

/* HMAC-SHA256 of one message under a key used once, as the signer's key chain does it: the schedule
 * in a stack pair, a working copy for the inner and outer hashes, the pair and the scratch wiped. */
static void hmac_once(const void *key, size_t key_length, const void *message, size_t length, unsigned char out[32]) {
    SHA256_CTX pair[2], work;
    unsigned char digest[32];
    hmac_schedule(key, key_length, &pair[0], &pair[1]);
    work = pair[0];
    SHA256_Update(&work, message, length);
    SHA256_Final(digest, &work);
    work = pair[1];
    SHA256_Update(&work, digest, 32);
    SHA256_Final(out, &work);
    OPENSSL_cleanse(&work, sizeof work);
    OPENSSL_cleanse(digest, sizeof digest);
    OPENSSL_cleanse(pair, sizeof pair);
}

/* The four-step SigV4 key derivation (AWS SigV4 "Calculating the signature": kDate, kRegion,
 * kService, kSigning) from `key` = "AWS4" + secret, in place; returns kSigning's length. With `evp`,
 * one EVP HMAC context re-keyed for each step; else each step from a stack key schedule. */
static size_t derive_signing_key(unsigned char key[64], size_t key_length, const char *parts[4], int evp) {
    if (evp) {
        EVP_MAC_CTX *step = keyed_hmac(key, key_length);
        for (int p = 0; p < 4; p++) {
            if (p > 0) EVP_MAC_init(step, key, key_length, NULL);
            EVP_MAC_update(step, (const unsigned char *)parts[p], strlen(parts[p]));
            EVP_MAC_final(step, key, &key_length, 64);
        }
        EVP_MAC_CTX_free(step);
        return key_length;
    }
    for (int p = 0; p < 4; p++) {
        hmac_once(key, key_length, parts[p], strlen(parts[p]), key);
        key_length = 32;
    }
    return key_length;
}

/* A cold signature: the key derived from the secret, then the signature. With `evp`: a keyed EVP
 * context for the signing key, EVP_Digest, the MAC (the EVP floor); else the signing key's schedule
 * and the low-level floor, with the wipes the signer makes. No cache, no request structures. */
static void sigv4_cold(const void *canonical, size_t canonical_length, const void *prefix, size_t prefix_length,
                       const void *secret, size_t secret_length, const char *date, const char *region, const char *service,
                       long iterations, char signature_hex[65], int evp) {
    unsigned char key[64], digest[32], tag[32];
    char string_to_sign[512];
    SHA256_CTX inner, outer;
    size_t n = 0;
    if (prefix_length + 65 > sizeof string_to_sign || secret_length + 4 > sizeof key) return;
    memcpy(string_to_sign, prefix, prefix_length);
    const char *parts[4] = {date, region, service, "aws4_request"};
    for (long i = 0; i < iterations; i++) {
        memcpy(key, "AWS4", 4);
        memcpy(key + 4, secret, secret_length);
        size_t key_length = derive_signing_key(key, secret_length + 4, parts, evp);
        if (evp) {
            EVP_Digest(canonical, canonical_length, digest, NULL, sha256_md(), NULL);
            to_hex(digest, 32, string_to_sign + prefix_length);
            EVP_MAC_CTX *mac = keyed_hmac(key, key_length);
            EVP_MAC_update(mac, (const unsigned char *)string_to_sign, prefix_length + 64);
            EVP_MAC_final(mac, tag, &n, sizeof tag);
            EVP_MAC_CTX_free(mac);
            to_hex(tag, 32, signature_hex);
        } else {
            hmac_schedule(key, key_length, &inner, &outer);
            sigv4_floor(canonical, canonical_length, string_to_sign, prefix_length, &inner, &outer, signature_hex);
            OPENSSL_cleanse(&inner, sizeof inner);  /* the signer wipes the schedule when its entry goes */
            OPENSSL_cleanse(&outer, sizeof outer);
        }
        OPENSSL_cleanse(key, sizeof key);
    }
}

void c_authcore_baseline_sigv4_cold(const void *canonical, size_t canonical_length, const void *prefix, size_t prefix_length,
                                    const void *secret, size_t secret_length, const char *date, const char *region,
                                    const char *service, long iterations, char signature_hex[65]) {
    sigv4_cold(canonical, canonical_length, prefix, prefix_length, secret, secret_length, date, region, service, iterations,
               signature_hex, 0);
}

void c_authcore_baseline_sigv4_cold_evp(const void *canonical, size_t canonical_length, const void *prefix,
                                        size_t prefix_length, const void *secret, size_t secret_length, const char *date,
                                        const char *region, const char *service, long iterations, char signature_hex[65]) {
    sigv4_cold(canonical, canonical_length, prefix, prefix_length, secret, secret_length, date, region, service, iterations,
               signature_hex, 1);
}

#include <openssl/bn.h>

size_t c_authcore_baseline_openssl_powm_consttime(const void *base, size_t base_length, const void *exponent,
                                                  size_t exponent_length, const void *modulus, size_t modulus_length,
                                                  long iterations, unsigned char *out, size_t out_capacity) {
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *b = BN_bin2bn(base, (int)base_length, NULL);
    BIGNUM *e = BN_bin2bn(exponent, (int)exponent_length, NULL);
    BIGNUM *m = BN_bin2bn(modulus, (int)modulus_length, NULL);
    BIGNUM *r = BN_new();
    BN_MONT_CTX *mont = BN_MONT_CTX_new();
    BN_MONT_CTX_set(mont, m, ctx);
    BN_set_flags(e, BN_FLG_CONSTTIME);
    for (long i = 0; i < iterations; i++) BN_mod_exp_mont_consttime(r, b, e, m, ctx, mont);
    size_t count = 0;
    if ((size_t)BN_num_bytes(r) <= out_capacity) count = (size_t)BN_bn2bin(r, out);
    BN_MONT_CTX_free(mont);
    BN_free(r);
    BN_free(m);
    BN_free(e);
    BN_free(b);
    BN_CTX_free(ctx);
    return count;
}

const char *c_authcore_baseline_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

const char *c_authcore_baseline_gmp_version(void) { return gmp_version; }

long c_authcore_baseline_ecdsa_p256_sign(const void *d, const void *message, size_t length, long iterations) {
    long result = 0;
    unsigned char point[65], signature[80];
    BIGNUM *priv = BN_bin2bn((const unsigned char *)d, 32, NULL);
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *pub = group ? EC_POINT_new(group) : NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *pctx = NULL;
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *sctx = NULL;
    unsigned char digest[SHA256_DIGEST_LENGTH];
    if (!priv || !pub || !bld || EC_POINT_mul(group, pub, priv, NULL, NULL, NULL) != 1 ||
        EC_POINT_point2oct(group, pub, POINT_CONVERSION_UNCOMPRESSED, point, sizeof point, NULL) != sizeof point)
        goto done;
    if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv) != 1 || (params = OSSL_PARAM_BLD_to_param(bld)) == NULL)
        goto done;
    pctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!pctx || EVP_PKEY_fromdata_init(pctx) != 1 || EVP_PKEY_fromdata(pctx, &pkey, EVP_PKEY_KEYPAIR, params) != 1) goto done;
    sctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (!sctx || EVP_PKEY_sign_init(sctx) != 1 || EVP_PKEY_CTX_set_signature_md(sctx, EVP_sha256()) != 1) goto done;
    for (long i = 0; i < iterations; i++) {
        size_t out = sizeof signature;
        SHA256((const unsigned char *)message, length, digest);
        if (EVP_PKEY_sign(sctx, signature, &out, digest, sizeof digest) != 1) goto done;
        result = (long)out;
    }
done:
    EVP_PKEY_CTX_free(sctx);
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(pctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    EC_POINT_free(pub);
    EC_GROUP_free(group);
    BN_clear_free(priv);
    return result;
}
