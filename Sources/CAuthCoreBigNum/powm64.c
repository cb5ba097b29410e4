// The 64-bit-limb kernel (CAuthCoreBigNum_powm64.h): its algorithm is in powm64_template.h, compiled
// here twice, as the kernel and as the ctgrind control. x86-64 only (MULX, ADCX, ADOX); elsewhere
// the entry points write nothing and `c_authcore_powm64_available()` is 0.
#include "CAuthCoreBigNum_powm64.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

size_t c_authcore_powm64_scratch_limbs(size_t n, size_t ebits) {
    // one, the accumulator, the selected entry (n each), t (2n + 1), the table (2^w entries).
    return (5 + ((size_t)1 << c_authcore_powm52_window(ebits))) * n + 1;
}

size_t c_authcore_comb64_scratch_limbs(size_t n) {
    // the accumulator, the selected entry (n each), t (2n + 1).
    return 4 * n + 1;
}

int c_authcore_powm64_available(void) {
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned needed = (1u << 8) | (1u << 19); // BMI2 (MULX), ADX (ADCX, ADOX)
    return (ebx & needed) == needed;
#else
    return 0;
#endif
}

#if defined(__x86_64__)

#define POWM64_NAME(x) powm64_kernel_##x
#define POWM64_PUBLIC c_authcore_powm64
#define POWM64_COMB_PUBLIC c_authcore_comb64
#include "powm64_template.h"
#undef POWM64_NAME
#undef POWM64_PUBLIC
#undef POWM64_COMB_PUBLIC

// The control: c_authcore_powm64_indexed_gather_control.
#define POWM64_INDEXED_GATHER_CONTROL 1
#define POWM64_NAME(x) powm64_control_##x
#define POWM64_PUBLIC c_authcore_powm64_indexed_gather_control
#include "powm64_template.h"

#else

void c_authcore_powm64(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    (void)rp, (void)bp, (void)ep, (void)ebits, (void)mp, (void)rrp, (void)n, (void)scratch;
}

void c_authcore_powm64_indexed_gather_control(c_authcore_word *rp, const c_authcore_word *bp,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *rrp, size_t n,
    c_authcore_word *scratch) {
    (void)rp, (void)bp, (void)ep, (void)ebits, (void)mp, (void)rrp, (void)n, (void)scratch;
}

void c_authcore_comb64(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, size_t n, c_authcore_word *scratch) {
    (void)rp, (void)table, (void)windows, (void)window, (void)ep, (void)ebits, (void)mp, (void)n, (void)scratch;
}

#endif
