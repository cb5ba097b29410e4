/*
 * probe_selftest.c - exercises libzeroize_probe.so (see README.md).
 * Run with the probe preloaded and the marker below configured; expected
 * summary: <name> freed=4, and <name>.hex freed=2 with AUTHCORE_ZEROIZE_HEXFORMS=1.
 *
 * Build: gcc -O2 -Wall -Wextra -o probe_selftest probe_selftest.c
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MARK[] = "AUTHCORE-MARKER-1234567890abcdef";
#define MLEN (sizeof MARK - 1)

/* Called through volatile pointers so the compiler can neither drop the
 * stores before free nor elide a malloc/free pair. */
static void *(*volatile xmalloc)(size_t) = malloc;
static void *(*volatile xrealloc)(void *, size_t) = realloc;
static void *(*volatile xreallocarray)(void *, size_t, size_t) = reallocarray;
static void (*volatile xfree)(void *) = free;

static char *filled(size_t n)               /* n bytes of 'x', marker at offset 8 */
{
    char *p = xmalloc(n);
    if (!p) { perror("malloc"); exit(2); }
    memset(p, 'x', n);
    memcpy(p + 8, MARK, MLEN);
    return p;
}
static void wipe_free(void *p) { explicit_bzero(p, malloc_usable_size(p)); xfree(p); }

int main(void)
{
    char *p, *q, *fence;
    size_t n;

    /* 1: freed with the marker inside: +1 */
    xfree(filled(64));

    /* 2: wiped first: +0 */
    p = filled(64);
    explicit_bzero(p, 64);
    xfree(p);

    /* 3: realloc grows until the block moves: +1 (the moved-to copy is wiped) */
    p = filled(40);
    fence = xmalloc(40);                    /* usually forces the first move */
    for (n = 80; n <= ((size_t)1 << 26); n *= 2) {
        q = xrealloc(p, n);
        if (!q) { perror("realloc"); return 2; }
        if (q != p) { p = q; break; }
        p = q;
    }
    printf("3: realloc moved at %zu bytes\n", n);
    wipe_free(p);
    xfree(fence);

    /* 3b: realloc shrinking in place, marker in the kept part: +0 */
    p = filled(1024);
    q = xrealloc(p, 512);
    if (q != p) printf("3b: WARNING shrink moved the block (+1 more expected)\n");
    wipe_free(q);

    /* 3c: realloc(p, 0) frees p in glibc: +1 */
    q = xrealloc(filled(64), 0);
    if (q) { printf("3c: WARNING realloc(p, 0) returned a block\n"); xfree(q); }

    /* 3d: reallocarray that moves: +1 */
    p = filled(40);
    fence = xmalloc(40);
    q = xreallocarray(p, 64, 64);
    if (!q) { perror("reallocarray"); return 2; }
    if (q == p) printf("3d: WARNING reallocarray did not move (1 less expected)\n");
    wipe_free(q);
    xfree(fence);

    /* 4: hex text of the marker, lower then upper case: +1 each to <name>.hex */
    for (int up = 0; up < 2; up++) {
        p = xmalloc(2 * MLEN + 16);
        memset(p, 'x', 2 * MLEN + 16);
        for (size_t i = 0; i < MLEN; i++)
            snprintf(p + 4 + 2 * i, 3, up ? "%02X" : "%02x", (unsigned char)MARK[i]);
        xfree(p);
    }

    printf("expected: <name> freed=4; <name>.hex freed=2 (with AUTHCORE_ZEROIZE_HEXFORMS=1)\n");
    return 0;
}
