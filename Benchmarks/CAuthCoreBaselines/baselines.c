#include "CAuthCoreBaselines.h"

#include <gmp.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
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

void c_authcore_baseline_sigv4_hashing(const void *canonical, size_t canonical_length, const void *prefix,
                                       size_t prefix_length, const void *key, size_t key_length, long iterations,
                                       char signature_hex[65]) {
    EVP_MD *md = sha256_md();
    EVP_MAC_CTX *mac = keyed_hmac(key, key_length);
    unsigned char digest[32], tag[32];
    char string_to_sign[512];
    size_t n = 0;
    if (prefix_length + 64 > sizeof string_to_sign) return;
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

/* A cold SigV4 signature: the signing key derived from the secret (four HMAC-SHA256, AWS SigV4
 * "Calculating the signature": kDate, kRegion, kService, kSigning), then the hashing floor above.
 * The same OpenSSL calls a signer with an empty key cache makes, with no cache, no allocation of
 * request structures, nothing but the hashing. */
void c_authcore_baseline_sigv4_cold(const void *canonical, size_t canonical_length, const void *prefix, size_t prefix_length,
                                    const void *secret, size_t secret_length, const char *date, const char *region,
                                    const char *service, long iterations, char signature_hex[65]) {
    EVP_MD *md = sha256_md();
    unsigned char key[64], digest[32], tag[32];
    char string_to_sign[512];
    size_t n = 0;
    if (prefix_length + 64 > sizeof string_to_sign || secret_length + 4 > sizeof key) return;
    memcpy(string_to_sign, prefix, prefix_length);
    const char *parts[4] = {date, region, service, "aws4_request"};
    for (long i = 0; i < iterations; i++) {
        memcpy(key, "AWS4", 4);
        memcpy(key + 4, secret, secret_length);
        size_t key_length = secret_length + 4;
        for (int p = 0; p < 4; p++) {
            EVP_MAC_CTX *step = keyed_hmac(key, key_length);
            EVP_MAC_update(step, (const unsigned char *)parts[p], strlen(parts[p]));
            EVP_MAC_final(step, key, &key_length, sizeof key);
            EVP_MAC_CTX_free(step);
        }
        EVP_Digest(canonical, canonical_length, digest, NULL, md, NULL);
        to_hex(digest, 32, string_to_sign + prefix_length);
        EVP_MAC_CTX *mac = keyed_hmac(key, key_length);
        EVP_MAC_update(mac, (const unsigned char *)string_to_sign, prefix_length + 64);
        EVP_MAC_final(mac, tag, &n, sizeof tag);
        EVP_MAC_CTX_free(mac);
        to_hex(tag, 32, signature_hex);
    }
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
