// The secret-power kernels leave nothing of a secret on the stack (`make stack-scrub-check`).
//
// Each exported entry point (the exponentiation, the comb, a table entry's conversion; IFMA where
// the processor has it, and the portable twin; the 64-bit-limb exponentiation and comb where the
// processor has BMI2 and ADX) runs twice on the same public inputs with different
// secrets, each time on stack memory painted with one pattern below the caller; the two snapshots
// taken afterwards must be identical: any byte that differs is something the run left behind that
// depends on a secret. The check is built twice, unoptimised and optimised (the C flags SwiftPM
// uses for debug and release builds), since the frames differ; built with
// -DPOWM52_NO_SCRUB_CONTROL -DPOWM64_NO_SCRUB_CONTROL (the scrubs compiled out) the
// exponentiations must be caught instead, or the check proves nothing. GMP only prepares the inputs.
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CAuthCoreBigNum_powm52.h"
#include "CAuthCoreBigNum_powm64.h"

typedef c_authcore_word word;

enum { depth = 192 * 1024, gap = 1024 }; // the checked stack: from `gap` to `depth` below the caller
static unsigned char *top;

__attribute__((noinline)) static void paint(void) {
    for (size_t i = gap; i < depth; i++) ((volatile unsigned char *)top)[-(long)i] = 0xA5;
}

__attribute__((noinline)) static void snapshot(unsigned char *out) {
    for (size_t i = gap; i < depth; i++) out[i] = ((volatile unsigned char *)top)[-(long)i];
}

/// The 64-bit-limb kernel from 4 KiB further down: its frames (a few hundred bytes) would
/// otherwise sit inside the unchecked `gap` below the caller.
__attribute__((noinline)) static void powm64_below_gap(word *out, const word *base, const word *exponent, size_t ebits,
    const word *modulus, const word *rr64, size_t n, word *scratch) {
    unsigned char pad[4096];
    __asm__ volatile("" : : "r"(pad) : "memory"); // the whole array is on the stack
    c_authcore_powm64(out, base, exponent, ebits, modulus, rr64, n, scratch);
    __asm__ volatile("" : : "r"(pad) : "memory");
}

/// The 64-bit-limb kernel's comb, from as far down (as `powm64_below_gap`).
__attribute__((noinline)) static void comb64_below_gap(word *out, const word *table, size_t windows, unsigned window,
    const word *exponent, size_t ebits, const word *modulus, size_t n, word *scratch) {
    unsigned char pad[4096];
    __asm__ volatile("" : : "r"(pad) : "memory");
    c_authcore_comb64(out, table, windows, window, exponent, ebits, modulus, n, scratch);
    __asm__ volatile("" : : "r"(pad) : "memory");
}

static word *limbs(mpz_t value, size_t n) {
    word *out = calloc(n, sizeof(word));
    mpz_export(out, NULL, -1, sizeof(word), 0, 0, value);
    return out;
}

int main(int argc, char **argv) {
    int control = argc > 1 && strcmp(argv[1], "--control") == 0;
    const size_t bits = 3072, n = 48, ebits = 513, combBits = 256;
    const unsigned window = 5;
    gmp_randstate_t random;
    gmp_randinit_default(random);
    gmp_randseed_ui(random, 0x5C0B);
    mpz_t m, square, r64, square64, value;
    mpz_inits(m, square, r64, square64, value, NULL);
    mpz_urandomb(m, random, bits);
    mpz_setbit(m, bits - 1);
    mpz_setbit(m, 0);
    size_t digits = c_authcore_powm52_digits(n), width = c_authcore_powm52_width(n);
    mpz_setbit(square, 2 * 52 * digits);
    mpz_mod(square, square, m);
    mpz_setbit(r64, 64 * n);
    mpz_mod(r64, r64, m);
    mpz_setbit(square64, 128 * n);
    mpz_mod(square64, square64, m);
    word *modulus = limbs(m, n), *rr = limbs(square, n), *factor = limbs(r64, n), *rr64 = limbs(square64, n);
    word *bases[2], *exponents[2];
    for (int k = 0; k < 2; k++) {
        mpz_urandomm(value, random, m);
        bases[k] = limbs(value, n);
        mpz_urandomb(value, random, ebits);
        exponents[k] = limbs(value, (ebits + 63) / 64 + 1);
    }
    size_t windows = (combBits + window - 1) / window;
    word *table = aligned_alloc(64, windows * 32 * width * sizeof(word));
    for (size_t i = 0; i < windows * 32 * width; i++) table[i] = (word)rand() & 0xFFFFFFFFFFFFFull;
    // The 64-bit-limb comb's entries: n limbs each, below m (the top limb zero, m's top bit set).
    word *table64 = calloc(windows * 32 * n, sizeof(word));
    for (size_t i = 0; i < windows * 32 * n; i++) table64[i] = i % n == n - 1 ? 0 : ((word)rand() << 33) ^ (word)rand();
    size_t scratchWords =
        c_authcore_powm52_scratch_limbs(n, ebits) + c_authcore_comb52_scratch_limbs(n) + c_authcore_powm64_scratch_limbs(n, ebits) +
        c_authcore_comb64_scratch_limbs(n);
    word *scratch = calloc(scratchWords, sizeof(word)), *out = calloc(width + 8, sizeof(word));
    word *base = calloc(n, sizeof(word)), *exponent = calloc((ebits + 63) / 64 + 1, sizeof(word));
    unsigned char *snapshots[2] = {calloc(depth, 1), calloc(depth, 1)};
    __asm__ volatile("mov %%rsp, %0" : "=r"(top));

    const char *names[] = {
        "powm52_ifma", "powm52_portable", "comb52_ifma", "comb52_portable", "enter_ifma", "enter_portable", "powm64", "comb64"};
    int failed = 0, checked = 0;
    if (control) printf("stack-scrub: the control build (scrub compiled out): the exponentiation must be caught\n");
    for (int which = 0; which < 8; which++) {
        if (which < 6 && which % 2 == 0 && !c_authcore_powm52_ifma_available()) continue;
        if (which >= 6 && !c_authcore_powm64_available()) continue;
        for (int k = 0; k < 2; k++) {
            memcpy(base, bases[k], n * sizeof(word));
            memcpy(exponent, exponents[k], ((ebits + 63) / 64 + 1) * sizeof(word));
            memset(scratch, 0, scratchWords * sizeof(word));
            paint();
            switch (which) {
            case 0: c_authcore_powm52_ifma(out, base, exponent, ebits, modulus, rr, n, scratch); break;
            case 1: c_authcore_powm52_portable(out, base, exponent, ebits, modulus, rr, n, scratch); break;
            case 2: c_authcore_comb52_ifma(out, table, windows, window, exponent, combBits, modulus, factor, n, scratch); break;
            case 3: c_authcore_comb52_portable(out, table, windows, window, exponent, combBits, modulus, factor, n, scratch); break;
            case 4: c_authcore_powm52_enter_ifma(out, base, modulus, rr, n, scratch); break;
            case 5: c_authcore_powm52_enter_portable(out, base, modulus, rr, n, scratch); break;
            case 6: powm64_below_gap(out, base, exponent, ebits, modulus, rr64, n, scratch); break;
            default: comb64_below_gap(out, table64, windows, window, exponent, combBits, modulus, n, scratch); break;
            }
            snapshot(snapshots[k]);
        }
        long differing = 0, deepestTouched = 0;
        for (size_t i = gap; i < depth; i++) {
            if (snapshots[0][i] != 0xA5) deepestTouched = (long)i;
            if (snapshots[0][i] != snapshots[1][i]) differing++;
        }
        checked++;
        int caught = differing > 0;
        printf("stack-scrub %s: %ld secret-dependent bytes left (stack used to %ld bytes below the caller)\n", names[which], differing,
               deepestTouched);
        // The control must catch the exponentiations: the radix-2^52 kernels' gathered entries and
        // accumulators are on the stack without the scrub, and so are the 64-bit-limb kernel's
        // spilled words unoptimised (its exponentiation's and its comb's). Optimised, that kernel keeps its secrets in registers and the
        // scratch (what its control then shows is the harness's own saved registers), and an IFMA
        // comb may keep everything in registers.
#ifdef __OPTIMIZE__
        const int powm64MustBeCaught = 0; // optimised, its secrets stay in registers even without the scrub
#else
        const int powm64MustBeCaught = 1;
#endif
        if (control ? (!caught && (which <= 1 || (which >= 6 && powm64MustBeCaught))) : caught) failed = 1;
        if (deepestTouched > depth - 4096) {
            printf("stack-scrub: %s reached the end of the checked %d bytes: the check cannot see all it used\n", names[which], depth);
            failed = 1;
        }
    }
    printf("stack-scrub: %s\n", failed ? "FAILED" : control ? "the control caught" : "no secret left by any entry point");
    return failed || checked == 0;
}
