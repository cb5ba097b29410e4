// The kernel's sizes and the processor check (CAuthCoreBigNum_powm52.h); the algorithm is in
// powm52_template.h, compiled by powm52_ifma.c and powm52_portable.c.
#include "CAuthCoreBigNum_powm52.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

size_t c_authcore_powm52_digits(size_t n) { return (64 * n + 2 + 51) / 52; }

unsigned c_authcore_powm52_window(size_t bits) {
    unsigned best = 1;
    size_t best_cost = (size_t)-1;
    for (unsigned w = 1; w <= 7; w++) {
        size_t cost = ((size_t)1 << w) + (bits + w - 1) / w;
        if (cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

size_t c_authcore_powm52_scratch_limbs(size_t n, size_t ebits) {
    size_t width = 8 * ((c_authcore_powm52_digits(n) + 7) / 8);
    return (5 + ((size_t)1 << c_authcore_powm52_window(ebits))) * width;
}

int c_authcore_powm52_ifma_available(void) {
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ecx & (1u << 27))) return 0; // OSXSAVE: XGETBV is usable
    unsigned xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    // SSE, AVX, opmask, ZMM0-15 upper halves, ZMM16-31 saved by the operating system.
    if ((xcr0_low & 0xE6u) != 0xE6u) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned avx512f = 1u << 16, avx512ifma = 1u << 21;
    return (ebx & (avx512f | avx512ifma)) == (avx512f | avx512ifma);
#else
    return 0;
#endif
}
