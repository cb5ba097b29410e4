internal import AuthCore
internal import CAuthCoreLibSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

#if canImport(Glibc) || canImport(Musl)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
private let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let streamSocket = SOCK_STREAM
private let closeOnExec: Int32 = 0
private let noSignal: Int32 = 0
#endif

/// How a call is stopped from outside its thread: cancelled by the caller, or past its total time
/// limit (the watchdog). Either sets the reason and shuts the socket down.
///
/// `shutdown(2)` wakes a thread blocked in `recv`/`send`/`SSL_read`/`SSL_connect` on that socket at
/// once. The descriptor is only shut down or closed under the lock, so a stop can never reach a
/// descriptor number the process has since reused for something else.
final class ConnectionCancellation: Sendable {
    /// Why the call was stopped.
    enum Reason: Sendable { case cancelled, timedOut }
    private let state = Locked<(reason: Reason?, socket: Int32?)>((nil, nil))

    /// Why the call was stopped, or nil while it may go on.
    var stopReason: Reason? { state.withLock { $0.reason } }
    /// Whether the call was stopped.
    var isCancelled: Bool { stopReason != nil }

    /// Stops the call for `reason` (the first reason given wins) and shuts its socket down.
    func stop(_ reason: Reason) {
        state.withLock { state in
            if state.reason == nil { state.reason = reason }
            if let socket = state.socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Cancels the call (the caller's task was cancelled).
    func cancel() { stop(.cancelled) }

    /// Registers an open socket; false (and the socket is closed) when the call is already stopped.
    func attach(_ socket: Int32) -> Bool {
        state.withLock { state in
            guard state.reason == nil else {
                _ = close(socket)
                return false
            }
            state.socket = socket
            return true
        }
    }

    /// Closes the registered socket.
    func closeSocket() {
        state.withLock { state in
            if let socket = state.socket { _ = close(socket) }
            state.socket = nil
        }
    }

    /// The error for a stopped call to `origin`, or nil.
    func stopError(_ origin: String, limit: Duration) -> AuthCoreError? {
        switch stopReason {
        case .cancelled: AuthCoreError(.cancelled, "\(origin): cancelled")
        case .timedOut: AuthCoreError(.timedOut, "\(origin): no complete answer within \(limit)")
        case nil: nil
        }
    }
}

/// A TLS client configuration (OpenSSL 3 `SSL_CTX`): peer verification on, TLS 1.2 or later, and
/// trust from the system store or from one PEM file.
final class TLSClientContext: @unchecked Sendable {
    // invariant (Sendable): `context` is fully configured in `init` and only passed to `SSL_new`
    // afterwards, which OpenSSL allows from any number of threads at once.
    let context: OpaquePointer

    /// The process-wide context over the system's trusted certificates (nil if OpenSSL cannot make one).
    static let system: TLSClientContext? = try? TLSClientContext(trustedCertificatesFile: nil)

    /// A context trusting the system store, or only the certificates in `trustedCertificatesFile`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the file cannot be loaded.
    init(trustedCertificatesFile: String?) throws(AuthCoreError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw AuthCoreError(.transportFailure, "TLS: \(Self.openSSLErrors())")
        }
        self.context = context
        guard authcore_ssl_ctx_require_tls12(context) == 1 else { throw AuthCoreError(.transportFailure, "TLS: cannot require TLS 1.2") }
        authcore_ssl_ctx_set_client_options(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let file = trustedCertificatesFile {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw AuthCoreError(.invalidParameter, "trusted certificates file cannot be loaded: \(Self.openSSLErrors())")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw AuthCoreError(.transportFailure, "TLS: system certificates cannot be loaded: \(Self.openSSLErrors())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    /// This thread's OpenSSL error queue as text, emptied (it is per thread).
    static func openSSLErrors() -> String {
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            texts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return texts.isEmpty ? "unknown error" : texts.joined(separator: "; ")
    }
}

/// One HTTP/1.1 connection on a blocking socket, optionally under TLS, used by one thread.
///
/// Every wait is bounded: the connect by `connectTimeout` (polled in short slices so a cancel is
/// seen), each read and write by the socket's receive/send timeout, which the caller sets before
/// each call from the idle timeout and the time left.
final class HTTP1Connection {
    private let descriptor: Int32
    private var tls: OpaquePointer?
    private let cancellation: ConnectionCancellation
    private let origin: String
    private let totalLimit: Duration
    /// Whether a TLS peer closed the connection without close_notify (an unframed body then may
    /// have been cut by someone on the path: see ``HTTP1Exchange``).
    private(set) var endedWithoutCloseNotify = false

    /// Connects to `url`'s host and port, and for `https` completes a verified TLS handshake.
    ///
    /// - Throws: `AuthCoreError` `.transportFailure` (name resolution, refused, TLS or certificate
    ///   failure), `.timedOut`, `.cancelled`.
    init(
        to url: RequestURL, tls context: TLSClientContext?, connectTimeout: Duration, totalLimit: Duration,
        cancellation: ConnectionCancellation
    ) throws(AuthCoreError) {
        self.cancellation = cancellation
        self.totalLimit = totalLimit
        origin = url.origin
        let host = url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        descriptor = try Self.openConnectedSocket(
            host: host, port: port, timeout: connectTimeout, cancellation: cancellation, origin: origin, totalLimit: totalLimit)
        guard url.scheme == "https" else { return }
        guard let context else {
            cancellation.closeSocket()
            throw AuthCoreError(.transportFailure, "\(origin): TLS is not available")
        }
        do throws(AuthCoreError) {
            try handshake(host: host, context: context, timeout: connectTimeout)
        } catch {
            close()
            throw error
        }
    }

    /// Ends the connection (no TLS close_notify: the request said `Connection: close`).
    func close() {
        if let tls {
            SSL_free(tls)
            self.tls = nil
        }
        cancellation.closeSocket()
    }

    /// Sets how long the next read or write may wait.
    func setTimeout(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var value = timeval(tv_sec: Int(Swift.max(0, seconds)), tv_usec: Int(Swift.max(0, attoseconds / 1_000_000_000_000)))
        if value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1000 }  // 0 would mean "wait forever"
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AuthCoreError) {
        var offset = 0
        while offset < bytes.count {
            let pointer = bytes.baseAddress! + offset  // invariant: offset < count, so the buffer is not empty
            let left = bytes.count - offset
            let written: Int
            if let tls {
                ERR_clear_error()
                let result = SSL_write(tls, pointer, Int32(clamping: left))
                written = result > 0 ? Int(result) : -1
                if written < 0 { try failTLS(tls, result, while: "sending") }
            } else {
                // MSG_NOSIGNAL: a peer that has closed gives EPIPE, not SIGPIPE.
                written = send(descriptor, pointer, left, noSignal)
                if written < 0 {
                    if errno == EINTR { continue }
                    try failSocket(errno, while: "sending")
                }
            }
            try checkCancelled()
            offset += written
        }
    }

    /// Reads what is available into `buffer` (at least one byte); 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) -> Int {
        let count: Int
        if let tls {
            ERR_clear_error()
            let result = SSL_read(tls, buffer.baseAddress, Int32(clamping: buffer.count))
            if result > 0 {
                count = Int(result)
            } else if SSL_get_error(tls, result) == SSL_ERROR_ZERO_RETURN {
                count = 0
            } else if SSL_get_error(tls, result) == SSL_ERROR_SSL, authcore_ssl_error_is_unexpected_eof() != 0 {
                ERR_clear_error()
                try checkCancelled()
                endedWithoutCloseNotify = true
                count = 0
            } else {
                try checkCancelled()
                try failTLS(tls, result, while: "receiving")
                count = 0
            }
        } else {
            var result = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            while result < 0 && errno == EINTR { result = recv(descriptor, buffer.baseAddress, buffer.count, 0) }
            if result < 0 { try failSocket(errno, while: "receiving") }
            count = Swift.max(0, result)
        }
        try checkCancelled()  // a cancel shuts the socket down, which reads as the end of the stream
        return count
    }

    // MARK: - Failures

    private func checkCancelled() throws(AuthCoreError) {
        if let error = cancellation.stopError(origin, limit: totalLimit) { throw error }
    }

    private func failSocket(_ code: Int32, while action: String) throws(AuthCoreError) {
        try checkCancelled()
        if code == EAGAIN || code == EWOULDBLOCK { throw AuthCoreError(.timedOut, "\(origin): timed out \(action)") }
        throw AuthCoreError(.transportFailure, "\(origin): \(action) failed: \(Self.describe(code))")
    }

    private func failTLS(_ tls: OpaquePointer, _ result: Int32, while action: String) throws(AuthCoreError) {
        let code = errno
        switch SSL_get_error(tls, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            // On a blocking socket these mean the receive/send timeout expired.
            throw AuthCoreError(.timedOut, "\(origin): timed out \(action)")
        case SSL_ERROR_SYSCALL:
            try failSocket(code == 0 ? ECONNRESET : code, while: action)
        default:
            throw AuthCoreError(.transportFailure, "\(origin): TLS failure \(action): \(TLSClientContext.openSSLErrors())")
        }
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    // MARK: - Connect and handshake

    private static func openConnectedSocket(
        host: String, port: Int, timeout: Duration, cancellation: ConnectionCancellation, origin: String, totalLimit: Duration
    ) throws(AuthCoreError) -> Int32 {
        // `localhost` and `*.localhost` are loopback by definition (RFC 6761 §6.3): connected to
        // 127.0.0.1, then ::1, without a DNS lookup that could answer another address.
        let localhost = NetworkPolicy.isLocalhostName(host)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        if localhost { hints.ai_flags = AI_NUMERICHOST }
        let deadline = ContinuousClock.now + timeout
        var lastError = ECONNREFUSED
        for name in localhost ? ["127.0.0.1", "::1"] : [host] {
            var found: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(name, String(port), &hints, &found)
            guard status == 0, let first = found else {
                if localhost { continue }
                let why = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
                throw AuthCoreError(.transportFailure, "\(origin): cannot resolve the host: \(why)")
            }
            defer { freeaddrinfo(first) }
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let entry = next {
                next = entry.pointee.ai_next
                let descriptor = socket(entry.pointee.ai_family, streamSocket | closeOnExec, 0)
                guard descriptor >= 0 else {
                    lastError = errno
                    continue
                }
                // Not inherited by child processes (SOCK_CLOEXEC where it exists; FD_CLOEXEC either way).
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                guard cancellation.attach(descriptor) else {
                    throw cancellation.stopError(origin, limit: totalLimit) ?? AuthCoreError(.cancelled, "\(origin): cancelled")
                }
                let outcome = connectOne(descriptor, entry.pointee, deadline: deadline, cancellation: cancellation)
                if outcome == 0 {
                    var one: Int32 = 1
                    // TCP_NODELAY (<netinet/tcp.h>, value 1): the head and the body go out without waiting.
                    _ = setsockopt(descriptor, Int32(IPPROTO_TCP), 1, &one, socklen_t(MemoryLayout<Int32>.size))
                    return descriptor
                }
                cancellation.closeSocket()
                if let error = cancellation.stopError(origin, limit: totalLimit) { throw error }
                if outcome == ETIMEDOUT {
                    throw AuthCoreError(.timedOut, "\(origin): no connection within \(timeout)")
                }
                lastError = outcome
            }
        }
        throw AuthCoreError(.transportFailure, "\(origin): cannot connect: \(describe(lastError))")
    }

    /// Connects without blocking and polls in slices of at most 100 ms until `deadline`; returns 0
    /// or an errno value (ETIMEDOUT at the deadline).
    private static func connectOne(_ descriptor: Int32, _ entry: addrinfo, deadline: ContinuousClock.Instant, cancellation: ConnectionCancellation)
        -> Int32
    {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return errno }
        if connect(descriptor, entry.ai_addr, entry.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return errno }
            while true {
                if cancellation.isCancelled { return ECANCELED }
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return ETIMEDOUT }
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let slice = Swift.min(left, .milliseconds(100)).components  // ≤ 100 ms: no overflow below
                let milliseconds = Int32(Swift.max(1, slice.seconds * 1000 + slice.attoseconds / 1_000_000_000_000_000))
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0, errno != EINTR { return errno }
                if ready > 0 { break }
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return errno }
            if failure != 0 { return failure }
        }
        guard fcntl(descriptor, F_SETFL, flags) == 0 else { return errno }
        return 0
    }

    private func handshake(host: String, context: TLSClientContext, timeout: Duration) throws(AuthCoreError) {
        guard let tls = SSL_new(context.context) else {
            throw AuthCoreError(.transportFailure, "\(origin): TLS: \(TLSClientContext.openSSLErrors())")
        }
        self.tls = tls
        guard SSL_set_fd(tls, descriptor) == 1 else { throw AuthCoreError(.transportFailure, "\(origin): TLS: \(TLSClientContext.openSSLErrors())") }
        // The certificate must name the host: an IP address as an IP SAN, a name by RFC 6125 rules;
        // SNI carries names only (RFC 6066 §3).
        if Self.isIPAddress(host) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls), host) == 1 else {
                throw AuthCoreError(.transportFailure, "\(origin): TLS: cannot check the address \(host)")
            }
        } else {
            authcore_ssl_strict_host_check(tls)
            guard authcore_ssl_set_server_name(tls, host) == 1, SSL_set1_host(tls, host) == 1 else {
                throw AuthCoreError(.transportFailure, "\(origin): TLS: cannot check the host name \(host)")
            }
        }
        setTimeout(timeout)
        ERR_clear_error()
        let result = SSL_connect(tls)
        guard result == 1 else {
            try checkCancelled()
            let verification = SSL_get_verify_result(tls)
            if verification != X509_V_OK {
                let why = X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "error \(verification)"
                throw AuthCoreError(.transportFailure, "\(origin): TLS certificate not accepted: \(why)")
            }
            try failTLS(tls, result, while: "in the TLS handshake")
            return
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
