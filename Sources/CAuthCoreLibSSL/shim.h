// OpenSSL 3 libssl (TLS) for AuthCoreClients' HTTP/1.1 transport. Function-like macros Swift cannot
// import are wrapped here as inline functions; nothing else is added.
#ifndef AUTHCORE_LIBSSL_SHIM_H
#define AUTHCORE_LIBSSL_SHIM_H

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/// SSL_set_tlsext_host_name (a macro over SSL_ctrl): the SNI name (RFC 6066 §3).
static inline int authcore_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_CTX_set_min_proto_version (a macro over SSL_CTX_ctrl): TLS 1.2 or later.
static inline int authcore_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// SSL_CTX_set_options with SSL_OP_NO_RENEGOTIATION: a TLS 1.2 peer cannot keep a read inside
/// OpenSSL by renegotiating; and SSL_OP_CLEANSE_PLAINTEXT (OpenSSL 3): the decrypted records
/// OpenSSL buffers (answers carrying secret keys and tokens) are wiped when released.
static inline void authcore_ssl_ctx_set_client_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CLEANSE_PLAINTEXT);
    // Client sessions are kept by the transport's pool (SSL_get1_session / SSL_set_session), per
    // origin and trust, not in OpenSSL's own store (SSL_CTX_set_session_cache_mode is a macro).
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

/// Whether the error at the head of this thread's queue is "unexpected EOF while reading": the peer
/// closed TCP without a TLS close_notify (ERR_GET_REASON is a macro in some OpenSSL 3 builds).
static inline int authcore_ssl_error_is_unexpected_eof(void) {
    unsigned long code = ERR_peek_error();
    return ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

/// SSL_set_hostflags: no partial wildcards (`f*.example.com`), and no fallback to the subject CN
/// (RFC 6125 §6.4.4: the names come from subjectAltName).
static inline void authcore_ssl_strict_host_check(SSL *ssl) {
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
}

#endif
