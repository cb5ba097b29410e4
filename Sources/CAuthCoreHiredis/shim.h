// hiredis (Debian libhiredis-dev), the C client of Redis, for AuthCoreServer's shared handshake store.
// Only what Swift cannot reach directly is wrapped: the void* reply and the context's error fields.
#ifndef AUTHCORE_HIREDIS_SHIM_H
#define AUTHCORE_HIREDIS_SHIM_H

#include <hiredis/hiredis.h>

/// redisCommandArgv with its reply typed (NULL when the connection failed: see the context's error).
static inline redisReply *authcore_redis_command(redisContext *c, int argc, const char **argv, const size_t *lengths) {
    return (redisReply *)redisCommandArgv(c, argc, argv, lengths);
}

/// The context's error code (0: none).
static inline int authcore_redis_error_code(const redisContext *c) { return c->err; }

/// The context's error text.
static inline const char *authcore_redis_error_text(const redisContext *c) { return c->errstr; }

#endif
