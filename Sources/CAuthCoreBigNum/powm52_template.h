// The constant-time exponentiation kernel's algorithm, written once over an 8-lane vector of 64-bit
// lanes and compiled twice: with AVX-512 IFMA instructions (powm52_ifma.c) and with portable C that
// models each instruction lane by lane (powm52_portable.c). Both compilations run the same loops over
// the same public counts and read the same addresses, so the portable one — which valgrind can run —
// is what `make ctgrind` checks for the algorithm, and the differential tests hold both to `mpz_powm`.
//
// The includer defines VEC and the V_* operations (V_SCRUB_REGISTERS clears the vector registers
// the compilation may use), POWM52_ATTR (function attributes), POWM52_NAME(x) (the file's
// prefix for its static functions) and POWM52_PUBLIC(name) (its exported names). Both compilations
// define POWM52_AMM_SPECIALISED, which specialises the multiplication
// per vector count, so that they also branch alike on the (public) count.
//
// Arithmetic: radix 2^52 digits in 64-bit lanes, Montgomery multiplication word by word (HAC 14.36)
// with R = 2^(52·D), the almost-Montgomery form of Gueron and Krasnov ("Accelerating Big Integer
// Arithmetic Using Intel IFMA Extensions", ARITH 2016): products stay below 2m when their inputs are
// below 2m and 4m ≤ R, so no conditional subtraction happens inside the exponentiation; one at the
// end brings the result below m. Exponentiation: left-to-right fixed windows, every table entry read
// for every digit (a masked OR), no branch or address on a secret.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "CAuthCoreBigNum_powm52.h"
#include "kernel_shared.h"

#define POWM52_MASK ((c_authcore_word)0xFFFFFFFFFFFFFull)

/// −m0⁻¹ mod 2^52 for odd m0: the 64-bit constant's low 52 bits.
static inline c_authcore_word POWM52_NAME(minus_inverse)(c_authcore_word m0) {
    return c_authcore_kernel_minus_inverse(m0) & POWM52_MASK;
}

/// r = a·b·R⁻¹ mod m as a value below 2m, for a, b below 2m (digits below 2^52, `vectors`·8 of
/// them, zero from `digits` up); r may alias a or b. `k0` = −m⁻¹ mod 2^52.
///
/// Each step adds b_i·a and q·m to the accumulator (q chosen so that digit 0 becomes zero), then
/// shifts the accumulator down one digit: the low halves of the 104-bit products land before the
/// shift, the high halves after it (they belong one digit up). A lane gains less than 2^54 per step,
/// so after at most 316 steps (16,384-bit moduli) it is below 2^63; the digits are normalised once,
/// at the end, in a scalar carry pass.
static inline __attribute__((always_inline)) POWM52_ATTR void POWM52_NAME(amm_body)(
    c_authcore_word *r, const c_authcore_word *a, const c_authcore_word *b, const c_authcore_word *m, c_authcore_word k0, size_t digits,
    size_t vectors) {
    VEC acc[POWM52_MAX_VECTORS];
    for (size_t j = 0; j < vectors; j++) acc[j] = V_ZERO();
    const c_authcore_word a0 = a[0];
    const c_authcore_word m0 = m[0];
    for (size_t i = 0; i < digits; i++) {
        const c_authcore_word bi = b[i];
        const c_authcore_word t0 = V_LANE0(acc[0]) + ((a0 * bi) & POWM52_MASK);
        const c_authcore_word q = (t0 * k0) & POWM52_MASK;
        const c_authcore_word carry = (t0 + ((m0 * q) & POWM52_MASK)) >> 52;
        const VEC bv = V_BCAST(bi);
        const VEC qv = V_BCAST(q);
        for (size_t j = 0; j < vectors; j++) {
            acc[j] = V_MADD52LO(acc[j], V_LOAD(a + 8 * j), bv);
            acc[j] = V_MADD52LO(acc[j], V_LOAD(m + 8 * j), qv);
        }
        for (size_t j = 0; j + 1 < vectors; j++) acc[j] = V_ALIGNR1(acc[j + 1], acc[j]);
        acc[vectors - 1] = V_ALIGNR1(V_ZERO(), acc[vectors - 1]);
        acc[0] = V_ADD_LANE0(acc[0], carry);
        for (size_t j = 0; j < vectors; j++) {
            acc[j] = V_MADD52HI(acc[j], V_LOAD(a + 8 * j), bv);
            acc[j] = V_MADD52HI(acc[j], V_LOAD(m + 8 * j), qv);
        }
    }
    for (size_t j = 0; j < vectors; j++) V_STORE(r + 8 * j, acc[j]);
    c_authcore_word carry = 0;
    for (size_t k = 0; k < 8 * vectors; k++) {
        c_authcore_word t = r[k] + carry;
        r[k] = t & POWM52_MASK;
        carry = t >> 52;
    }
}

/// The multiplication, specialised (with POWM52_AMM_SPECIALISED) for the vector counts of the
/// RFC 5054 groups and 1024-bit moduli, so that the accumulator lives in registers; any other count
/// takes the same code with the count at run time.
static POWM52_ATTR void POWM52_NAME(amm)(
    c_authcore_word *r, const c_authcore_word *a, const c_authcore_word *b, const c_authcore_word *m, c_authcore_word k0, size_t digits,
    size_t vectors) {
#if defined(POWM52_AMM_SPECIALISED) && defined(__OPTIMIZE__)
    switch (vectors) {
    case 3: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 3); return;
    case 4: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 4); return;
    case 5: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 5); return;
    case 8: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 8); return;
    case 10: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 10); return;
    case 15: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 15); return;
    case 20: POWM52_NAME(amm_body)(r, a, b, m, k0, digits, 20); return;
    default: break;
    }
#endif
    POWM52_NAME(amm_body)(r, a, b, m, k0, digits, vectors);
}

/// r = the table entry selected by `digit`, reading every entry (a masked OR over all of them).
static POWM52_ATTR void POWM52_NAME(gather)(
    c_authcore_word *r, const c_authcore_word *table, size_t entries, c_authcore_word digit, size_t vectors) {
    VEC acc[POWM52_MAX_VECTORS];
    for (size_t j = 0; j < vectors; j++) acc[j] = V_ZERO();
    for (size_t e = 0; e < entries; e++) {
#ifdef POWM52_INDEXED_GATHER_CONTROL
        // The deliberate leak `make ctgrind`'s control must catch: the entry's address from the digit.
        const VEC mask = V_BCAST(~(c_authcore_word)0);
        const c_authcore_word *entry = table + (size_t)digit * 8 * vectors;
        if (e != 0) break;
#else
        const VEC mask = V_BCAST(c_authcore_kernel_equal_mask(digit, (c_authcore_word)e));
        const c_authcore_word *entry = table + e * 8 * vectors;
#endif
        for (size_t j = 0; j < vectors; j++) acc[j] = V_OR(acc[j], V_AND(V_LOAD(entry + 8 * j), mask));
    }
    for (size_t j = 0; j < vectors; j++) V_STORE(r + 8 * j, acc[j]);
}

/// {d, 8·vectors} in radix 2^52 from {x, n} in radix 2^64 (digits past the value are zero).
static void POWM52_NAME(to_digits)(c_authcore_word *d, size_t vectors, const c_authcore_word *x, size_t n) {
    for (size_t k = 0; k < 8 * vectors; k++) {
        size_t offset = 52 * k;
        size_t limb = offset / 64;
        unsigned shift = (unsigned)(offset % 64);
        c_authcore_word low = limb < n ? x[limb] >> shift : 0;
        c_authcore_word high = (shift > 12 && limb + 1 < n) ? x[limb + 1] << (64 - shift) : 0;
        d[k] = (low | high) & POWM52_MASK;
    }
}

/// {x, n} in radix 2^64 from normalised digits {d, digits} (52·digits ≥ 64·n).
static void POWM52_NAME(from_digits)(c_authcore_word *x, size_t n, const c_authcore_word *d, size_t digits) {
    for (size_t i = 0; i < n; i++) {
        size_t offset = 64 * i;
        size_t k = offset / 52;
        unsigned shift = (unsigned)(offset % 52);
        c_authcore_word v = d[k] >> shift;
        if (k + 1 < digits) v |= d[k + 1] << (52 - shift);
        if (shift > 40 && k + 2 < digits) v |= d[k + 2] << (104 - shift);
        x[i] = v;
    }
}

/// {r, digits} − m when that is not negative, else r unchanged (for r ≤ m + m), without a branch.
static void POWM52_NAME(subtract_if_at_least)(c_authcore_word *r, const c_authcore_word *m, size_t count, c_authcore_word *t) {
    c_authcore_word borrow = 0;
    for (size_t k = 0; k < count; k++) {
        c_authcore_word d = r[k] - m[k] - borrow;
        borrow = d >> 63;
        t[k] = d & POWM52_MASK;
    }
    c_authcore_word keep_difference = borrow - 1; // all ones when r ≥ m
    __asm__("" : "+r"(keep_difference));
    for (size_t k = 0; k < count; k++) r[k] = (t[k] & keep_difference) | (r[k] & ~keep_difference);
}

/// The stack the scrub overwrites: over twice the deepest the operations reach below their entry
/// point at 3072 bits (`make stack-scrub-check` prints it: about 3 KiB optimised; 7.3 KiB
/// unoptimised, whose frames keep every temporary, with the multiplication not specialised there).
#ifdef __OPTIMIZE__
#define POWM52_SCRUB_BYTES 8192
#else
#define POWM52_SCRUB_BYTES 16384
#endif

/// Overwrites the stack the operations used (their accumulators held secrets) and the vector
/// registers. Called by each exported entry point right after its worker (never inlined into it)
/// returns, so the area starts where the worker's frame started and covers it and its callees'.
static __attribute__((noinline)) POWM52_ATTR void POWM52_NAME(scrub)(void) {
#ifndef POWM52_NO_SCRUB_CONTROL
    C_AUTHCORE_KERNEL_ZERO_STACK(POWM52_SCRUB_BYTES);
    V_SCRUB_REGISTERS();
#endif
}

/// base^e mod m; see c_authcore_powm52 in the header for the contract.
static __attribute__((noinline)) POWM52_ATTR void POWM52_NAME(powm)(
    c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp,
    const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    if (n == 0 || n > C_AUTHCORE_POWM52_MAX_LIMBS || ebits == 0) return;
    const c_authcore_word k0 = POWM52_NAME(minus_inverse)(mp[0]);
    const size_t digits = c_authcore_powm52_digits(n);
    const size_t vectors = (digits + 7) / 8;
    const size_t width = 8 * vectors;
    const unsigned window = c_authcore_powm52_window(ebits);
    const size_t entries = (size_t)1 << window;
    // The scratch from its first 64-byte boundary (the scratch has 8 words to spare): every vector
    // load is then one cache line, and the work on it (memset's included) does not vary with where
    // the caller's allocator put it.
    c_authcore_word *m = (c_authcore_word *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    c_authcore_word *rr = m + width;
    c_authcore_word *one = rr + width;
    c_authcore_word *acc = one + width;
    c_authcore_word *selected = acc + width;
    c_authcore_word *table = selected + width;

    POWM52_NAME(to_digits)(m, vectors, mp, n);
    POWM52_NAME(to_digits)(rr, vectors, rrp, n);
    for (size_t k = 0; k < width; k++) one[k] = 0;
    one[0] = 1;
    // table[d] = base^d·R mod m (below 2m): table[0] = R, table[1] = base·R.
    POWM52_NAME(amm)(table, rr, one, m, k0, digits, vectors);
    POWM52_NAME(to_digits)(selected, vectors, bp, n);
    POWM52_NAME(amm)(table + width, selected, rr, m, k0, digits, vectors);
    for (size_t d = 2; d < entries; d++)
        POWM52_NAME(amm)(table + d * width, table + (d - 1) * width, table + width, m, k0, digits, vectors);

    size_t windows = (ebits + window - 1) / window;
    POWM52_NAME(gather)(acc, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, (windows - 1) * window, window), vectors);
    for (size_t w = windows - 1; w-- > 0;) {
        for (unsigned s = 0; s < window; s++) POWM52_NAME(amm)(acc, acc, acc, m, k0, digits, vectors);
        POWM52_NAME(gather)(selected, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, w * window, window), vectors);
        POWM52_NAME(amm)(acc, acc, selected, m, k0, digits, vectors);
    }
    // Out of Montgomery form: acc·1·R⁻¹ ≤ m, then into [0, m).
    POWM52_NAME(amm)(acc, acc, one, m, k0, digits, vectors);
    POWM52_NAME(subtract_if_at_least)(acc, m, width, selected);
    POWM52_NAME(from_digits)(rp, n, acc, digits);
}

/// d = x·R mod m (below 2m) in digits, R = 2^(52·D), for any n-limb x: a table entry's form.
static __attribute__((noinline, unused)) POWM52_ATTR void POWM52_NAME(enter)(
    c_authcore_word *dp, const c_authcore_word *xp, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n,
    c_authcore_word *scratch) {
    if (n == 0 || n > C_AUTHCORE_POWM52_MAX_LIMBS) return;
    const size_t digits = c_authcore_powm52_digits(n);
    const size_t vectors = (digits + 7) / 8;
    const size_t width = 8 * vectors;
    c_authcore_word *m = (c_authcore_word *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    c_authcore_word *rr = m + width;
    c_authcore_word *x = rr + width;
    POWM52_NAME(to_digits)(m, vectors, mp, n);
    POWM52_NAME(to_digits)(rr, vectors, rrp, n);
    POWM52_NAME(to_digits)(x, vectors, xp, n);
    POWM52_NAME(amm)(dp, x, rr, m, POWM52_NAME(minus_inverse)(mp[0]), digits, vectors);
}

/// The fixed-base comb: r = (Π over i < windows of table[i][digit i of e]) · factor / R, fully
/// reduced (n limbs), where table[i][d] is g^(d·2^(window·i))·R mod m in digits (below 2m). With
/// factor = 2^(64n) mod m the result is g^e in GMP's Montgomery form. One multiplication and one
/// full-table gather per window; nothing depends on e but through the gathers' masks.
static __attribute__((noinline, unused)) POWM52_ATTR void POWM52_NAME(comb)(
    c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window, const c_authcore_word *ep,
    size_t ebits, const c_authcore_word *mp, const c_authcore_word *factorp, size_t n, c_authcore_word *scratch) {
    if (n == 0 || n > C_AUTHCORE_POWM52_MAX_LIMBS || windows == 0 || window == 0 || window > 7) return;
    const c_authcore_word k0 = POWM52_NAME(minus_inverse)(mp[0]);
    const size_t digits = c_authcore_powm52_digits(n);
    const size_t vectors = (digits + 7) / 8;
    const size_t width = 8 * vectors;
    const size_t entries = (size_t)1 << window;
    c_authcore_word *m = (c_authcore_word *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    c_authcore_word *factor = m + width;
    c_authcore_word *acc = factor + width;
    c_authcore_word *selected = acc + width;
    POWM52_NAME(to_digits)(m, vectors, mp, n);
    POWM52_NAME(to_digits)(factor, vectors, factorp, n);
    POWM52_NAME(gather)(acc, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, 0, window), vectors);
    for (size_t i = 1; i < windows; i++) {
        POWM52_NAME(gather)(
            selected, table + i * entries * width, entries, c_authcore_kernel_exponent_digit(ep, ebits, i * window, window), vectors);
        POWM52_NAME(amm)(acc, acc, selected, m, k0, digits, vectors);
    }
    POWM52_NAME(amm)(acc, acc, factor, m, k0, digits, vectors);
    POWM52_NAME(subtract_if_at_least)(acc, m, width, selected);
    POWM52_NAME(from_digits)(rp, n, acc, digits);
}

// The exported entry points, named by the includer's POWM52_PUBLIC(name) (name + the compilation's
// suffix); the contracts are in CAuthCoreBigNum_powm52.h.
void POWM52_PUBLIC(c_authcore_powm52)(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep,
    size_t ebits, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    POWM52_NAME(powm)(rp, bp, ep, ebits, mp, rrp, n, scratch);
    POWM52_NAME(scrub)();
}

#ifndef POWM52_INDEXED_GATHER_CONTROL
void POWM52_PUBLIC(c_authcore_powm52_enter)(c_authcore_word *dp, const c_authcore_word *xp, const c_authcore_word *mp,
    const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    POWM52_NAME(enter)(dp, xp, mp, rrp, n, scratch);
    POWM52_NAME(scrub)();
}

void POWM52_PUBLIC(c_authcore_comb52)(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *factorp, size_t n,
    c_authcore_word *scratch) {
    POWM52_NAME(comb)(rp, table, windows, window, ep, ebits, mp, factorp, n, scratch);
    POWM52_NAME(scrub)();
}
#endif
