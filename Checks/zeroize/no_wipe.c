// The zeroize check's control (make zeroize-check): preloaded together with probe.c, it replaces
// libcrypto's OPENSSL_cleanse — the one function every AuthCore wipe goes through (SecureBytes,
// LimbBuffer, the zeroizing GMP allocator) — with a function that does nothing. The same scenarios
// must then leave the marker in freed blocks, or the check proves nothing.
#include <stddef.h>

void OPENSSL_cleanse(void *ptr, size_t len) {
    (void)ptr;
    (void)len;
}
