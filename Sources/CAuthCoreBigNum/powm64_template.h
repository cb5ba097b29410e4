// The 64-bit-limb kernel's algorithm, compiled twice by powm64.c: the kernel, and (with
// POWM64_INDEXED_GATHER_CONTROL) the ctgrind control whose gather reads the entry the exponent names.
// The includer defines POWM64_NAME(x) (the prefix of its static functions) and POWM64_PUBLIC (the
// exported exponentiation's name), and POWM64_COMB_PUBLIC (the comb's) when it exports the comb.
//
// Arithmetic: radix 2^64, R = 2^(64·n). Montgomery multiplication as a product (or a square, each
// off-diagonal product once) by rows of MULX with two carry chains (ADCX, ADOX), then REDC (Koç,
// Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication Algorithms", IEEE Micro 1996:
// the "SOS" method). With inputs below m (or one below R and the other below m)
// the result is below 2m; one conditional subtraction, by masks, brings each product below m.
// Exponentiation: left-to-right fixed windows, every table entry read for every digit (a masked
// OR), no branch or address on a secret.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "CAuthCoreBigNum_powm64.h"
#include "kernel_shared.h"

/// r = {t, n + 1} − m when that is not negative, else {t, n} (for t < 2m), with no branch: the
/// difference (into `difference`, n words) by one SBB chain, kept when t's top word is set or the
/// n-word subtraction did not borrow.
static inline void POWM64_NAME(reduce_once)(
    c_authcore_word *r, const c_authcore_word *t, const c_authcore_word *m, size_t n, c_authcore_word *difference) {
    c_authcore_word borrow, word;
    const c_authcore_word *tp = t, *mp = m;
    c_authcore_word *dp = difference;
    size_t count = n;
    __asm__ volatile(
        "xor %k[word], %k[word]\n\t" // CF = 0
        "jrcxz 2f\n\t"
        "1:\n\t"
        "mov (%[t]), %[word]\n\t"
        "sbb (%[m]), %[word]\n\t"
        "mov %[word], (%[d])\n\t"
        "lea 8(%[t]), %[t]\n\t"
        "lea 8(%[m]), %[m]\n\t"
        "lea 8(%[d]), %[d]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jrcxz 2f\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        "mov $0, %k[borrow]\n\t"
        "adc $0, %[borrow]\n\t"
        : [borrow] "=&r"(borrow), [word] "=&r"(word), [t] "+r"(tp), [m] "+r"(mp), [d] "+r"(dp), "+c"(count)
        :
        : "cc", "memory");
    c_authcore_word keep_difference = (t[n] | (borrow ^ 1)) & 1;
    __asm__("" : "+r"(keep_difference));
    keep_difference = (c_authcore_word)0 - keep_difference;
    for (size_t k = 0; k < n; k++) r[k] = (difference[k] & keep_difference) | (t[k] & ~keep_difference);
}

/// t[0..n) += x·y[0..n), returning the word carried out of t[n − 1]. MULX for the products, two
/// carry chains: ADOX adds the row's old words, ADCX the previous product's high word, so neither
/// chain waits on the other. One, two and four steps first as n's low bits say (no loop), then
/// eight at a time; the branches test RCX with JRCXZ and the loop counts with LEA, which leave both
/// flags alone. The steps depend on n only.
static inline c_authcore_word POWM64_NAME(addmul_row)(
    c_authcore_word *t, const c_authcore_word *y, size_t n, c_authcore_word x) {
    c_authcore_word carry, low, high;
    __asm__ volatile(
#define POWM64_STEP(off, hin, hout) \
        "mulx " #off "(%[y]), %[low], %[" #hout "]\n\t" \
        "adox " #off "(%[t]), %[low]\n\t" \
        "adcx %[" #hin "], %[low]\n\t" \
        "mov %[low], " #off "(%[t])\n\t"
        "xor %k[carry], %k[carry]\n\t" // carry = 0; CF = OF = 0
        "mov %[one], %%rcx\n\t"
        "jrcxz 1f\n\t"
        POWM64_STEP(0, carry, high)
        "mov %[high], %[carry]\n\t"
        "lea 8(%[y]), %[y]\n\t"
        "lea 8(%[t]), %[t]\n\t"
        "1:\n\t"
        "mov %[two], %%rcx\n\t"
        "jrcxz 1f\n\t"
        POWM64_STEP(0, carry, high) POWM64_STEP(8, high, carry)
        "lea 16(%[y]), %[y]\n\t"
        "lea 16(%[t]), %[t]\n\t"
        "1:\n\t"
        "mov %[four], %%rcx\n\t"
        "jrcxz 1f\n\t"
        POWM64_STEP(0, carry, high) POWM64_STEP(8, high, carry) POWM64_STEP(16, carry, high) POWM64_STEP(24, high, carry)
        "lea 32(%[y]), %[y]\n\t"
        "lea 32(%[t]), %[t]\n\t"
        "1:\n\t"
        "mov %[eights], %%rcx\n\t"
        "jmp 5f\n\t"
        "4:\n\t"
        POWM64_STEP(0, carry, high) POWM64_STEP(8, high, carry) POWM64_STEP(16, carry, high) POWM64_STEP(24, high, carry)
        POWM64_STEP(32, carry, high) POWM64_STEP(40, high, carry) POWM64_STEP(48, carry, high) POWM64_STEP(56, high, carry)
        "lea 64(%[y]), %[y]\n\t"
        "lea 64(%[t]), %[t]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "5:\n\t"
        "jrcxz 2f\n\t"
        "jmp 4b\n\t"
        "2:\n\t"
        "mov $0, %k[low]\n\t" // MOV leaves the flags: the chains' last carries go into the high word
        "adcx %[low], %[carry]\n\t"
        "adox %[low], %[carry]\n\t"
#undef POWM64_STEP
        : [carry] "=&r"(carry), [low] "=&r"(low), [high] "=&r"(high), [t] "+r"(t), [y] "+r"(y)
        : "d"(x), [one] "r"(n & 1), [two] "r"(n & 2), [four] "r"(n & 4), [eights] "r"(n >> 3)
        : "rcx", "cc", "memory");
    return carry;
}

/// t[0..2n) = 2·t + Σ a_i²·2^(128i), for a result below 2^(128n) (a square's off-diagonal sum and
/// its diagonal). Two carry chains: ADCX doubles each word with the bit shifted out of the one
/// below (x + x + CF), ADOX adds the squares' words.
static inline void POWM64_NAME(double_add_squares)(c_authcore_word *t, const c_authcore_word *a, size_t n) {
    c_authcore_word low, high, x0, x1;
    size_t count = n;
    __asm__ volatile(
        "xor %k[low], %k[low]\n\t" // CF = OF = 0
        "jrcxz 2f\n\t"
        "1:\n\t"
        "mov (%[a]), %%rdx\n\t"
        "mulx %%rdx, %[low], %[high]\n\t"
        "mov (%[t]), %[x0]\n\t"
        "mov 8(%[t]), %[x1]\n\t"
        "adcx %[x0], %[x0]\n\t"
        "adcx %[x1], %[x1]\n\t"
        "adox %[low], %[x0]\n\t"
        "adox %[high], %[x1]\n\t"
        "mov %[x0], (%[t])\n\t"
        "mov %[x1], 8(%[t])\n\t"
        "lea 8(%[a]), %[a]\n\t"
        "lea 16(%[t]), %[t]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jrcxz 2f\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        : [low] "=&r"(low), [high] "=&r"(high), [x0] "=&r"(x0), [x1] "=&r"(x1), [t] "+r"(t), [a] "+r"(a), "+c"(count)
        :
        : "rdx", "cc", "memory");
}

/// t[0..n) += x[0..n), returning the carry out (0 or 1): one ADC chain (LEA and JRCXZ leave CF
/// alone).
static inline c_authcore_word POWM64_NAME(add_in_place)(c_authcore_word *t, const c_authcore_word *x, size_t n) {
    c_authcore_word carry, word;
    size_t count = n;
    __asm__ volatile(
        "xor %k[word], %k[word]\n\t" // CF = 0
        "jrcxz 2f\n\t"
        "1:\n\t"
        "mov (%[x]), %[word]\n\t"
        "adc %[word], (%[t])\n\t"
        "lea 8(%[t]), %[t]\n\t"
        "lea 8(%[x]), %[x]\n\t"
        "lea -1(%%rcx), %%rcx\n\t"
        "jrcxz 2f\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        "mov $0, %k[carry]\n\t"
        "adc $0, %[carry]\n\t"
        : [carry] "=&r"(carry), [word] "=&r"(word), [t] "+r"(t), [x] "+r"(x), "+c"(count)
        :
        : "cc", "memory");
    return carry;
}

/// r = (t + q·m)/R mod m, below m, for t (2n words) below m·R, q chosen word by word (REDC, HAC
/// 14.32, with GMP's deferral of each row's carry: it is stored in the word the row zeroed, and all
/// of them are added to the high half at the end). Overwrites t.
static void POWM64_NAME(redc)(
    c_authcore_word *r, c_authcore_word *t, const c_authcore_word *m, c_authcore_word k0, size_t n) {
    for (size_t i = 0; i < n; i++) t[i] = POWM64_NAME(addmul_row)(t + i, m, n, t[i] * k0);
    t[2 * n] = POWM64_NAME(add_in_place)(t + n, t, n); // the sum is below 2m: one bit above the high half
    POWM64_NAME(reduce_once)(r, t + n, m, n, t);
}

/// r = a·b·R⁻¹ mod m, below m, for a below R and b below m (or a below m and b below R); r may
/// alias a or b. `t` (2n + 1 words) is scratch; `k0` = −m⁻¹ mod 2^64. The product by rows, then
/// REDC: 2n² word products.
static void POWM64_NAME(multiply)(c_authcore_word *r, const c_authcore_word *a, const c_authcore_word *b,
    const c_authcore_word *m, c_authcore_word k0, size_t n, c_authcore_word *t) {
    for (size_t k = 0; k < n; k++) t[k] = 0;
    for (size_t i = 0; i < n; i++) t[n + i] = POWM64_NAME(addmul_row)(t + i, b, n, a[i]);
    POWM64_NAME(redc)(r, t, m, k0, n);
}

/// r = a²·R⁻¹ mod m, below m, for a below m; r may alias a. Scratch as for `multiply`. Each
/// off-diagonal product a_i·a_j (i < j) once, by rows; the sum doubled and the squares a_i² added
/// in one pass; then REDC: 1.5n² word products where a multiplication has 2n².
static void POWM64_NAME(square)(
    c_authcore_word *r, const c_authcore_word *a, const c_authcore_word *m, c_authcore_word k0, size_t n, c_authcore_word *t) {
    for (size_t k = 0; k < 2 * n; k++) t[k] = 0;
    // Row i adds a_i·a[i+1..n) at word 2i + 1; its carry lands in word i + n, which no row has
    // written yet.
    for (size_t i = 0; i + 1 < n; i++) t[i + n] = POWM64_NAME(addmul_row)(t + 2 * i + 1, a + i + 1, n - 1 - i, a[i]);
    POWM64_NAME(double_add_squares)(t, a, n);
    // a² < R²: nothing is carried or shifted out of the 2n words.
    POWM64_NAME(redc)(r, t, m, k0, n);
}

/// r = the table entry selected by `digit`, reading every entry (a masked OR over all of them).
static void POWM64_NAME(gather)(
    c_authcore_word *r, const c_authcore_word *table, size_t entries, c_authcore_word digit, size_t n) {
    for (size_t k = 0; k < n; k++) r[k] = 0;
    for (size_t e = 0; e < entries; e++) {
#ifdef POWM64_INDEXED_GATHER_CONTROL
        // The deliberate leak `make ctgrind`'s control must catch: the entry's address from the digit.
        const c_authcore_word mask = ~(c_authcore_word)0;
        const c_authcore_word *entry = table + (size_t)digit * n;
        if (e != 0) break;
#else
        const c_authcore_word mask = c_authcore_kernel_equal_mask(digit, (c_authcore_word)e);
        const c_authcore_word *entry = table + e * n;
#endif
        for (size_t k = 0; k < n; k++) r[k] |= entry[k] & mask;
    }
}

/// The stack the scrub overwrites: over twice the deepest the operations reach below their entry
/// point (a few hundred bytes optimised; more unoptimised, whose frames keep every temporary).
#ifdef __OPTIMIZE__
#define POWM64_SCRUB_BYTES 2048
#else
#define POWM64_SCRUB_BYTES 8192
#endif

/// Overwrites the stack the operations used (their words held secrets) and the vector registers
/// (the compiler vectorises the selects and copies: XMM0-15, the SSE registers baseline x86-64 code
/// uses). Called by the exported entry point right after its worker (never inlined into it)
/// returns, so the area starts where the worker's frame started and covers it and its callees'.
static __attribute__((noinline)) void POWM64_NAME(scrub)(void) {
#ifndef POWM64_NO_SCRUB_CONTROL
    C_AUTHCORE_KERNEL_ZERO_STACK(POWM64_SCRUB_BYTES);
    c_authcore_kernel_clear_sse_registers();
#endif
}

/// base^e mod m; see c_authcore_powm64 in the header for the contract.
static __attribute__((noinline)) void POWM64_NAME(powm)(c_authcore_word *rp, const c_authcore_word *bp,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *m, const c_authcore_word *rr, size_t n,
    c_authcore_word *scratch) {
    if (n == 0 || n > C_AUTHCORE_POWM64_MAX_LIMBS || ebits == 0) return;
    const c_authcore_word k0 = c_authcore_kernel_minus_inverse(m[0]);
    const unsigned window = c_authcore_powm52_window(ebits);
    const size_t entries = (size_t)1 << window;
    c_authcore_word *one = scratch;
    c_authcore_word *acc = one + n;
    c_authcore_word *selected = acc + n;
    c_authcore_word *t = selected + n;      // 2n + 1 words
    c_authcore_word *table = t + 2 * n + 1; // entries · n words

    for (size_t k = 0; k < n; k++) one[k] = 0;
    one[0] = 1;
    // table[d] = base^d·R mod m, below m: table[0] = R mod m, table[1] = base·R mod m.
    POWM64_NAME(multiply)(table, rr, one, m, k0, n, t);
    POWM64_NAME(multiply)(table + n, bp, rr, m, k0, n, t);
    for (size_t d = 2; d < entries; d++) {
        if ((d & 1) == 0) {
            POWM64_NAME(square)(table + d * n, table + (d / 2) * n, m, k0, n, t);
        } else {
            POWM64_NAME(multiply)(table + d * n, table + (d - 1) * n, table + n, m, k0, n, t);
        }
    }

    size_t windows = (ebits + window - 1) / window;
    POWM64_NAME(gather)(acc, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, (windows - 1) * window, window), n);
    for (size_t w = windows - 1; w-- > 0;) {
        for (unsigned s = 0; s < window; s++) POWM64_NAME(square)(acc, acc, m, k0, n, t);
        POWM64_NAME(gather)(selected, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, w * window, window), n);
        POWM64_NAME(multiply)(acc, acc, selected, m, k0, n, t);
    }
    // Out of Montgomery form: acc·1·R⁻¹, below m.
    POWM64_NAME(multiply)(rp, acc, one, m, k0, n, t);
}

/// The fixed-base comb on Montgomery-form entries (R = 2^(64·n), the kernel's form and GMP's):
/// r = the product of table[i][digit i of e] over i < windows, kept in Montgomery form (each
/// multiplication divides by R once). Entries below R give products below R (REDC's sum is below
/// R + m, and the one subtraction takes m off whenever it is at least m), congruent, not
/// necessarily below m. One multiplication and one full-table gather per window; nothing depends
/// on e but through the gathers' masks.
static __attribute__((noinline, unused)) void POWM64_NAME(comb)(c_authcore_word *rp, const c_authcore_word *table,
    size_t windows, unsigned window, const c_authcore_word *ep, size_t ebits, const c_authcore_word *m, size_t n,
    c_authcore_word *scratch) {
    if (n == 0 || n > C_AUTHCORE_POWM64_MAX_LIMBS || windows == 0 || window == 0 || window > 7) return;
    const c_authcore_word k0 = c_authcore_kernel_minus_inverse(m[0]);
    const size_t entries = (size_t)1 << window;
    c_authcore_word *acc = scratch;
    c_authcore_word *selected = acc + n;
    c_authcore_word *t = selected + n; // 2n + 1 words
    POWM64_NAME(gather)(acc, table, entries, c_authcore_kernel_exponent_digit(ep, ebits, 0, window), n);
    for (size_t i = 1; i < windows; i++) {
        POWM64_NAME(gather)(
            selected, table + i * entries * n, entries, c_authcore_kernel_exponent_digit(ep, ebits, i * window, window), n);
        POWM64_NAME(multiply)(acc, acc, selected, m, k0, n, t);
    }
    for (size_t k = 0; k < n; k++) rp[k] = acc[k];
}

void POWM64_PUBLIC(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    POWM64_NAME(powm)(rp, bp, ep, ebits, mp, rrp, n, scratch);
    POWM64_NAME(scrub)();
}

#ifdef POWM64_COMB_PUBLIC
void POWM64_COMB_PUBLIC(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, size_t n, c_authcore_word *scratch) {
    POWM64_NAME(comb)(rp, table, windows, window, ep, ebits, mp, n, scratch);
    POWM64_NAME(scrub)();
}
#endif
