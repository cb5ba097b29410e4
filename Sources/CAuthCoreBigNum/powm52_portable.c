// The kernel's algorithm (powm52_template.h) in portable C: each vector operation is a loop over
// eight 64-bit lanes doing what the IFMA instruction does (VPMADD52LUQ/HUQ: the low or high 52 bits
// of the 104-bit product of two lanes' low 52 bits, added to the lane). Compiled a second time with
// POWM52_INDEXED_GATHER_CONTROL as the ctgrind control.
#include "CAuthCoreBigNum_powm52.h"
#include "kernel_shared.h"

#include <stdint.h>

typedef struct {
    c_authcore_word lane[8];
} powm52_vec;

#define POWM52_LANES(expression)                                                                    \
    do {                                                                                            \
        for (int l = 0; l < 8; l++) expression;                                                     \
    } while (0)

static inline powm52_vec powm52_zero(void) {
    powm52_vec r;
    POWM52_LANES(r.lane[l] = 0);
    return r;
}
static inline powm52_vec powm52_load(const c_authcore_word *p) {
    powm52_vec r;
    POWM52_LANES(r.lane[l] = p[l]);
    return r;
}
static inline void powm52_store(c_authcore_word *p, powm52_vec v) { POWM52_LANES(p[l] = v.lane[l]); }
static inline powm52_vec powm52_broadcast(c_authcore_word x) {
    powm52_vec r;
    POWM52_LANES(r.lane[l] = x);
    return r;
}
static inline powm52_vec powm52_madd52lo(powm52_vec acc, powm52_vec a, powm52_vec b) {
    const c_authcore_word mask = 0xFFFFFFFFFFFFFull;
    POWM52_LANES(acc.lane[l] += ((a.lane[l] & mask) * (b.lane[l] & mask)) & mask);
    return acc;
}
static inline powm52_vec powm52_madd52hi(powm52_vec acc, powm52_vec a, powm52_vec b) {
    const c_authcore_word mask = 0xFFFFFFFFFFFFFull;
    POWM52_LANES(acc.lane[l] += (c_authcore_word)(((unsigned __int128)(a.lane[l] & mask) * (b.lane[l] & mask)) >> 52));
    return acc;
}
/// Lanes 1…7 of `low`, then lane 0 of `high` (VALIGNQ by one lane).
static inline powm52_vec powm52_align1(powm52_vec high, powm52_vec low) {
    powm52_vec r;
    for (int l = 0; l < 7; l++) r.lane[l] = low.lane[l + 1];
    r.lane[7] = high.lane[0];
    return r;
}
static inline powm52_vec powm52_add_lane0(powm52_vec v, c_authcore_word x) {
    v.lane[0] += x;
    return v;
}
static inline powm52_vec powm52_and(powm52_vec a, powm52_vec b) {
    POWM52_LANES(a.lane[l] &= b.lane[l]);
    return a;
}
static inline powm52_vec powm52_or(powm52_vec a, powm52_vec b) {
    POWM52_LANES(a.lane[l] |= b.lane[l]);
    return a;
}

#define VEC powm52_vec
#define V_ZERO() powm52_zero()
#define V_LOAD(p) powm52_load(p)
#define V_STORE(p, v) powm52_store((p), (v))
#define V_BCAST(x) powm52_broadcast(x)
#define V_MADD52LO(acc, a, b) powm52_madd52lo((acc), (a), (b))
#define V_MADD52HI(acc, a, b) powm52_madd52hi((acc), (a), (b))
#define V_ALIGNR1(high, low) powm52_align1((high), (low))
#define V_ADD_LANE0(v, x) powm52_add_lane0((v), (x))
#define V_LANE0(v) ((v).lane[0])
#define V_AND(a, b) powm52_and((a), (b))
#define V_OR(a, b) powm52_or((a), (b))
// The compiler vectorises the lane loops with SSE registers: XMM0-15 cleared (x86-64 has SSE2).
#define V_SCRUB_REGISTERS() c_authcore_kernel_clear_sse_registers()
#define POWM52_ATTR
#define POWM52_MAX_VECTORS 40
#define POWM52_AMM_SPECIALISED 1

#define POWM52_NAME(x) powm52_portable_##x
#define POWM52_PUBLIC(name) name##_portable
#include "powm52_template.h"
#undef POWM52_NAME
#undef POWM52_PUBLIC

// The control: c_authcore_powm52_indexed_gather_control.
#define POWM52_INDEXED_GATHER_CONTROL 1
#define POWM52_NAME(x) powm52_control_##x
#define POWM52_PUBLIC(name) name##_indexed_gather_control
#include "powm52_template.h"
