// Pieces the C target's constant-time code shares (powm52_template.h, powm64_template.h, bignum.c):
// the Montgomery constant, the gather's entry mask, the exponent's window digits and the clearing of
// the SSE registers. A private header of the C target; it needs nothing from GMP.
#ifndef C_AUTHCORE_KERNEL_SHARED_H
#define C_AUTHCORE_KERNEL_SHARED_H

#include <stddef.h>
#include <string.h>

#include "CAuthCoreBigNum_powm52.h"

/// −m0⁻¹ mod 2^64 for odd m0 (Newton's iteration doubles the correct bits: 3, 6, …, 96; m0 is its
/// own inverse to 3 bits).
static inline c_authcore_word c_authcore_kernel_minus_inverse(c_authcore_word m0) {
    c_authcore_word inverse = m0;
    for (int i = 0; i < 5; i++) inverse *= 2 - m0 * inverse;
    return (c_authcore_word)0 - inverse;
}

/// All ones when `a == b`, else zero, with no branch (the empty asm keeps the optimiser from
/// turning the mask back into a comparison and a jump).
static inline c_authcore_word c_authcore_kernel_equal_mask(c_authcore_word a, c_authcore_word b) {
    c_authcore_word x = a ^ b;
    c_authcore_word nonzero = (x | ((c_authcore_word)0 - x)) >> 63;
    __asm__("" : "+r"(nonzero));
    return nonzero - 1;
}

/// The `width`-bit digit of the exponent at bit `offset`, with bits from `bits` up read as zero. The
/// offset is public; the digit's value is read with shifts and masks only.
static inline c_authcore_word c_authcore_kernel_exponent_digit(
    const c_authcore_word *e, size_t bits, size_t offset, unsigned width) {
    size_t limbs = (bits + 63) / 64;
    size_t limb = offset / 64;
    unsigned shift = (unsigned)(offset % 64);
    c_authcore_word low = limb < limbs ? e[limb] >> shift : 0;
    c_authcore_word high = (shift != 0 && limb + 1 < limbs) ? e[limb + 1] << (64 - shift) : 0;
    size_t available = bits > offset ? bits - offset : 0;
    c_authcore_word keep = available >= width ? (((c_authcore_word)1 << width) - 1) : (((c_authcore_word)1 << available) - 1);
    return (low | high) & keep;
}

/// Zeroes `bytes` of the stack from the calling frame down: used by a kernel's scrub (a function never
/// inlined, called right after the kernel's worker returns), so the area covers the worker's frames.
/// The empty asm makes the zeros observable, so the `memset` stays.
#define C_AUTHCORE_KERNEL_ZERO_STACK(bytes)                                                         \
    do {                                                                                            \
        unsigned char area_[(bytes)];                                                               \
        memset(area_, 0, sizeof area_);                                                             \
        __asm__ volatile("" : : "r"(area_) : "memory");                                             \
    } while (0)

/// Clears XMM0-15, the SSE registers baseline x86-64 code uses (the compiler vectorises the kernels'
/// lane loops, selects and copies with them); nothing elsewhere.
static inline void c_authcore_kernel_clear_sse_registers(void) {
#if defined(__x86_64__)
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
                     "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
                     "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
                     : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
                       "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

#endif
