// The algorithms declared in CAuthCoreBigNum.h. Limbs are 64 bits with no nails: the Montgomery
// constant -1/m0 mod 2^64, R = 2^(64 n), and the digit extraction all assume it, and the build
// fails on a GMP configured otherwise.
#include "CAuthCoreBigNum.h"
#include "kernel_shared.h"

_Static_assert(GMP_NUMB_BITS == 64, "AuthCore's Montgomery arithmetic assumes 64-bit limbs");
_Static_assert(GMP_NAIL_BITS == 0, "AuthCore's Montgomery arithmetic assumes limbs without nail bits");
_Static_assert(sizeof(mp_limb_t) == 8, "mp_limb_t must be 64 bits");

/// -1/m0 mod 2^64 for odd m0 (Newton iteration; five steps reach 64 bits from the 3-bit seed m0).
mp_limb_t c_authcore_mont_minus_inverse(mp_limb_t m0) { return c_authcore_kernel_minus_inverse(m0); }

/// Montgomery reduction, side-channel silent: rp = up / 2^(64 n) mod m, with rp < 2^(64 n).
///
/// `up` holds 2n limbs and is destroyed; `minv` = -1/m[0] mod 2^64. The loop is the textbook word-by-word
/// REDC (HAC 14.32) over GMP's public `mpn_addmul_1` and `mpn_add_n`, whose running time does not depend
/// on the operands, followed by `mpn_cnd_sub_n` on the final carry: the result is congruent and below
/// 2^(64 n), not necessarily below m (as inside `mpn_sec_powm`).
void c_authcore_mpn_redc(mp_ptr rp, mp_ptr up, mp_srcptr mp, mp_size_t n, mp_limb_t minv) {
    for (mp_size_t j = 0; j < n; j++) {
        mp_limb_t q = up[j] * minv;
        up[j] = mpn_addmul_1(up + j, mp, n, q);
    }
    mp_limb_t cy = mpn_add_n(rp, up + n, up, n);
    mpn_cnd_sub_n(cy, rp, rp, mp, n);
}

/// Montgomery multiplication rp = ap * bp / 2^(64 n) mod m (side-channel silent); `tp` holds 2n limbs
/// plus `mpn_sec_mul_itch(n, n)`.
void c_authcore_mpn_montmul(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n,
                                          mp_limb_t minv, mp_ptr tp) {
    mpn_sec_mul(tp, ap, n, bp, n, tp + 2 * n);
    c_authcore_mpn_redc(rp, tp, mp, n, minv);
}

/// Montgomery squaring rp = ap^2 / 2^(64 n) mod m (side-channel silent); `tp` as for montmul.
void c_authcore_mpn_montsqr(mp_ptr rp, mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_limb_t minv,
                                          mp_ptr tp) {
    mpn_sec_sqr(tp, ap, n, tp + 2 * n);
    c_authcore_mpn_redc(rp, tp, mp, n, minv);
}

/// Brings a value below 2^(64 n) that is congruent mod m into [0, m), in constant time.
void c_authcore_mpn_sec_reduce_once(mp_ptr rp, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mp_limb_t borrow = mpn_sub_n(tp, rp, mp, n);
    mpn_cnd_sub_n(borrow ^ 1, rp, rp, mp, n);
}

/// Constant-time modular subtraction rp = (ap - bp) mod m for ap, bp in [0, m).
void c_authcore_mpn_sub_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n) {
    mp_limb_t borrow = mpn_sub_n(rp, ap, bp, n);
    mpn_cnd_add_n(borrow, rp, rp, mp, n);
}

/// Constant-time modular addition rp = (ap + bp) mod m for ap, bp in [0, m); `tp` holds n limbs.
void c_authcore_mpn_add_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mp_limb_t carry = mpn_add_n(rp, ap, bp, n);
    mp_limb_t borrow = mpn_sub_n(tp, rp, mp, n);
    // Subtract m when the sum overflowed or is at least m (no borrow).
    mpn_cnd_sub_n(carry | (borrow ^ 1), rp, rp, mp, n);
}

/// 1 when {ap, n} < {mp, n}, else 0, without a branch on either (the borrow of `mpn_sub_n`);
/// `tp` holds n limbs.
mp_limb_t c_authcore_mpn_sec_less_than(mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    return mpn_sub_n(tp, ap, mp, n);
}

/// 1 when 2 <= {ap, n} <= {mp, n} - 2 for an odd m, else 0 (the values a stored SRP verifier may
/// take), from two `mpn_sub_n` borrows: no branch on a. `tp` holds 2n limbs.
mp_limb_t c_authcore_mpn_sec_in_verifier_range(mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_ptr tp) {
    mp_ptr bound = tp + n;
    for (mp_size_t i = 0; i < n; i++) bound[i] = 0;
    bound[0] = 2;
    mp_limb_t below_two = mpn_sub_n(tp, ap, bound, n);
    for (mp_size_t i = 0; i < n; i++) bound[i] = mp[i];
    bound[0] ^= 1; // m - 1: m is odd
    mp_limb_t below_top = mpn_sub_n(tp, ap, bound, n);
    return (below_two ^ 1) & below_top;
}

/// 1 when all n limbs are zero, else 0, reading every limb and branching on none.
mp_limb_t c_authcore_mpn_sec_is_zero(mp_srcptr ap, mp_size_t n) {
    mp_limb_t any = 0;
    for (mp_size_t i = 0; i < n; i++) any |= ap[i];
    __asm__("" : "+r"(any));
    return ((any | ((mp_limb_t)0 - any)) >> (GMP_NUMB_BITS - 1)) ^ 1;
}

/// The number of significant limbs of {ap, n} (the index after the highest non-zero limb), reading
/// every limb and branching on none (the empty asm keeps the optimiser from reintroducing branches).
mp_size_t c_authcore_mpn_sec_significant_limbs(mp_srcptr ap, mp_size_t n) {
    mp_limb_t significant = 0;
    for (mp_size_t i = 0; i < n; i++) {
        mp_limb_t nonzero = (ap[i] | ((mp_limb_t)0 - ap[i])) >> (GMP_NUMB_BITS - 1);
        mp_limb_t mask = (mp_limb_t)0 - nonzero;
        __asm__("" : "+r"(mask));
        significant ^= (significant ^ (mp_limb_t)(i + 1)) & mask;
    }
    return (mp_size_t)significant;
}

/// Scratch limbs needed by `c_authcore_mpn_montmul`/`montsqr`.
mp_size_t c_authcore_mont_scratch_limbs(mp_size_t n) {
    mp_size_t mul = mpn_sec_mul_itch(n, n);
    mp_size_t sqr = mpn_sec_sqr_itch(n);
    return 2 * n + (mul > sqr ? mul : sqr);
}

/// The `window`-bit digit of a fixed-width exponent at bit offset `offset` (bits past the end read as 0).
/// The offset is public; the digit's value is read with shifts only.
mp_limb_t c_authcore_exponent_digit(mp_srcptr ep, mp_size_t en, mp_bitcnt_t offset, unsigned window) {
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
void c_authcore_comb_power(mp_ptr rp, mp_srcptr table, mp_size_t windows, unsigned window, mp_srcptr ep,
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
