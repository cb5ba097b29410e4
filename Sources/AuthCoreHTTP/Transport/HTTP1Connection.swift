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
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let noSignal: Int32 = 0
#endif

/// `close(2)`, where a method named `close` would hide it.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

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

    /// Forgets the registered socket without closing it (the connection goes back to the pool);
    /// false when the call was stopped meanwhile (its socket is shut down: not reusable).
    func detachSocket() -> Bool {
        state.withLock { state in
            state.socket = nil
            return state.reason == nil
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

    /// The contexts made for trusted-certificate files, one per path, kept for the life of the
    /// process like ``system``: a context freed on a transport's thread while the process exits
    /// would run `SSL_CTX_free` after OpenSSL's own exit handler has torn its locks down (a crash
    /// at exit, seen under ThreadSanitizer). A file is read when its path is first used.
    private static let byFile = Locked<[String: TLSClientContext]>([:])

    /// The context trusting the system store (`file` nil) or only the certificates in `file`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the file cannot be loaded.
    static func trusting(_ file: String?) throws(AuthCoreError) -> TLSClientContext? {
        guard let file else { return system }
        if let known = byFile.withLock({ $0[file] }) { return known }
        let made = try TLSClientContext(trustedCertificatesFile: file)
        return byFile.withLock { contexts in
            if let raced = contexts[file] { return raced }
            contexts[file] = made
            return made
        }
    }

    /// A context trusting the system store, or only the certificates in `trustedCertificatesFile`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the file cannot be loaded.
    init(trustedCertificatesFile: String?) throws(AuthCoreError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw AuthCoreError(.transportFailure, "TLS: \(Self.openSSLErrors())")
        }
        self.context = context
        guard authcore_ssl_ctx_require_tls12(context) == 1 else {
            throw AuthCoreError(.transportFailure, "TLS: cannot require TLS 1.2")
        }
        authcore_ssl_ctx_set_client_options(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let file = trustedCertificatesFile {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw AuthCoreError(
                    .invalidParameter,
                    "trusted certificates file cannot be loaded: \(Self.openSSLErrors())"
                )
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw AuthCoreError(
                    .transportFailure,
                    "TLS: system certificates cannot be loaded: \(Self.openSSLErrors())"
                )
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
            texts.append(
                String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            )
        }
        return texts.isEmpty ? "unknown error" : texts.joined(separator: "; ")
    }
}

/// A TLS session a new connection can resume (OpenSSL `SSL_SESSION`, reference counted), freed
/// when the last holder lets it go.
final class TLSSession: @unchecked Sendable {
    // invariant (Sendable): the session is only passed to SSL_set_session, which takes a reference
    // of its own; OpenSSL counts references atomically.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_SESSION_free(pointer) }
}

/// One HTTP/1.1 connection on a blocking socket, optionally under TLS, used by one thread at a time:
/// by the exchange that opened it, then by each exchange that takes it from the
/// ``HTTP1ConnectionPool`` (which registers the socket with its own cancellation, ``adopt(_:totalLimit:)``).
///
/// Every wait is bounded: the connect by `connectTimeout` (polled in short slices so a cancel is
/// seen), each read and write by the socket's receive/send timeout, which the caller sets before
/// each call from the idle timeout and the time left.
final class HTTP1Connection: @unchecked Sendable {
    // invariant (Sendable): one exchange at a time holds the connection (the pool hands an idle one
    // to one taker, under its lock); only that exchange's thread calls its methods.
    private let descriptor: Int32
    private var tls: OpaquePointer?
    private var cancellation: ConnectionCancellation
    /// Whether `cancellation` holds the socket (false while the connection is idle in the pool).
    private var attached = true
    private var closed = false
    private let origin: String
    private var totalLimit: Duration
    /// Whether a TLS peer closed the connection without close_notify (an unframed body then may
    /// have been cut by someone on the path: see ``HTTP1Exchange``).
    private(set) var endedWithoutCloseNotify = false

    /// Connects to `url`'s host and port (or to `proxy`, through a `CONNECT` tunnel for `https`), and
    /// for `https` completes a verified TLS handshake with the origin.
    ///
    /// - Throws: `AuthCoreError` `.transportFailure` (name resolution, refused, TLS or certificate
    ///   failure, a proxy's refusal), `.notPermitted` (the proxy's 407), `.timedOut`, `.cancelled`.
    init(
        to url: RequestURL,
        proxy: HTTPProxy?,
        tls context: TLSClientContext?,
        resuming session: TLSSession? = nil,
        connectTimeout: Duration,
        totalLimit: Duration,
        cancellation: ConnectionCancellation
    ) throws(AuthCoreError) {
        self.cancellation = cancellation
        self.totalLimit = totalLimit
        origin = proxy.map { "\(url.origin) (through the proxy \($0))" } ?? url.origin
        let host = Self.unbracketed(url.host)
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        // One budget for the connection, the tunnel and the handshake together.
        let deadline = ContinuousClock.now + connectTimeout
        descriptor = try Self.openConnectedSocket(
            host: proxy.map { Self.unbracketed($0.host) } ?? host,
            port: proxy?.port ?? port,
            deadline: deadline,
            timeout: connectTimeout,
            cancellation: cancellation,
            origin: origin,
            totalLimit: totalLimit
        )
        guard url.scheme == "https" else { return }
        guard let context else {
            cancellation.closeSocket()
            throw AuthCoreError(.transportFailure, "\(origin): TLS is not available")
        }
        do throws(AuthCoreError) {
            if let proxy {
                try openTunnel(to: "\(url.host):\(port)", through: proxy, deadline: deadline, limit: connectTimeout)
            }
            try handshake(
                host: host,
                context: context,
                resuming: session,
                timeout: try timeLeft(until: deadline, limit: connectTimeout)
            )
        } catch {
            close()
            throw error
        }
    }

    /// The time left until `deadline`, at least a millisecond; a deadline passed is `.timedOut`.
    private func timeLeft(until deadline: ContinuousClock.Instant, limit: Duration) throws(AuthCoreError) -> Duration {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw AuthCoreError(.timedOut, "\(origin): no connection within \(limit)") }
        return left
    }

    private static func unbracketed(_ host: String) -> String {
        host.utf8.first == UInt8(ascii: "[") ? String(host.dropFirst().dropLast()) : host
    }

    /// Ends the connection. `gracefully` (after a complete answer, or an idle connection let go):
    /// the TLS connection is marked as shut down, which keeps its session resumable (OpenSSL
    /// withdraws the session of a connection freed otherwise, as after a failure). No close_notify
    /// is written: a write to a peer that has gone raises SIGPIPE on threads that do not block it
    /// (a pool may be let go from any thread), and an HTTP answer's framing, not the close, ends it.
    func close(gracefully: Bool = false) {
        guard !closed else { return }
        closed = true
        if let tls {
            if gracefully { SSL_set_shutdown(tls, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN) }
            SSL_free(tls)
            self.tls = nil
        }
        if attached { cancellation.closeSocket() } else { closeDescriptor(descriptor) }
    }

    /// Leaves the current call's cancellation, for the pool; false (and the connection is closed)
    /// when that call was stopped meanwhile.
    func detach() -> Bool {
        guard attached, !closed else { return false }
        attached = false
        guard cancellation.detachSocket() else {
            close()
            return false
        }
        return true
    }

    /// Joins a new call: its cancellation now shuts this socket down. False (and the connection is
    /// closed) when that call is already stopped.
    func adopt(_ cancellation: ConnectionCancellation, totalLimit: Duration) -> Bool {
        guard !attached, !closed else { return false }
        self.cancellation = cancellation
        self.totalLimit = totalLimit
        guard cancellation.attach(descriptor) else {  // attach closed the socket
            closed = true
            if let tls {
                SSL_free(tls)
                self.tls = nil
            }
            return false
        }
        attached = true
        return true
    }

    /// The connection's TLS session when it can be resumed by a later connection (TLS 1.3 tickets
    /// arrive after the handshake, so this is asked after an answer), or nil.
    var resumableSession: TLSSession? {
        guard let tls, !closed, let session = SSL_get1_session(tls) else { return nil }
        let kept = TLSSession(session)
        return SSL_SESSION_is_resumable(session) == 1 ? kept : nil
    }

    /// Whether an idle connection can still carry a request: nothing is readable (a readable idle
    /// socket is a close, a reset or bytes nobody asked for) and no TLS bytes are buffered.
    var isReusable: Bool {
        guard !closed else { return false }
        if let tls, SSL_has_pending(tls) == 1 { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 0
    }

    /// Sets how long the next read or write may wait.
    func setTimeout(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var value = timeval(
            tv_sec: Int(Swift.max(0, seconds)),
            tv_usec: Int(Swift.max(0, attoseconds / 1_000_000_000_000))
        )
        if value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1000 }  // 0 would mean "wait forever"
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AuthCoreError) {
        var wrote = false
        try write(bytes, wroteAnything: &wrote)
    }

    /// Writes all of `bytes`; `wroteAnything` becomes true once a byte has gone out.
    func write(_ bytes: UnsafeRawBufferPointer, wroteAnything: inout Bool) throws(AuthCoreError) {
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
            wroteAnything = true
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
        throw AuthCoreError(.transportFailure, "\(origin): \(action) failed: \(systemErrorText(code))")
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
            throw AuthCoreError(
                .transportFailure,
                "\(origin): TLS failure \(action): \(TLSClientContext.openSSLErrors())"
            )
        }
    }

    // MARK: - Connect and handshake

    /// Resolves `host` and races connections to its addresses (``HappyEyeballs``); the winner is
    /// registered with `cancellation`.
    private static func openConnectedSocket(
        host: String,
        port: Int,
        deadline: ContinuousClock.Instant,
        timeout: Duration,
        cancellation: ConnectionCancellation,
        origin: String,
        totalLimit: Duration
    ) throws(AuthCoreError) -> Int32 {
        // `localhost` and `*.localhost` are loopback by definition (RFC 6761 §6.3): connected to
        // 127.0.0.1 and ::1, without a DNS lookup that could answer another address.
        let addresses: [SocketAddress]
        if NetworkPolicy.isLocalhostName(host) {
            addresses = ["127.0.0.1", "::1"].compactMap { SocketAddress(numericHost: $0, port: port) }
        } else {
            addresses = try SocketAddress.resolve(host: host, port: port, origin: origin)
        }
        switch HappyEyeballs.connect(to: addresses, deadline: deadline, isCancelled: { cancellation.isCancelled }) {
        case .connected(let descriptor, _):
            guard cancellation.attach(descriptor) else {
                throw cancellation.stopError(origin, limit: totalLimit)
                    ?? AuthCoreError(.cancelled, "\(origin): cancelled")
            }
            return descriptor
        case .cancelled:
            throw cancellation.stopError(origin, limit: totalLimit) ?? AuthCoreError(.cancelled, "\(origin): cancelled")
        case .timedOut:
            throw AuthCoreError(.timedOut, "\(origin): no connection within \(timeout)")
        case .failed(let code):
            throw AuthCoreError(.transportFailure, "\(origin): cannot connect: \(systemErrorText(code))")
        case .noAddresses:
            throw AuthCoreError(.transportFailure, "\(origin): the host has no address to connect to")
        }
    }

    /// Asks `proxy` for a tunnel to `authority` (`CONNECT`, RFC 9110 §9.3.6) and reads its answer:
    /// a 2xx head and nothing after it (the origin speaks first only after the TLS hello), or a
    /// refusal. The `Proxy-Authorization` line is written from wiping storage and wiped after.
    private func openTunnel(
        to authority: String,
        through proxy: HTTPProxy,
        deadline: ContinuousClock.Instant,
        limit: Duration
    ) throws(AuthCoreError) {
        setTimeout(try timeLeft(until: deadline, limit: limit))
        var wroteAnything = false
        try HTTP1RequestHead(connectTo: authority, through: proxy).write(to: self, wroteAnything: &wroteAnything)
        var parser = HTTP1ResponseParser(method: "CONNECT", maximumHeadBytes: 16 << 10, maximumBodyBytes: 0)
        var byte: UInt8 = 0
        // One byte at a time: nothing past the answer's head may be read (it would be the origin's).
        // Each read waits only for what is left of the connect budget, so a proxy that trickles
        // its answer is cut off at the connect limit, not the exchange's.
        while !parser.hasHead {
            setTimeout(try timeLeft(until: deadline, limit: limit))
            let count = try withUnsafeMutableBytes(of: &byte) { (raw) throws(AuthCoreError) in try read(into: raw) }
            guard count == 1 else {
                throw AuthCoreError(
                    .transportFailure,
                    "\(origin): the proxy closed the connection before answering CONNECT"
                )
            }
            do throws(HTTP1ResponseParser.Failure) {
                try withUnsafeBytes(of: byte) { (raw) throws(HTTP1ResponseParser.Failure) in _ = try parser.consume(raw)
                }
            } catch {
                throw AuthCoreError(.transportFailure, "\(origin): the proxy's answer to CONNECT is not valid HTTP/1.1")
            }
        }
        switch parser.status {
        case 200..<300:
            return
        case 407:
            throw AuthCoreError(
                .notPermitted,
                proxy.hasCredentials
                    ? "\(origin): the proxy refused its credentials (407 Proxy Authentication Required)"
                    : "\(origin): the proxy requires credentials (407 Proxy Authentication Required); give them in the proxy URL",
                httpStatus: 407
            )
        default:
            throw AuthCoreError(
                .transportFailure,
                "\(origin): the proxy refused the tunnel to \(authority) (\(parser.status))",
                httpStatus: parser.status
            )
        }
    }

    private func handshake(
        host: String,
        context: TLSClientContext,
        resuming session: TLSSession?,
        timeout: Duration
    ) throws(AuthCoreError) {
        guard let tls = SSL_new(context.context) else {
            throw AuthCoreError(.transportFailure, "\(origin): TLS: \(TLSClientContext.openSSLErrors())")
        }
        self.tls = tls
        guard SSL_set_fd(tls, descriptor) == 1 else {
            throw AuthCoreError(.transportFailure, "\(origin): TLS: \(TLSClientContext.openSSLErrors())")
        }
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
        // A session of the same origin and trust (the pool's key): the server may resume it; the
        // certificate was verified when it was made, and a refused one is a full handshake.
        if let session { _ = SSL_set_session(tls, session.pointer) }
        setTimeout(timeout)
        ERR_clear_error()
        let result = SSL_connect(tls)
        guard result == 1 else {
            try checkCancelled()
            let verification = SSL_get_verify_result(tls)
            if verification != X509_V_OK {
                let why =
                    X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "error \(verification)"
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
