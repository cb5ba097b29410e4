// The constant-time modular exponentiation kernel over 64-bit limbs (Montgomery multiplication by
// rows of MULX with two carry chains, ADCX and ADOX, a dedicated squaring, REDC, fixed windows,
// full-table gathers): the kernel for x86-64 processors without AVX-512 IFMA (most servers before
// 2021). It needs nothing from GMP.
#ifndef C_AUTHCORE_BIGNUM_POWM64_H
#define C_AUTHCORE_BIGNUM_POWM64_H

#include <stddef.h>

#include "CAuthCoreBigNum_powm52.h"

/// The most 64-bit limbs a modulus may have (16,384 bits, as for the radix-2^52 kernels).
#define C_AUTHCORE_POWM64_MAX_LIMBS C_AUTHCORE_POWM52_MAX_LIMBS

/// The scratch `c_authcore_powm64` needs, in 64-bit words (its window is
/// `c_authcore_powm52_window(ebits)`).
size_t c_authcore_powm64_scratch_limbs(size_t n, size_t ebits);

/// 1 when this processor has BMI2 and ADX (CPUID leaf 7), else 0; always 0 off x86-64.
int c_authcore_powm64_available(void);

/// r = b^e mod m, side-channel silent in b and e (only when `c_authcore_powm64_available()` says so).
///
/// - `rp`, `bp`, `mp`, `rrp`: n little-endian 64-bit limbs; 1 ≤ n ≤ C_AUTHCORE_POWM64_MAX_LIMBS
///   (nothing is written otherwise). `rp` may be `bp`: it is written once, at the end.
/// - m odd and above 1; b any n-limb value (never normalised); r fully reduced, below m.
/// - `rrp` = 2^(128·n) mod m (R² for R = 2^(64·n); public, computed once per modulus).
/// - `ep`: ⌈ebits / 64⌉ limbs, ebits ≥ 1 (nothing is written for 0); bits from `ebits` up are
///   ignored. The running time, the branches and the addresses read depend on n and `ebits` only.
/// - On return the stack below the call and the vector registers (XMM0-15) hold nothing of the
///   operation.
/// - `scratch`: `c_authcore_powm64_scratch_limbs(n, ebits)` words, holding secrets when it returns
///   (the caller wipes it).
void c_authcore_powm64(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

/// The scratch `c_authcore_comb64` needs, in 64-bit words.
size_t c_authcore_comb64_scratch_limbs(size_t n);

/// The fixed-base comb (only when `c_authcore_powm64_available()` says so): r = the product of
/// table[i][digit i of e] over i < `windows`, in Montgomery form (R = 2^(64·n), GMP's form too),
/// where digit i is the `window`-bit digit of e at bit window·i. The table's window i is 2^window
/// consecutive entries of n limbs, that window's powers g^(d·2^(window·i))·R mod m, each any value
/// below R congruent to it (GMP's REDC, which builds them, does not bring its results below m);
/// r is below R and congruent to the product, like the entries (not necessarily below m: a
/// caller reduces it, as `FixedBaseTable` does when it leaves Montgomery form). One
/// multiplication and one full-table gather per window; the running time, the branches and the
/// addresses read depend on n, `windows` and `window` only. Nothing is written unless
/// 1 ≤ n ≤ C_AUTHCORE_POWM64_MAX_LIMBS, `windows` ≥ 1 and 1 ≤ `window` ≤ 7 (`ebits` may be 0: every
/// digit is then 0, where `c_authcore_powm64` writes nothing).
/// `ep` is ⌈ebits / 64⌉ limbs, bits from `ebits` up ignored; the stack and XMM0-15 are scrubbed as
/// for `c_authcore_powm64`; `scratch`: `c_authcore_comb64_scratch_limbs(n)` words, holding
/// secrets when it returns.
void c_authcore_comb64(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, size_t n, c_authcore_word *scratch);

/// A deliberately leaking variant for `make ctgrind`'s control: the kernel with each window's table
/// entry read at an address taken from the exponent's digit. Never used for secrets.
void c_authcore_powm64_indexed_gather_control(c_authcore_word *rp, const c_authcore_word *bp,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n,
    c_authcore_word *scratch);

#endif
