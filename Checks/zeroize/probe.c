/*
 * probe.c - LD_PRELOAD heap probe: counts heap blocks handed back to the
 * allocator while they still contain a marker secret, to show that secrets
 * are wiped before free.
 *
 * Build: gcc -O2 -Wall -Wextra -shared -fPIC -o libzeroize_probe.so probe.c -ldl
 *
 * Method: free, realloc and reallocarray are interposed.  Before a block is
 * passed to glibc, its whole usable size (malloc_usable_size) is searched with
 * memmem for every marker.  For realloc(p, n) the old block is scanned before
 * the real realloc, and the result is counted only if the block moved or
 * n == 0 (glibc frees p then); bytes copied into the new block are still live.
 * The real allocator is reached through glibc's exported __libc_free and
 * __libc_realloc, so there is no dlsym bootstrap and the probe never
 * allocates: all state is static, counters are __atomic, and a thread-local
 * flag stops recursion.
 *
 * Markers come from AUTHCORE_ZEROIZE_MARKERS="name=HEX,..." where HEX is the
 * marker hex-encoded in REVERSED byte order, so the environment and every copy
 * of it never contain the marker (an entry whose marker or hex text still
 * occurs in its own environment text, e.g. a palindrome, is refused).
 *
 * Limits: glibc malloc only (another allocator, or a static executable, is
 * not seen).  Not counted: copies on the stack, in registers, static data or
 * mmap'd regions; blocks still live at exit; memory given back by munmap of
 * whole arenas or by user pool allocators; realloc in place, even a shrink that
 * gives its tail back.  A moved mmap'd block (mremap) is counted although its
 * pages moved rather than being left behind.  The summary is written by the
 * destructor: frees after it, and processes ending via _exit/abort/signal, are
 * only visible with AUTHCORE_ZEROIZE_STRICT=1.  Scanning costs O(markers x
 * block size) per free/realloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void __libc_free(void *);            /* glibc's real free/realloc */
extern void *__libc_realloc(void *, size_t);

#define MAXM 16                             /* markers */
#define MAXLEN 256                          /* bytes per marker */
#define ENV_MARKERS "AUTHCORE_ZEROIZE_MARKERS"

struct marker {
    char name[33];
    size_t len;
    unsigned char raw[MAXLEN];
    char lo[2 * MAXLEN], up[2 * MAXLEN];    /* hex text forms */
    uint64_t hits, hexhits;
};

static struct marker mk[MAXM];
static int nmk, hexforms, strict, active;
static char report[4096];                   /* empty: stderr */
static uint64_t nscanned, nbytes;
static __thread int busy __attribute__((tls_model("initial-exec")));

/* ---- output: open/write/close only, no stdio, errno preserved ---- */
static char *put(char *d, const char *s) { while (*s) *d++ = *s++; return d; }
static char *putu(char *d, uint64_t v)
{
    char t[24];
    int i = 0;
    do t[i++] = (char)('0' + v % 10); while (v /= 10);
    while (i) *d++ = t[--i];
    return d;
}
static void emit(const char *line, size_t n)
{
    int saved = errno, fd = 2;
    if (report[0]) fd = open(report, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) fd = 2;
    if (write(fd, line, n) < 0) { /* nothing to do */ }
    if (fd != 2) close(fd);
    errno = saved;
}
/* "<tag> <pid> <name><suffix>" then the caller appends the rest */
static char *head(char *b, const char *tag, const char *name, const char *suffix)
{
    b = put(b, tag); *b++ = ' ';
    b = putu(b, (uint64_t)getpid()); *b++ = ' ';
    return put(put(b, name), suffix);
}

/* ---- scanning ---- */
/* bit 2i: marker i found; bit 2i+1: its hex text found */
static uint32_t scan(const void *p, size_t n)
{
    uint32_t m = 0;
    __atomic_add_fetch(&nscanned, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&nbytes, n, __ATOMIC_RELAXED);
    for (int i = 0; i < nmk; i++) {
        if (memmem(p, n, mk[i].raw, mk[i].len)) m |= 1u << (2 * i);
        if (hexforms && (memmem(p, n, mk[i].lo, 2 * mk[i].len) ||
                         memmem(p, n, mk[i].up, 2 * mk[i].len)))
            m |= 2u << (2 * i);
    }
    return m;
}
/* the scanned block was given up: count (and in strict mode report) hits */
static void commit(uint32_t m, size_t size)
{
    for (int i = 0; i < nmk; i++)
        for (int h = 0; h < 2; h++) {
            if (!(m & (1u << (2 * i + h)))) continue;
            __atomic_add_fetch(h ? &mk[i].hexhits : &mk[i].hits, 1, __ATOMIC_RELAXED);
            if (strict) {
                char b[128], *e = head(b, "zeroize-hit", mk[i].name, h ? ".hex" : "");
                e = putu(put(e, " size="), size); *e++ = '\n';
                emit(b, (size_t)(e - b));
            }
        }
}

/* ---- interposed functions ---- */
void free(void *p)
{
    if (p && active && !busy) {
        busy = 1;
        size_t sz = malloc_usable_size(p);
        commit(scan(p, sz), sz);
        busy = 0;
    }
    __libc_free(p);
}

static void *probe_realloc(void *p, size_t n)
{
    if (!p || !active || busy) return __libc_realloc(p, n);
    busy = 1;
    size_t sz = malloc_usable_size(p);
    uint32_t m = scan(p, sz);            /* scan before: afterwards p may be reused */
    void *r = __libc_realloc(p, n);
    if (n == 0 || (r && r != p)) commit(m, sz);   /* freed or moved; NULL on failure: still live */
    busy = 0;
    return r;
}
void *realloc(void *p, size_t n) { return probe_realloc(p, n); }

/* glibc's reallocarray calls its realloc internally, bypassing ours */
void *reallocarray(void *p, size_t a, size_t b)
{
    size_t n;
    if (__builtin_mul_overflow(a, b, &n)) { errno = ENOMEM; return NULL; }
    return probe_realloc(p, n);
}

/* ---- set-up and summary ---- */
static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
static int init_error(int k, const char *why)
{
    char b[160], *e = put(b, "zeroize-error ");
    e = putu(e, (uint64_t)getpid());
    e = k < 0 ? put(e, " env") : putu(put(e, " entry="), (uint64_t)k);
    e = put(put(e, " "), why); *e++ = '\n';
    emit(b, (size_t)(e - b));
    return 0;
}
/* one "name=HEX" entry [s, end); full is the whole environment string */
static int parse_entry(int k, const char *s, const char *end, const char *full)
{
    static const char *digits[2] = { "0123456789abcdef", "0123456789ABCDEF" };
    const char *eq = memchr(s, '=', (size_t)(end - s));
    size_t nl = eq ? (size_t)(eq - s) : 0, hl = eq ? (size_t)(end - eq - 1) : 0;
    struct marker *m = &mk[nmk];
    if (nmk == MAXM) return init_error(k, "too many markers (max 16)");
    if (nl < 1 || nl > 32) return init_error(k, "name must be 1..32 characters");
    for (size_t i = 0; i < nl; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-", s[i]))
            return init_error(k, "name may only use [A-Za-z0-9_.-]");
    if (hl % 2 || hl < 8 || hl > 2 * MAXLEN) return init_error(k, "marker must be 4..256 bytes of hex");
    m->len = hl / 2;
    for (size_t i = 0; i < m->len; i++) {
        int hi = hexval(eq[1 + 2 * i]), lo = hexval(eq[2 + 2 * i]);
        if (hi < 0 || lo < 0) return init_error(k, "bad hex digit");
        m->raw[m->len - 1 - i] = (unsigned char)(hi << 4 | lo);   /* reversed on input */
    }
    for (size_t i = 0; i < m->len; i++)
        for (int c = 0; c < 2; c++) {
            char *t = c ? m->up : m->lo;
            t[2 * i] = digits[c][m->raw[i] >> 4];
            t[2 * i + 1] = digits[c][m->raw[i] & 15];
        }
    size_t fl = strlen(full);
    if (memmem(full, fl, m->raw, m->len) ||
        (hexforms && (memmem(full, fl, m->lo, hl) || memmem(full, fl, m->up, hl))))
        return init_error(k, "marker occurs in its own environment text (palindrome?)");
    memcpy(m->name, s, nl);
    m->name[nl] = 0;
    return ++nmk;
}

static void atfork_child(void)               /* a forked child starts from zero */
{
    for (int i = 0; i < nmk; i++) mk[i].hits = mk[i].hexhits = 0;
    nscanned = nbytes = 0;
}

__attribute__((constructor)) static void zeroize_init(void)
{
    const char *v = getenv(ENV_MARKERS), *r = getenv("AUTHCORE_ZEROIZE_REPORT"), *s;
    if (r && strlen(r) < sizeof report) strcpy(report, r);
    else if (r) (void)init_error(-1, "AUTHCORE_ZEROIZE_REPORT too long, using stderr");
    hexforms = (s = getenv("AUTHCORE_ZEROIZE_HEXFORMS")) && !strcmp(s, "1");
    strict = (s = getenv("AUTHCORE_ZEROIZE_STRICT")) && !strcmp(s, "1");
    if (!v) return;
    const char *full = v - sizeof ENV_MARKERS;    /* getenv points past "NAME=" */
    for (int k = 0;; k++) {
        const char *end = strchrnul(v, ',');
        if (end > v) (void)parse_entry(k, v, end, full);
        if (!*end) break;
        v = end + 1;
    }
    if (nmk) pthread_atfork(NULL, NULL, atfork_child);
    active = nmk > 0;                              /* before any thread exists */
}

__attribute__((destructor)) static void zeroize_report(void)
{
    static int done;
    if (!active || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return;  /* once only */
    uint64_t sc = __atomic_load_n(&nscanned, __ATOMIC_RELAXED);
    uint64_t by = __atomic_load_n(&nbytes, __ATOMIC_RELAXED);
    for (int i = 0; i < nmk; i++)
        for (int h = 0; h <= hexforms; h++) {
            char b[192], *e = head(b, "zeroize", mk[i].name, h ? ".hex" : "");
            e = putu(put(e, " freed="), __atomic_load_n(h ? &mk[i].hexhits : &mk[i].hits, __ATOMIC_RELAXED));
            e = putu(put(e, " scanned="), sc);
            e = putu(put(e, " bytes="), by); *e++ = '\n';
            emit(b, (size_t)(e - b));
        }
}
