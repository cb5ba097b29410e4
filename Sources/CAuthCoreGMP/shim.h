// CAuthCoreGMP: the GMP surface AuthCore uses.
//
// GMP's public names (`mpz_mul`, `mpn_sec_powm`, ...) are preprocessor macros over `__gmpz_*` /
// `__gmpn_*` symbols, and some (`mpz_sgn`, `mpz_odd_p`) are function-like macros that Swift cannot
// import. Each wrapper here is a `static inline` function with the `c_authcore_` prefix, so Swift
// sees one stable, prefixed C name per operation.
#ifndef C_AUTHCORE_GMP_SHIM_H
#define C_AUTHCORE_GMP_SHIM_H

#include <stddef.h>
#include <gmp.h>

// MARK: - Memory functions

static inline void c_authcore_mp_set_memory_functions(void *(*alloc)(size_t),
                                                      void *(*realloc_fn)(void *, size_t, size_t),
                                                      void (*free_fn)(void *, size_t)) {
    mp_set_memory_functions(alloc, realloc_fn, free_fn);
}

// MARK: - mpz life cycle and conversion

static inline void c_authcore_mpz_init(mpz_ptr z) { mpz_init(z); }
static inline void c_authcore_mpz_init2(mpz_ptr z, mp_bitcnt_t bits) { mpz_init2(z, bits); }
static inline void c_authcore_mpz_clear(mpz_ptr z) { mpz_clear(z); }
static inline void c_authcore_mpz_set(mpz_ptr r, mpz_srcptr a) { mpz_set(r, a); }
static inline void c_authcore_mpz_set_ui(mpz_ptr r, unsigned long v) { mpz_set_ui(r, v); }
static inline void c_authcore_mpz_swap(mpz_ptr a, mpz_ptr b) { mpz_swap(a, b); }
static inline void c_authcore_mpz_realloc2(mpz_ptr z, mp_bitcnt_t bits) { mpz_realloc2(z, bits); }

/// Big-endian, most significant byte first, whole bytes.
static inline void c_authcore_mpz_import_be(mpz_ptr r, size_t count, const void *bytes) {
    mpz_import(r, count, 1, 1, 1, 0, bytes);
}
/// Writes the minimal big-endian bytes of |a| into `out` (which must hold `mpz_sizeinbase(a, 256)` bytes)
/// and returns the number written (0 for zero).
static inline size_t c_authcore_mpz_export_be(void *out, mpz_srcptr a) {
    size_t count = 0;
    mpz_export(out, &count, 1, 1, 1, 0, a);
    return count;
}
static inline size_t c_authcore_mpz_sizeinbase(mpz_srcptr a, int base) { return mpz_sizeinbase(a, base); }
static inline int c_authcore_mpz_sgn(mpz_srcptr a) { return mpz_sgn(a); }
static inline int c_authcore_mpz_odd_p(mpz_srcptr a) { return mpz_odd_p(a); }
static inline int c_authcore_mpz_cmp(mpz_srcptr a, mpz_srcptr b) { return mpz_cmp(a, b); }
static inline int c_authcore_mpz_cmp_ui(mpz_srcptr a, unsigned long b) { return mpz_cmp_ui(a, b); }
static inline size_t c_authcore_mpz_size(mpz_srcptr a) { return mpz_size(a); }
static inline mp_srcptr c_authcore_mpz_limbs_read(mpz_srcptr a) { return mpz_limbs_read(a); }
static inline mp_ptr c_authcore_mpz_limbs_write(mpz_ptr a, mp_size_t n) { return mpz_limbs_write(a, n); }
static inline void c_authcore_mpz_limbs_finish(mpz_ptr a, mp_size_t n) { mpz_limbs_finish(a, n); }
static inline unsigned long c_authcore_mpz_get_ui(mpz_srcptr a) { return mpz_get_ui(a); }
static inline int c_authcore_mpz_tstbit(mpz_srcptr a, mp_bitcnt_t bit) { return mpz_tstbit(a, bit); }

// MARK: - mpz arithmetic (variable time: public values only)

static inline void c_authcore_mpz_add(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_add(r, a, b); }
static inline void c_authcore_mpz_add_ui(mpz_ptr r, mpz_srcptr a, unsigned long b) { mpz_add_ui(r, a, b); }
static inline void c_authcore_mpz_sub(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_sub(r, a, b); }
static inline void c_authcore_mpz_sub_ui(mpz_ptr r, mpz_srcptr a, unsigned long b) { mpz_sub_ui(r, a, b); }
static inline void c_authcore_mpz_mul(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_mul(r, a, b); }
static inline void c_authcore_mpz_mul_ui(mpz_ptr r, mpz_srcptr a, unsigned long b) { mpz_mul_ui(r, a, b); }
static inline void c_authcore_mpz_mod(mpz_ptr r, mpz_srcptr a, mpz_srcptr m) { mpz_mod(r, a, m); }
static inline void c_authcore_mpz_tdiv_q_2exp(mpz_ptr r, mpz_srcptr a, mp_bitcnt_t bits) { mpz_tdiv_q_2exp(r, a, bits); }
static inline void c_authcore_mpz_mul_2exp(mpz_ptr r, mpz_srcptr a, mp_bitcnt_t bits) { mpz_mul_2exp(r, a, bits); }
static inline void c_authcore_mpz_powm(mpz_ptr r, mpz_srcptr b, mpz_srcptr e, mpz_srcptr m) { mpz_powm(r, b, e, m); }
static inline void c_authcore_mpz_powm_sec(mpz_ptr r, mpz_srcptr b, mpz_srcptr e, mpz_srcptr m) { mpz_powm_sec(r, b, e, m); }
static inline int c_authcore_mpz_probab_prime_p(mpz_srcptr a, int reps) { return mpz_probab_prime_p(a, reps); }
static inline int c_authcore_mpz_invert(mpz_ptr r, mpz_srcptr a, mpz_srcptr m) { return mpz_invert(r, a, m); }

// MARK: - mpn: the side-channel silent layer

static inline mp_size_t c_authcore_mpn_sec_powm_itch(mp_size_t bn, mp_bitcnt_t enb, mp_size_t n) {
    return mpn_sec_powm_itch(bn, enb, n);
}
static inline void c_authcore_mpn_sec_powm(mp_ptr rp, mp_srcptr bp, mp_size_t bn, mp_srcptr ep, mp_bitcnt_t enb,
                                           mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mpn_sec_powm(rp, bp, bn, ep, enb, mp, n, tp);
}
static inline mp_size_t c_authcore_mpn_sec_mul_itch(mp_size_t an, mp_size_t bn) { return mpn_sec_mul_itch(an, bn); }
static inline void c_authcore_mpn_sec_mul(mp_ptr rp, mp_srcptr ap, mp_size_t an, mp_srcptr bp, mp_size_t bn, mp_ptr tp) {
    mpn_sec_mul(rp, ap, an, bp, bn, tp);
}
static inline mp_size_t c_authcore_mpn_sec_sqr_itch(mp_size_t an) { return mpn_sec_sqr_itch(an); }
static inline void c_authcore_mpn_sec_sqr(mp_ptr rp, mp_srcptr ap, mp_size_t an, mp_ptr tp) { mpn_sec_sqr(rp, ap, an, tp); }
static inline mp_size_t c_authcore_mpn_sec_div_r_itch(mp_size_t nn, mp_size_t dn) { return mpn_sec_div_r_itch(nn, dn); }
static inline void c_authcore_mpn_sec_div_r(mp_ptr np, mp_size_t nn, mp_srcptr dp, mp_size_t dn, mp_ptr tp) {
    mpn_sec_div_r(np, nn, dp, dn, tp);
}
static inline void c_authcore_mpn_sec_tabselect(mp_ptr rp, mp_srcptr tab, mp_size_t n, mp_size_t nents, mp_size_t which) {
    mpn_sec_tabselect(rp, tab, n, nents, which);
}
static inline mp_limb_t c_authcore_mpn_cnd_sub_n(mp_limb_t cnd, mp_ptr rp, mp_srcptr up, mp_srcptr vp, mp_size_t n) {
    return mpn_cnd_sub_n(cnd, rp, up, vp, n);
}
static inline mp_limb_t c_authcore_mpn_sub_n(mp_ptr rp, mp_srcptr up, mp_srcptr vp, mp_size_t n) {
    return mpn_sub_n(rp, up, vp, n);
}
static inline mp_limb_t c_authcore_mpn_add_n(mp_ptr rp, mp_srcptr up, mp_srcptr vp, mp_size_t n) {
    return mpn_add_n(rp, up, vp, n);
}
static inline void c_authcore_mpn_zero(mp_ptr rp, mp_size_t n) { mpn_zero(rp, n); }
static inline void c_authcore_mpn_copyi(mp_ptr rp, mp_srcptr sp, mp_size_t n) { mpn_copyi(rp, sp, n); }

/// Sets the size of an mpz whose limbs were written directly, without the normalising scan of
/// `mpz_limbs_finish` (which branches on the top limb): the caller guarantees limb n-1 is non-zero.
static inline void c_authcore_mpz_set_limb_count(mpz_ptr z, mp_size_t n) { z->_mp_size = (int)n; }

#endif
