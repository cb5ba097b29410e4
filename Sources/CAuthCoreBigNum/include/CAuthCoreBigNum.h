// CAuthCoreBigNum: AuthCore's own constant-time big-integer algorithms over GMP's `mpn` layer
// (Montgomery reduction and multiplication, modular add/sub, constant-time predicates, the
// fixed-base comb). A regular C target, so the system-library shim (CAuthCoreGMP) holds only
// one-line wrappers; every function here reads every limb it is given and branches on none of
// their values.
#ifndef C_AUTHCORE_BIGNUM_H
#define C_AUTHCORE_BIGNUM_H

#include <stddef.h>
#include <gmp.h>

#include "CAuthCoreBigNum_powm52.h"
#include "CAuthCoreBigNum_powm64.h"

/// -1/m0 mod 2^64 for odd m0 (Newton iteration; five steps reach 64 bits from the 3-bit seed m0).
mp_limb_t c_authcore_mont_minus_inverse(mp_limb_t m0);

/// Montgomery reduction, side-channel silent: rp = up / 2^(64 n) mod m, with rp < 2^(64 n).
///
/// `up` holds 2n limbs and is destroyed; `minv` = -1/m[0] mod 2^64. The loop is the textbook word-by-word
/// REDC (HAC 14.32) over GMP's public `mpn_addmul_1` and `mpn_add_n`, whose running time does not depend
/// on the operands, followed by `mpn_cnd_sub_n` on the final carry: the result is congruent and below
/// 2^(64 n), not necessarily below m (as inside `mpn_sec_powm`).
void c_authcore_mpn_redc(mp_ptr rp, mp_ptr up, mp_srcptr mp, mp_size_t n, mp_limb_t minv);

/// Montgomery multiplication rp = ap * bp / 2^(64 n) mod m (side-channel silent); `tp` holds 2n limbs
/// plus `mpn_sec_mul_itch(n, n)`.
void c_authcore_mpn_montmul(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n,
    mp_limb_t minv, mp_ptr tp);

/// Montgomery squaring rp = ap^2 / 2^(64 n) mod m (side-channel silent); `tp` as for montmul.
void c_authcore_mpn_montsqr(mp_ptr rp, mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_limb_t minv,
    mp_ptr tp);

/// Brings a value below 2^(64 n) that is congruent mod m into [0, m), in constant time.
void c_authcore_mpn_sec_reduce_once(mp_ptr rp, mp_srcptr mp, mp_size_t n, mp_ptr tp);

/// Constant-time modular subtraction rp = (ap - bp) mod m for ap, bp in [0, m).
void c_authcore_mpn_sub_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n);

/// Constant-time modular addition rp = (ap + bp) mod m for ap, bp in [0, m); `tp` holds n limbs.
void c_authcore_mpn_add_mod(mp_ptr rp, mp_srcptr ap, mp_srcptr bp, mp_srcptr mp, mp_size_t n, mp_ptr tp);

/// 1 when {ap, n} < {mp, n}, else 0, without a branch on either (the borrow of `mpn_sub_n`);
/// `tp` holds n limbs.
mp_limb_t c_authcore_mpn_sec_less_than(mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_ptr tp);

/// 1 when 2 <= {ap, n} <= {mp, n} - 2 for an odd m, else 0 (a stored SRP verifier's range), without
/// a branch on a; `tp` holds 2n limbs.
mp_limb_t c_authcore_mpn_sec_in_verifier_range(mp_srcptr ap, mp_srcptr mp, mp_size_t n, mp_ptr tp);

/// 1 when all n limbs are zero, else 0, reading every limb and branching on none.
mp_limb_t c_authcore_mpn_sec_is_zero(mp_srcptr ap, mp_size_t n);

/// The number of significant limbs of {ap, n} (the index after the highest non-zero limb), reading
/// every limb and branching on none (the empty asm keeps the optimiser from reintroducing branches).
mp_size_t c_authcore_mpn_sec_significant_limbs(mp_srcptr ap, mp_size_t n);

/// Scratch limbs needed by `c_authcore_mpn_montmul`/`montsqr`.
mp_size_t c_authcore_mont_scratch_limbs(mp_size_t n);

/// The `window`-bit digit of a fixed-width exponent at bit offset `offset` (bits past the end read as 0).
/// The offset is public; the digit's value is read with shifts only.
mp_limb_t c_authcore_exponent_digit(mp_srcptr ep, mp_size_t en, mp_bitcnt_t offset, unsigned window);

/// Fixed-base comb exponentiation in Montgomery form, side-channel silent in the exponent.
///
/// `table` holds `windows` blocks of 2^`window` entries of n limbs each; entry d of block i is
/// g^(d * 2^(window * i)) in Montgomery form (entry 0 is R mod m). The result (Montgomery form) is the
/// product over i of the entry selected by the i-th digit of the exponent, each selected with
/// `mpn_sec_tabselect` (which reads every entry), so the memory access pattern and the number of
/// multiplications depend only on `windows`. `ep` holds `en` limbs; `tp` holds
/// n + `c_authcore_mont_scratch_limbs(n)` limbs.
void c_authcore_comb_power(mp_ptr rp, mp_srcptr table, mp_size_t windows, unsigned window, mp_srcptr ep,
    mp_size_t en, mp_srcptr mp, mp_size_t n, mp_limb_t minv, mp_ptr tp);

#endif
