// The floor of the 64-bit-limb kernel's instruction mix (issue 42): its row steps with nothing else.
#include "CAuthCoreBaselines.h"

#include "CAuthCoreBigNum_powm52.h"

size_t c_authcore_baseline_powm64_row_steps(size_t n, size_t ebits) {
    if (n == 0 || ebits == 0) return 0;
    // powm64_template.h's schedule: the table (entries 0 and 1 by multiplication, then even entries
    // by squaring and odd ones by multiplication), then per window after the first `window` squarings
    // and one multiplication, then one multiplication out of Montgomery form.
    const size_t window = c_authcore_powm52_window(ebits);
    const size_t entries = (size_t)1 << window;
    const size_t windows = (ebits + window - 1) / window;
    const size_t table_squares = entries / 2 - 1, table_multiplies = entries / 2 - 1;
    const size_t squares = table_squares + (windows - 1) * window;
    const size_t multiplies = 2 + table_multiplies + (windows - 1) + 1;
    // A multiplication: n rows of n for the product, n rows of n for REDC. A square: the n(n − 1)/2
    // off-diagonal products, the n squares of the diagonal pass (one product each), REDC's n².
    const size_t multiply_steps = 2 * n * n;
    const size_t square_steps = n * (n - 1) / 2 + n + n * n;
    return multiplies * multiply_steps + squares * square_steps;
}

uint64_t c_authcore_baseline_row_step_floor(size_t steps, long iterations) {
    uint64_t folded = 0;
#if defined(__x86_64__)
    for (long i = 0; i < iterations; i++) {
        // Eight accumulator words and two high words in registers: each step is the kernel's
        // (MULX a product, ADOX the old word, ADCX the previous high word, keep the sum), with no
        // load, no store and no row edges. Eight steps per loop; LEA and JRCXZ leave both flags.
        uint64_t a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8, low, h0 = 0, h1 = 0;
        uint64_t blocks = (steps + 7) / 8;
        if (blocks == 0) continue;
        __asm__ volatile(
#define ROW_STEP_FLOOR_STEP(acc, hin, hout) \
            "mulx %[" #acc "], %[low], %[" #hout "]\n\t" \
            "adox %[" #acc "], %[low]\n\t" \
            "adcx %[" #hin "], %[low]\n\t" \
            "mov %[low], %[" #acc "]\n\t"
            "xor %k[low], %k[low]\n\t" // CF = OF = 0
            "1:\n\t"
            ROW_STEP_FLOOR_STEP(a0, h0, h1) ROW_STEP_FLOOR_STEP(a1, h1, h0)
            ROW_STEP_FLOOR_STEP(a2, h0, h1) ROW_STEP_FLOOR_STEP(a3, h1, h0)
            ROW_STEP_FLOOR_STEP(a4, h0, h1) ROW_STEP_FLOOR_STEP(a5, h1, h0)
            ROW_STEP_FLOOR_STEP(a6, h0, h1) ROW_STEP_FLOOR_STEP(a7, h1, h0)
#undef ROW_STEP_FLOOR_STEP
            "lea -1(%%rcx), %%rcx\n\t"
            "jrcxz 2f\n\t"
            "jmp 1b\n\t"
            "2:\n\t"
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5),
              [a6] "+r"(a6), [a7] "+r"(a7), [low] "=&r"(low), [h0] "+r"(h0), [h1] "+r"(h1), "+c"(blocks)
            : "d"((uint64_t)0x9E3779B97F4A7C15u)
            : "cc");
        folded ^= a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ h0 ^ h1;
    }
#else
    (void)steps, (void)iterations;
#endif
    return folded;
}
