// The constant-time modular exponentiation kernel (radix 2^52, almost-Montgomery multiplication,
// fixed windows, full-table gathers): AVX-512 IFMA where the processor and the operating system offer
// it, and its portable twin, the same algorithm in plain C. Neither uses GMP.
#ifndef C_AUTHCORE_BIGNUM_POWM52_H
#define C_AUTHCORE_BIGNUM_POWM52_H

#include <stddef.h>
#include <stdint.h>

/// The kernel's 64-bit word: `unsigned long`, the type of GMP's `mp_limb_t` on the LP64 systems this
/// builds on, so that a limb array is passed as itself (Swift sees `UInt` for both).
typedef unsigned long c_authcore_word;
_Static_assert(sizeof(c_authcore_word) == 8, "the kernel's words are 64 bits");

/// The most 64-bit limbs a modulus may have (16,384 bits).
#define C_AUTHCORE_POWM52_MAX_LIMBS 256

/// D, the number of 52-bit digits the kernel works with for an n-limb modulus: the least D with
/// 52·D ≥ 64·n + 2, so that R = 2^(52·D) holds any n-limb base and 4m ≤ R.
size_t c_authcore_powm52_digits(size_t n);

/// The window width for a `bits`-bit exponent, non-decreasing in `bits` (so scratch sized for the
/// longest exponent serves every shorter one): the thresholds where 2^w table entries plus bits / w
/// multiplications is least (4 for 256-bit exponents, 5 for 513).
unsigned c_authcore_powm52_window(size_t bits);

/// The scratch the kernel needs, in 64-bit words.
size_t c_authcore_powm52_scratch_limbs(size_t n, size_t ebits);

/// 1 when this processor has AVX-512F and AVX-512 IFMA and the operating system saves the AVX-512
/// registers (CPUID leaves 1 and 7, XGETBV), else 0; always 0 off x86-64.
int c_authcore_powm52_ifma_available(void);

/// r = b^e mod m, side-channel silent in b and e, with AVX-512 IFMA (only when
/// `c_authcore_powm52_ifma_available()` says so).
///
/// - `rp`, `bp`, `mp`, `rrp`: n little-endian 64-bit limbs; 1 ≤ n ≤ C_AUTHCORE_POWM52_MAX_LIMBS
///   (nothing is written otherwise). `rp` may be `bp`: it is written once, at the end.
/// - m odd and above 1; b any n-limb value (never normalised); r fully reduced, below m.
/// - `rrp` = 2^(2·52·D) mod m for D = `c_authcore_powm52_digits(n)` (public, computed once per modulus).
/// - `ep`: ⌈ebits / 64⌉ limbs, ebits ≥ 1 (nothing is written for 0); bits from `ebits` up are
///   ignored. The running time, the branches and the addresses read depend on n and `ebits` only.
/// - On return the stack below the call and the vector registers hold nothing of the operation.
/// - `scratch`: `c_authcore_powm52_scratch_limbs(n, ebits)` words, holding secrets when it returns
///   (the caller wipes it).
void c_authcore_powm52_ifma(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

/// The same computation in portable C: the same source as the IFMA kernel, with the same loops over
/// the same public counts and the same addresses read (what valgrind can run: it has no AVX-512).
void c_authcore_powm52_portable(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

/// The words one value takes in the kernels' digit form (a table entry): 8·⌈D/8⌉.
size_t c_authcore_powm52_width(size_t n);

/// The scratch `c_authcore_powm52_enter_*` and `c_authcore_comb52_*` need, in words.
size_t c_authcore_comb52_scratch_limbs(size_t n);

/// d = x·R mod m (below 2m) in the kernels' digit form, `c_authcore_powm52_width(n)` words, for any
/// n-limb x (`rrp` as for the exponentiation): a fixed-base table's entry. Public inputs only need
/// it (the table of a public g), but it runs in constant time like the rest.
void c_authcore_powm52_enter_ifma(c_authcore_word *dp, const c_authcore_word *xp, const c_authcore_word *mp,
    const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);
void c_authcore_powm52_enter_portable(c_authcore_word *dp, const c_authcore_word *xp, const c_authcore_word *mp,
    const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

/// The fixed-base comb over digit-form entries: r = Π_{i < windows} table[i][digit_i(e)] · factor / R
/// mod m, fully reduced (n limbs), where block i holds the 2^window entries g^(d·2^(window·i))·R
/// (`c_authcore_powm52_width(n)` words each) and digit i is bits window·i … of e, ⌈ebits / 64⌉ limbs
/// whose bits from `ebits` up are read as zero; 1 ≤ window ≤ 7 (nothing is written otherwise).
/// With factor = 2^(64n) mod m the result is g^e in GMP's Montgomery form. Side-channel silent in e:
/// one multiplication and one full-table gather per window.
void c_authcore_comb52_ifma(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *factorp, size_t n,
    c_authcore_word *scratch);
void c_authcore_comb52_portable(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *factorp, size_t n,
    c_authcore_word *scratch);

/// A deliberately leaking variant for `make ctgrind`'s control: the portable kernel with each table
/// entry read at an address taken from the exponent's digit. Never used for secrets.
void c_authcore_powm52_indexed_gather_control(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep,
    size_t ebits, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

#endif
