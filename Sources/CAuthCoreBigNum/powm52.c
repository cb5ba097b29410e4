// The kernel's sizes and the processor check (CAuthCoreBigNum_powm52.h); the algorithm is in
// powm52_template.h, compiled by powm52_ifma.c and powm52_portable.c.
#include "CAuthCoreBigNum_powm52.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

size_t c_authcore_powm52_digits(size_t n) { return (64 * n + 2 + 51) / 52; }

unsigned c_authcore_powm52_window(size_t bits) {
    // Where 2^w + bits / w is least (w + 1 takes over above w·(w + 1)·2^w bits): thresholds, not the
    // minimum of the rounded-up counts, which is not monotone (325 bits would take 5, 326 bits 4).
    static const size_t up_to[] = {4, 24, 96, 320, 960, 2688};
    unsigned w = 1;
    while (w <= 6 && bits > up_to[w - 1]) w++;
    return w;
}

size_t c_authcore_powm52_scratch_limbs(size_t n, size_t ebits) {
    size_t width = 8 * ((c_authcore_powm52_digits(n) + 7) / 8);
    return (5 + ((size_t)1 << c_authcore_powm52_window(ebits))) * width + 8; // + 8: room to align to 64 bytes
}

size_t c_authcore_powm52_width(size_t n) { return 8 * ((c_authcore_powm52_digits(n) + 7) / 8); }

size_t c_authcore_comb52_scratch_limbs(size_t n) { return 4 * c_authcore_powm52_width(n) + 8; }

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
    // AVX2 too: the compiler may use AVX2 instructions (VINSERTI128) around the AVX-512 ones.
    const unsigned needed = (1u << 5) | (1u << 16) | (1u << 21); // AVX2, AVX512F, AVX512_IFMA
    return (ebx & needed) == needed;
#else
    return 0;
#endif
}
