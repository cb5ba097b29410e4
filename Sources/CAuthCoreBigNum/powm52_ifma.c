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
#define V_LANE0(v) ((uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(v)))
#define V_AND(a, b) _mm512_and_si512((a), (b))
#define V_OR(a, b) _mm512_or_si512((a), (b))
#define POWM52_ATTR
#define POWM52_MAX_VECTORS 40
#define POWM52_AMM_SPECIALISED 1

#define POWM52_NAME(x) powm52_ifma_##x
#include "powm52_template.h"

void c_authcore_powm52_ifma(uint64_t *rp, const uint64_t *bp, const uint64_t *ep, size_t ebits,
    const uint64_t *mp, const uint64_t *rrp, size_t n, uint64_t *scratch) {
    powm52_ifma_powm(rp, bp, ep, ebits, mp, rrp, n, scratch);
}

#pragma clang attribute pop

#else

void c_authcore_powm52_ifma(uint64_t *rp, const uint64_t *bp, const uint64_t *ep, size_t ebits,
    const uint64_t *mp, const uint64_t *rrp, size_t n, uint64_t *scratch) {
    // Never called: c_authcore_powm52_ifma_available() is 0 off x86-64.
    c_authcore_powm52_portable(rp, bp, ep, ebits, mp, rrp, n, scratch);
}

#endif
