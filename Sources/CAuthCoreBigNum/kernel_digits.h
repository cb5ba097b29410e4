// Branch-free pieces both exponentiation kernels share (powm52_template.h, powm64_template.h): the
// gather's entry mask and the exponent's window digits. A private header of the C target.
#ifndef C_AUTHCORE_KERNEL_DIGITS_H
#define C_AUTHCORE_KERNEL_DIGITS_H

#include <stddef.h>

#include "CAuthCoreBigNum_powm52.h"

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

#endif
