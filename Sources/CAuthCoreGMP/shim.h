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

/// -1/m0 mod 2^64 for odd m0 (Newton iteration; five steps reach 64 bits from the 3-bit seed m0).
static inline mp_limb_t c_authcore_mont_minus_inverse(mp_limb_t m0) {
    mp_limb_t inv = m0; // correct to 3 bits for odd m0
    for (int i = 0; i < 5; i++) inv *= 2 - m0 * inv;
    return (mp_limb_t)0 - inv;
}

/// Montgomery reduction, side-channel silent: rp = up / 2^(64 n) mod m, with rp < 2^(64 n).
///
/// `up` holds 2n limbs and is destroyed; `minv` = -1/m[0] mod 2^64. The loop is the textbook word-by-word
/// REDC (HAC 14.32) over GMP's public `mpn_addmul_1` and `mpn_add_n`, whose running time does not depend
/// on the operands, followed by `mpn_cnd_sub_n` on the final carry: the result is congruent and below
/// 2^(64 n), not necessarily below m (as inside `mpn_sec_powm`).
static inline void c_authcore_mpn_redc(mp_ptr rp, mp_ptr up, mp_srcptr mp, mp_size_t n, mp_limb_t minv) {
    for (mp_size_t j = 0; j < n; j++) {
        mp_limb_t q = up[j] * minv;
        up[j] = mpn_addmul_1(up + j, mp, n, q);
    }
    mp_limb_t cy = mpn_add_n(rp, up + n, up, n);
    mpn_cnd_sub_n(cy, rp, rp, mp, n);
}

/// Montgomery multiplication rp = ap * bp / 2^(64 n) mod m (side-channel silent); `tp` holds 2n limbs
/// plus `mpn_sec_mul_itch(n, n)`.
static inline void c_authcore_mpn_montmul(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n,
                                          mp_limb_t minv, mp_ptr tp) {
    mpn_sec_mul(tp, ap, n, bp, n, tp + 2 * n);
    c_authcore_mpn_redc(rp, tp, mp, n, minv);
}

/// Montgomery squaring rp = ap^2 / 2^(64 n) mod m (side-channel silent); `tp` as for montmul.
static inline void c_authcore_mpn_montsqr(mp_ptr rp, mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_limb_t minv,
                                          mp_ptr tp) {
    mpn_sec_sqr(tp, ap, n, tp + 2 * n);
    c_authcore_mpn_redc(rp, tp, mp, n, minv);
}

/// Brings a value below 2^(64 n) that is congruent mod m into [0, m), in constant time.
static inline void c_authcore_mpn_sec_reduce_once(mp_ptr rp, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mp_limb_t borrow = mpn_sub_n(tp, rp, mp, n);
    mpn_cnd_sub_n(borrow ^ 1, rp, rp, mp, n);
}

/// Constant-time modular subtraction rp = (ap - bp) mod m for ap, bp in [0, m).
static inline void c_authcore_mpn_sub_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n) {
    mp_limb_t borrow = mpn_sub_n(rp, ap, bp, n);
    mpn_cnd_add_n(borrow, rp, rp, mp, n);
}

/// Constant-time modular addition rp = (ap + bp) mod m for ap, bp in [0, m); `tp` holds n limbs.
static inline void c_authcore_mpn_add_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mp_limb_t carry = mpn_add_n(rp, ap, bp, n);
    mp_limb_t borrow = mpn_sub_n(tp, rp, mp, n);
    // Subtract m when the sum overflowed or is at least m (no borrow).
    mpn_cnd_sub_n(carry | (borrow ^ 1), rp, rp, mp, n);
}

/// 1 when {ap, n} < {mp, n}, else 0, without a branch on either (the borrow of `mpn_sub_n`);
/// `tp` holds n limbs.
static inline mp_limb_t c_authcore_mpn_sec_less_than(mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    return mpn_sub_n(tp, ap, mp, n);
}

/// 1 when all n limbs are zero, else 0, reading every limb and branching on none.
static inline mp_limb_t c_authcore_mpn_sec_is_zero(mp_srcptr ap, mp_size_t n) {
    mp_limb_t any = 0;
    for (mp_size_t i = 0; i < n; i++) any |= ap[i];
    __asm__("" : "+r"(any));
    return ((any | ((mp_limb_t)0 - any)) >> (GMP_NUMB_BITS - 1)) ^ 1;
}

/// The number of significant limbs of {ap, n} (the index after the highest non-zero limb), reading
/// every limb and branching on none (the empty asm keeps the optimiser from reintroducing branches).
static inline mp_size_t c_authcore_mpn_sec_significant_limbs(mp_srcptr ap, mp_size_t n) {
    mp_limb_t significant = 0;
    for (mp_size_t i = 0; i < n; i++) {
        mp_limb_t nonzero = (ap[i] | ((mp_limb_t)0 - ap[i])) >> (GMP_NUMB_BITS - 1);
        mp_limb_t mask = (mp_limb_t)0 - nonzero;
        __asm__("" : "+r"(mask));
        significant ^= (significant ^ (mp_limb_t)(i + 1)) & mask;
    }
    return (mp_size_t)significant;
}

/// Sets the size of an mpz whose limbs were written directly, without the normalising scan of
/// `mpz_limbs_finish` (which branches on the top limb): the caller guarantees limb n-1 is non-zero.
static inline void c_authcore_mpz_set_limb_count(mpz_ptr z, mp_size_t n) { z->_mp_size = (int)n; }

/// Scratch limbs needed by `c_authcore_mpn_montmul`/`montsqr`.
static inline mp_size_t c_authcore_mont_scratch_limbs(mp_size_t n) {
    mp_size_t mul = mpn_sec_mul_itch(n, n);
    mp_size_t sqr = mpn_sec_sqr_itch(n);
    return 2 * n + (mul > sqr ? mul : sqr);
}

/// The `window`-bit digit of a fixed-width exponent at bit offset `offset` (bits past the end read as 0).
/// The offset is public; the digit's value is read with shifts only.
static inline mp_limb_t c_authcore_exponent_digit(mp_srcptr ep, mp_size_t en, mp_bitcnt_t offset, unsigned window) {
    mp_size_t limb = (mp_size_t)(offset / GMP_NUMB_BITS);
    unsigned shift = (unsigned)(offset % GMP_NUMB_BITS);
    mp_limb_t low = limb < en ? ep[limb] >> shift : 0;
    mp_limb_t high = (shift != 0 && limb + 1 < en) ? ep[limb + 1] << (GMP_NUMB_BITS - shift) : 0;
    return (low | high) & (((mp_limb_t)1 << window) - 1);
}

/// Fixed-base comb exponentiation in Montgomery form, side-channel silent in the exponent.
///
/// `table` holds `windows` blocks of 2^`window` entries of n limbs each; entry d of block i is
/// g^(d * 2^(window * i)) in Montgomery form (entry 0 is R mod m). The result (Montgomery form) is the
/// product over i of the entry selected by the i-th digit of the exponent, each selected with
/// `mpn_sec_tabselect` (which reads every entry), so the memory access pattern and the number of
/// multiplications depend only on `windows`. `ep` holds `en` limbs; `tp` holds
/// n + `c_authcore_mont_scratch_limbs(n)` limbs.
static inline void c_authcore_comb_power(mp_ptr rp, mp_srcptr table, mp_size_t windows, unsigned window, mp_srcptr ep,
                                         mp_size_t en, mp_srcptr mp, mp_size_t n, mp_limb_t minv, mp_ptr tp) {
    mp_size_t entries = (mp_size_t)1 << window;
    mp_ptr selected = tp;
    mp_ptr scratch = tp + n;
    mpn_sec_tabselect(rp, table, n, entries, c_authcore_exponent_digit(ep, en, 0, window));
    for (mp_size_t i = 1; i < windows; i++) {
        mp_limb_t digit = c_authcore_exponent_digit(ep, en, (mp_bitcnt_t)i * window, window);
        mpn_sec_tabselect(selected, table + i * entries * n, n, entries, digit);
        c_authcore_mpn_montmul(rp, rp, selected, mp, n, minv, scratch);
    }
}

#endif
