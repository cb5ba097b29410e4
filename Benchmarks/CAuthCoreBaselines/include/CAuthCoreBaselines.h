// Plain C loops over the same GMP/OpenSSL calls AuthCore makes, so authcore-bench can show the
// cost of the Swift layer as a ratio in the same run. Used only by the benchmarks.
#ifndef C_AUTHCORE_BASELINES_H
#define C_AUTHCORE_BASELINES_H

#include <stddef.h>
#include <stdint.h>

/// The version of the OpenSSL library loaded at run time (`OpenSSL_version(OPENSSL_VERSION)`).
const char *c_authcore_baseline_openssl_version(void);

/// The version of the GMP library loaded at run time (`gmp_version`).
const char *c_authcore_baseline_gmp_version(void);

/// SHA-256 one-shot (`EVP_Digest` with an `EVP_MD` fetched once), `iterations` times.
void c_authcore_baseline_sha256(const void *message, size_t length, long iterations, unsigned char out[32]);

/// HMAC-SHA256 with one keyed `EVP_MAC_CTX` reset (`EVP_MAC_init` with a NULL key) per message.
void c_authcore_baseline_hmac_sha256_reused(const void *key, size_t key_length, const void *message, size_t length,
                                            long iterations, unsigned char out[32]);

/// HKDF-SHA256 as Cognito uses it (extract with salt = u, expand one block with info
/// "Caldera Derived Key", 16 bytes), each HMAC keyed afresh, `iterations` times.
void c_authcore_baseline_hkdf_cognito(const void *ikm, size_t ikm_length, const void *salt, size_t salt_length,
                                      long iterations, unsigned char out[16]);

/// `mpz_powm_sec(r, base, exponent, modulus)` `iterations` times; numbers as big-endian bytes.
/// Returns the number of significant bytes of the last result written into `out` (capacity `out_capacity`).
size_t c_authcore_baseline_powm_sec(const void *base, size_t base_length, const void *exponent, size_t exponent_length,
                                    const void *modulus, size_t modulus_length, long iterations, unsigned char *out,
                                    size_t out_capacity);

/// OpenSSL's `BN_mod_exp_mont_consttime(r, base, exponent, modulus)` `iterations` times (the premaster
/// kernel AuthCore used before issue 11: faster, but its base goes through `BN_bin2bn`, which strips
/// leading zero bytes, so it is not constant-time in the base).
size_t c_authcore_baseline_openssl_powm_consttime(const void *base, size_t base_length, const void *exponent,
                                                  size_t exponent_length, const void *modulus, size_t modulus_length,
                                                  long iterations, unsigned char *out, size_t out_capacity);

/// The six `mpz_powm_sec` calls a straightforward SRP-6a client + server handshake makes, with the
/// exponent sizes AuthCore's handshake uses (N of `modulus_length` bytes): g^a, g^b, g^x and v^u with
/// 256-bit exponents, the client's (B - k·g^x)^(a + u·x) with a 513-bit exponent, and the server's
/// (A·v^u)^b with a 256-bit exponent. `iterations` handshakes; returns a checksum byte.
unsigned c_authcore_baseline_srp_handshake_powm_sec(const void *modulus, size_t modulus_length, unsigned long g,
                                                    long iterations);

/// The three `mpz_powm_sec` calls of a Cognito userSRP client (g^a and g^x with 256-bit exponents,
/// S with a 513-bit exponent) over the 3072-bit N with g = 2. Returns a checksum byte.
unsigned c_authcore_baseline_cognito_client_powm_sec(const void *modulus, size_t modulus_length, long iterations);

/// The hashing floor of one SigV4 signature, with the calls AuthCore's signer makes: SHA-256 of the
/// canonical request on a stack `SHA256_CTX` (hex), appended to the string-to-sign prefix, then
/// HMAC-SHA256 from the signing key's saved inner and outer states (RFC 2104 key schedule).
void c_authcore_baseline_sigv4_hashing(const void *canonical, size_t canonical_length, const void *prefix,
                                       size_t prefix_length, const void *key, size_t key_length, long iterations,
                                       char signature_hex[65]);

/// The SigV4a floor: ECDSA P-256 of SHA-256(`message`) (a string to sign) over EVP, the fastest
/// way OpenSSL 3 offers (`SHA256`, then `EVP_PKEY_sign` on one signing context initialised once;
/// `EVP_DigestSign` with a fresh init per signature is about 10% slower), `iterations` times, with
/// the key pair of the private scalar `d` (32 bytes) built once. Returns the bytes of the last DER signature
/// (0 on failure).
long c_authcore_baseline_ecdsa_p256_sign(const void *d, const void *message, size_t length, long iterations);

/// The same floor over OpenSSL 3's EVP API: `EVP_Digest`, then a reused keyed `EVP_MAC_CTX` (the
/// floor before the signer left EVP; each call allocates inside OpenSSL 3.0).
void c_authcore_baseline_sigv4_hashing_evp(const void *canonical, size_t canonical_length, const void *prefix,
                                           size_t prefix_length, const void *key, size_t key_length, long iterations,
                                           char signature_hex[65]);

/// A cold SigV4 signature with the signer's calls: the four-HMAC key derivation from the secret
/// (each step from a stack key schedule), the signing key's schedule, then the floor.
void c_authcore_baseline_sigv4_cold(const void *canonical, size_t canonical_length, const void *prefix, size_t prefix_length,
                                    const void *secret, size_t secret_length, const char *date, const char *region,
                                    const char *service, long iterations, char signature_hex[65]);

/// The same cold signature over EVP: one HMAC context re-keyed per derivation step, a keyed context
/// for the signing key, `EVP_Digest`, the MAC.
void c_authcore_baseline_sigv4_cold_evp(const void *canonical, size_t canonical_length, const void *prefix,
                                        size_t prefix_length, const void *secret, size_t secret_length, const char *date,
                                        const char *region, const char *service, long iterations, char signature_hex[65]);

/// The row steps `c_authcore_powm64` makes for an n-limb modulus and an `ebits`-bit exponent (its
/// schedule in powm64_template.h: the table, `window` squarings and one multiplication per window,
/// the conversion out of Montgomery form), counting a multiplication as 2n² steps and a square as
/// n(n − 1)/2 + n + n². Gathers and the rows' edges are not steps.
size_t c_authcore_baseline_powm64_row_steps(size_t n, size_t ebits);

/// `steps` (rounded up to a multiple of 8) of the 64-bit-limb kernel's row step — MULX, ADOX, ADCX —
/// on registers only, `iterations` times: the floor of its instruction mix on this processor, with
/// no memory traffic, gathers or row edges. x86-64 with BMI2 and ADX only (callers check
/// `c_authcore_powm64_available()`); elsewhere it does nothing. Returns a fold of the registers.
uint64_t c_authcore_baseline_row_step_floor(size_t steps, long iterations);

/// Heap allocations (malloc, calloc, realloc, the aligned allocators) made by the whole process
/// between start and stop (allocations.c; Linux/glibc). Supported: 1 where counting works.
int c_authcore_allocations_supported(void);
void c_authcore_allocations_start(void);
long c_authcore_allocations_stop(void);

#endif
