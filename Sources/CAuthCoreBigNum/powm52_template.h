// The constant-time exponentiation kernel's algorithm, written once over an 8-lane vector of 64-bit
// lanes and compiled twice: with AVX-512 IFMA instructions (powm52_ifma.c) and with portable C that
// models each instruction lane by lane (powm52_portable.c). Both compilations run the same loops over
// the same public counts and read the same addresses, so the portable one — which valgrind can run —
// is what `make ctgrind` checks for the algorithm, and the differential tests hold both to `mpz_powm`.
//
// The includer defines VEC and the V_* operations, POWM52_ATTR (function attributes) and
// POWM52_NAME(x) (the file's prefix), and may define POWM52_AMM_SPECIALISED to specialise the
// multiplication per vector count.
//
// Arithmetic: radix 2^52 digits in 64-bit lanes, Montgomery multiplication word by word (HAC 14.36)
// with R = 2^(52·D), the almost-Montgomery form of Gueron and Krasnov ("Accelerating Big Integer
// Arithmetic Using Intel IFMA Extensions", ARITH 2016): products stay below 2m when their inputs are
// below 2m and 4m ≤ R, so no conditional subtraction happens inside the exponentiation; one at the
// end brings the result below m. Exponentiation: left-to-right fixed windows, every table entry read
// for every digit (a masked OR), no branch or address on a secret.

#include <stddef.h>
#include <stdint.h>

#include "CAuthCoreBigNum_powm52.h"

#define POWM52_MASK ((uint64_t)0xFFFFFFFFFFFFFull)

/// −m0⁻¹ mod 2^52 for odd m0 (Newton's iteration doubles the correct bits: 3, 6, …, 96).
static inline uint64_t POWM52_NAME(minus_inverse)(uint64_t m0) {
    uint64_t inverse = m0;
    for (int i = 0; i < 5; i++) inverse *= 2 - m0 * inverse;
    return ((uint64_t)0 - inverse) & POWM52_MASK;
}

/// All ones when `a == b`, else zero, with no branch (the empty asm keeps the optimiser from
/// turning the mask back into a comparison and a jump).
static inline uint64_t POWM52_NAME(equal_mask)(uint64_t a, uint64_t b) {
    uint64_t x = a ^ b;
    uint64_t nonzero = (x | ((uint64_t)0 - x)) >> 63;
    __asm__("" : "+r"(nonzero));
    return nonzero - 1;
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
    uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t k0, size_t digits,
    size_t vectors) {
    VEC acc[POWM52_MAX_VECTORS];
    for (size_t j = 0; j < vectors; j++) acc[j] = V_ZERO();
    const uint64_t a0 = a[0];
    const uint64_t m0 = m[0];
    for (size_t i = 0; i < digits; i++) {
        const uint64_t bi = b[i];
        const uint64_t t0 = V_LANE0(acc[0]) + ((a0 * bi) & POWM52_MASK);
        const uint64_t q = (t0 * k0) & POWM52_MASK;
        const uint64_t carry = (t0 + ((m0 * q) & POWM52_MASK)) >> 52;
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
    uint64_t carry = 0;
    for (size_t k = 0; k < 8 * vectors; k++) {
        uint64_t t = r[k] + carry;
        r[k] = t & POWM52_MASK;
        carry = t >> 52;
    }
}

/// The multiplication, specialised (with POWM52_AMM_SPECIALISED) for the vector counts of the
/// RFC 5054 groups and 1024-bit moduli, so that the accumulator lives in registers; any other count
/// takes the same code with the count at run time.
static POWM52_ATTR void POWM52_NAME(amm)(
    uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t k0, size_t digits,
    size_t vectors) {
#ifdef POWM52_AMM_SPECIALISED
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
    uint64_t *r, const uint64_t *table, size_t entries, uint64_t digit, size_t vectors) {
    VEC acc[POWM52_MAX_VECTORS];
    for (size_t j = 0; j < vectors; j++) acc[j] = V_ZERO();
    for (size_t e = 0; e < entries; e++) {
#ifdef POWM52_INDEXED_GATHER_CONTROL
        // The deliberate leak `make ctgrind`'s control must catch: the entry's address from the digit.
        const VEC mask = V_BCAST(~(uint64_t)0);
        const uint64_t *entry = table + (size_t)digit * 8 * vectors;
        if (e != 0) break;
#else
        const VEC mask = V_BCAST(POWM52_NAME(equal_mask)(digit, (uint64_t)e));
        const uint64_t *entry = table + e * 8 * vectors;
#endif
        for (size_t j = 0; j < vectors; j++) acc[j] = V_OR(acc[j], V_AND(V_LOAD(entry + 8 * j), mask));
    }
    for (size_t j = 0; j < vectors; j++) V_STORE(r + 8 * j, acc[j]);
}

/// {d, 8·vectors} in radix 2^52 from {x, n} in radix 2^64 (digits past the value are zero).
static void POWM52_NAME(to_digits)(uint64_t *d, size_t vectors, const uint64_t *x, size_t n) {
    for (size_t k = 0; k < 8 * vectors; k++) {
        size_t offset = 52 * k;
        size_t limb = offset / 64;
        unsigned shift = (unsigned)(offset % 64);
        uint64_t low = limb < n ? x[limb] >> shift : 0;
        uint64_t high = (shift > 12 && limb + 1 < n) ? x[limb + 1] << (64 - shift) : 0;
        d[k] = (low | high) & POWM52_MASK;
    }
}

/// {x, n} in radix 2^64 from normalised digits {d, digits} (52·digits ≥ 64·n).
static void POWM52_NAME(from_digits)(uint64_t *x, size_t n, const uint64_t *d, size_t digits) {
    for (size_t i = 0; i < n; i++) {
        size_t offset = 64 * i;
        size_t k = offset / 52;
        unsigned shift = (unsigned)(offset % 52);
        uint64_t v = d[k] >> shift;
        if (k + 1 < digits) v |= d[k + 1] << (52 - shift);
        if (shift > 40 && k + 2 < digits) v |= d[k + 2] << (104 - shift);
        x[i] = v;
    }
}

/// The `width`-bit digit of the exponent at bit `offset`, with bits from `bits` up read as zero. The
/// offset is public; the digit's value is read with shifts and masks only.
static uint64_t POWM52_NAME(exponent_digit)(
    const uint64_t *e, size_t bits, size_t offset, unsigned width) {
    size_t limbs = (bits + 63) / 64;
    size_t limb = offset / 64;
    unsigned shift = (unsigned)(offset % 64);
    uint64_t low = limb < limbs ? e[limb] >> shift : 0;
    uint64_t high = (shift != 0 && limb + 1 < limbs) ? e[limb + 1] << (64 - shift) : 0;
    size_t available = bits > offset ? bits - offset : 0;
    uint64_t keep = available >= width ? (((uint64_t)1 << width) - 1) : (((uint64_t)1 << available) - 1);
    return (low | high) & keep;
}

/// {r, digits} − m when that is not negative, else r unchanged (for r ≤ m + m), without a branch.
static void POWM52_NAME(subtract_if_at_least)(uint64_t *r, const uint64_t *m, size_t count, uint64_t *t) {
    uint64_t borrow = 0;
    for (size_t k = 0; k < count; k++) {
        uint64_t d = r[k] - m[k] - borrow;
        borrow = d >> 63;
        t[k] = d & POWM52_MASK;
    }
    uint64_t keep_difference = borrow - 1; // all ones when r ≥ m
    __asm__("" : "+r"(keep_difference));
    for (size_t k = 0; k < count; k++) r[k] = (t[k] & keep_difference) | (r[k] & ~keep_difference);
}

/// base^e mod m; see c_authcore_powm52 in the header for the contract.
static POWM52_ATTR void POWM52_NAME(powm)(
    uint64_t *rp, const uint64_t *bp, const uint64_t *ep, size_t ebits, const uint64_t *mp,
    const uint64_t *rrp, size_t n, uint64_t *scratch) {
    const uint64_t k0 = POWM52_NAME(minus_inverse)(mp[0]);
    const size_t digits = c_authcore_powm52_digits(n);
    const size_t vectors = (digits + 7) / 8;
    const size_t width = 8 * vectors;
    const unsigned window = c_authcore_powm52_window(ebits);
    const size_t entries = (size_t)1 << window;
    uint64_t *m = scratch;
    uint64_t *rr = m + width;
    uint64_t *one = rr + width;
    uint64_t *acc = one + width;
    uint64_t *selected = acc + width;
    uint64_t *table = selected + width;

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
    POWM52_NAME(gather)(acc, table, entries, POWM52_NAME(exponent_digit)(ep, ebits, (windows - 1) * window, window), vectors);
    for (size_t w = windows - 1; w-- > 0;) {
        for (unsigned s = 0; s < window; s++) POWM52_NAME(amm)(acc, acc, acc, m, k0, digits, vectors);
        POWM52_NAME(gather)(selected, table, entries, POWM52_NAME(exponent_digit)(ep, ebits, w * window, window), vectors);
        POWM52_NAME(amm)(acc, acc, selected, m, k0, digits, vectors);
    }
    // Out of Montgomery form: acc·1·R⁻¹ ≤ m, then into [0, m).
    POWM52_NAME(amm)(acc, acc, one, m, k0, digits, vectors);
    POWM52_NAME(subtract_if_at_least)(acc, m, width, selected);
    POWM52_NAME(from_digits)(rp, n, acc, digits);
}
