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

/// A deliberately leaking variant for `make ctgrind`'s control: the portable kernel with each table
/// entry read at an address taken from the exponent's digit. Never used for secrets.
void c_authcore_powm52_indexed_gather_control(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep,
    size_t ebits, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch);

#endif
