// libmicrohttpd (Debian libmicrohttpd-dev), the HTTP server under AuthCoreServer's reference app
// server. Only what Swift cannot call is wrapped: MHD_start_daemon is variadic.
#ifndef AUTHCORE_MICROHTTPD_SHIM_H
#define AUTHCORE_MICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <string.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// MHD_start_daemon with the options the server uses, in one fixed order: the listening address,
/// the accept policy (asked for each new connection), the completion and connection callbacks
/// (each given the handler's context too), a pool of `threads` polling threads,
/// limits on connections (in all and per client address), idle seconds and per-connection memory, and (when `key_pem` is not NULL)
/// TLS from PEM text, TLS 1.2 or 1.3 only (a GnuTLS priority string).
/// Returns NULL when the daemon cannot start (the address is in use, the key does not load, ...).
static inline struct MHD_Daemon *authcore_mhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_AcceptPolicyCallback accept_policy, MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback connection_events, unsigned int threads, unsigned int connection_limit,
    unsigned int per_address_limit, unsigned int idle_seconds, size_t connection_memory_limit, const char *key_pem,
    const char *certificate_pem) {
    // One option list (MHD_OPTION_ARRAY); the TLS entries are filled in only with a key and a
    // certificate, else the list ends before them.
    const int tls = key_pem != NULL && certificate_pem != NULL;
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, handler_context},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_events, handler_context},
        {MHD_OPTION_THREAD_POOL_SIZE, threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, idle_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)connection_memory_limit, NULL},
        {tls ? MHD_OPTION_HTTPS_PRIORITIES : MHD_OPTION_END, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem},
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)certificate_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(
        flags | (tls ? MHD_USE_TLS : 0), 0, accept_policy, handler_context, handler, handler_context, MHD_OPTION_ARRAY,
        options, MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose for port 0), 0 if unknown.
static inline uint16_t authcore_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket, -1 if unknown (MHD owns it: callers may shutdown() it, never close() it).
static inline int authcore_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The connection's peer address into `out` (16 bytes): returns 4 (IPv4), 16 (IPv6) or 0 (unknown).
static inline int authcore_mhd_client_address(struct MHD_Connection *connection, uint8_t *out) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)(const void *)address)->sin_addr, 4);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)(const void *)address)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

#endif
