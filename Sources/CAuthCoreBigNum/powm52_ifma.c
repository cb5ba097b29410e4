// The kernel's algorithm (powm52_template.h) with AVX-512 IFMA: eight 52-bit digits per ZMM register,
// VPMADD52LUQ/VPMADD52HUQ for the products, VALIGNQ for the one-digit shift. Only called after
// c_authcore_powm52_ifma_available(); the rest of the library is built for the baseline x86-64.
#include "CAuthCoreBigNum_powm52.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("avx512f,avx512ifma"))), apply_to = function)

#define VEC __m512i
#define V_ZERO() _mm512_setzero_si512()
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define V_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define V_BCAST(x) _mm512_set1_epi64((long long)(x))
#define V_MADD52LO(acc, a, b) _mm512_madd52lo_epu64((acc), (a), (b))
#define V_MADD52HI(acc, a, b) _mm512_madd52hi_epu64((acc), (a), (b))
#define V_ALIGNR1(high, low) _mm512_alignr_epi64((high), (low), 1)
#define V_ADD_LANE0(v, x) _mm512_add_epi64((v), _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)(x))))
#define V_LANE0(v) ((c_authcore_word)_mm_cvtsi128_si64(_mm512_castsi512_si128(v)))
#define V_AND(a, b) _mm512_and_si512((a), (b))
#define V_OR(a, b) _mm512_or_si512((a), (b))
// VZEROALL clears ZMM0-15 whole; ZMM16-31 (which only EVEX code uses) one by one.
#define V_SCRUB_REGISTERS()                                                                         \
    do {                                                                                            \
        _mm256_zeroall();                                                                           \
        __asm__ volatile("vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"   \
                         "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"   \
                         "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"   \
                         "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"   \
                         "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"   \
                         "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"   \
                         "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"   \
                         "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31"         \
                         : : : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", \
                           "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");     \
    } while (0)
#define POWM52_ATTR
#define POWM52_MAX_VECTORS 40
#define POWM52_AMM_SPECIALISED 1

#define POWM52_NAME(x) powm52_ifma_##x
#define POWM52_PUBLIC(name) name##_ifma
#include "powm52_template.h"

#pragma clang attribute pop

#else

// Never called: c_authcore_powm52_ifma_available() is 0 off x86-64.
void c_authcore_powm52_ifma(c_authcore_word *rp, const c_authcore_word *bp, const c_authcore_word *ep, size_t ebits,
    const c_authcore_word *mp, const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    c_authcore_powm52_portable(rp, bp, ep, ebits, mp, rrp, n, scratch);
}
void c_authcore_powm52_enter_ifma(c_authcore_word *dp, const c_authcore_word *xp, const c_authcore_word *mp,
    const c_authcore_word *rrp, size_t n, c_authcore_word *scratch) {
    c_authcore_powm52_enter_portable(dp, xp, mp, rrp, n, scratch);
}
void c_authcore_comb52_ifma(c_authcore_word *rp, const c_authcore_word *table, size_t windows, unsigned window,
    const c_authcore_word *ep, size_t ebits, const c_authcore_word *mp, const c_authcore_word *factorp, size_t n,
    c_authcore_word *scratch) {
    c_authcore_comb52_portable(rp, table, windows, window, ep, ebits, mp, factorp, n, scratch);
}

#endif
