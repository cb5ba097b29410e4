/* Counting heap allocations in the benchmark binary (the `allocations` column of bench-results.json).
 *
 * The executable defines malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign, which
 * the dynamic linker then binds for every library in the process (ELF symbol interposition), and
 * forwards them to glibc's own entry points (__libc_malloc and friends). Each call bumps a counter
 * while counting is switched on; free is not interposed. Linux/glibc only, and not in a sanitizer
 * build (the sanitizers own malloc): elsewhere the counter reports nothing
 * (c_authcore_allocations_supported() is 0). Only authcore-bench links this file. */
#include "CAuthCoreBaselines.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define C_AUTHCORE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define C_AUTHCORE_SANITIZED 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(C_AUTHCORE_SANITIZED)
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_long allocations;

static inline void count_one(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { count_one(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { count_one(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { count_one(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count_one(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_one(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *out = pointer;
    return 0;
}

int c_authcore_allocations_supported(void) { return 1; }
void c_authcore_allocations_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}
long c_authcore_allocations_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}
#else
int c_authcore_allocations_supported(void) { return 0; }
void c_authcore_allocations_start(void) {}
long c_authcore_allocations_stop(void) { return 0; }
#endif
