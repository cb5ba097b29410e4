public import AuthCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's default ``HTTPTransport``: HTTP/1.1 over a socket it owns (TLS by OpenSSL 3), so
/// that every limit of the ``NetworkPolicy`` holds in the read loop itself.
///
/// - plain `http` only to loopback hosts unless the request allows it; `https` verifies the peer's
///   certificate chain against the system store (or ``Configuration/trustedCertificatesFile``) and
///   that it names the host (RFC 6125; an address must be an IP SAN), TLS 1.2 or later;
/// - redirects refused (the 3xx answer is returned) unless the request opts in to same-origin ones;
/// - the body capped while it is read: a `Content-Length` over the cap is refused before any body
///   byte, and a chunked or close-delimited body is refused when it would pass the cap. Nothing is
///   read ahead of the parser (one 16 KiB buffer), so peak memory is the cap plus a constant
///   whatever the peer streams (``HTTP1ResponseParser``);
/// - every wait bounded: connect, idle time between bytes, and the whole exchange;
/// - cancelling the calling task stops the exchange at once (the socket is shut down).
///
/// Proxies (``Configuration/proxies``): by default those of `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`,
/// `https` through a `CONNECT` tunnel (``HTTPProxy``). Connections race the host's addresses
/// (Happy Eyeballs, RFC 8305), so a black-holed address costs 250 ms, not the connect limit.
///
/// Connections persist (HTTP/1.1 keep-alive) and are reused per origin
/// (``Configuration/maximumIdleConnectionsPerHost``, ``Configuration/idleConnectionTimeout``); one
/// is closed after any framing doubt. Exchanges run on a bounded set of threads of their own, so
/// blocking reads never occupy the concurrency pool. No cookies, no cache, no compression.
public struct HTTP1Transport: HTTPTransport {
    /// True: a ``HTTPBody/stream(_:)`` body and ``HTTPRequest/responseSink`` are honoured.
    public var streamsBodies: Bool { true }

    /// Timeouts, limits and trust.
    public struct Configuration: Sendable {
        /// The longest wait for a connection and TLS handshake.
        public var connectTimeout: Duration = .seconds(30)
        /// The longest wait for the next bytes, sending or receiving.
        public var idleTimeout: Duration = .seconds(60)
        /// The longest a whole exchange (all redirects included) may take.
        public var totalTimeout: Duration = .seconds(300)
        /// The most bytes of status line and header fields accepted (and of chunked trailers).
        public var maximumHeadBytes = 64 << 10
        /// A PEM file of the certificates to trust instead of the system store (a private CA, a
        /// test server's self-signed certificate); nil for the system store. Read when a transport
        /// first names the path; the context made from it lasts as long as the process.
        public var trustedCertificatesFile: String?
        /// The proxies requests go through: by default those the environment names
        /// (``ProxyConfiguration/fromEnvironment(_:)``, read when the transport is made).
        public var proxies: ProxySelection = .environment
        /// The most idle connections kept open per origin for later requests; 0 for one connection
        /// per request (`Connection: close`).
        public var maximumIdleConnectionsPerHost = 8
        /// How long a kept connection may idle before it is closed instead of reused (servers close
        /// idle connections after 5 to 75 seconds; a connection the server has closed is never reused).
        public var idleConnectionTimeout: Duration = .seconds(20)
        /// How long a kept connection may have idled and still carry a request that must not be
        /// repeated (a `POST`): a server that closes it as the request goes out leaves no safe retry,
        /// so such a request takes only a connection used this recently, and opens one otherwise.
        public var unrepeatableRequestFreshness: Duration = .seconds(2)

        /// The defaults: 30 s connect, 60 s idle, 300 s in all, 64 KiB of head, the system store,
        /// the environment's proxies, up to 8 idle connections per origin kept for 20 s, a `POST` on
        /// a kept connection idle for at most 2 s.
        public init() {}
    }

    /// Where a transport's proxies come from.
    public enum ProxySelection: Sendable, Hashable {
        /// `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (``ProxyConfiguration/fromEnvironment(_:)``).
        /// A malformed value fails every request with its typed error rather than bypass the proxy.
        case environment
        /// These proxies (``ProxyConfiguration/direct`` for none), whatever the environment says.
        case configured(ProxyConfiguration)
    }

    /// This transport's settings.
    public let configuration: Configuration
    private let tls: TLSClientContext?
    private let proxies: Result<ProxyConfiguration, AuthCoreError>
    let pool: HTTP1ConnectionPool

    /// The pool every transport made by ``init()`` shares, so that clients made with the default
    /// transport share connections too.
    private static let sharedPool = HTTP1ConnectionPool(
        maximumIdlePerKey: Configuration().maximumIdleConnectionsPerHost,
        idleLimit: Configuration().idleConnectionTimeout
    )

    /// A transport with the default ``Configuration``, sharing the process's pool of connections.
    public init() {
        configuration = Configuration()
        tls = TLSClientContext.system
        proxies = Self.proxies(configuration.proxies, environment: ProcessInfo.processInfo.environment)
        pool = Self.sharedPool
    }

    // bytes-lint: the process environment, looked up by fixed ASCII variable names.
    private static func proxies(
        _ selection: ProxySelection,
        environment: [String: String]
    ) -> Result<ProxyConfiguration, AuthCoreError> {
        switch selection {
        case .configured(let proxies): .success(proxies)
        case .environment: Result { () throws(AuthCoreError) in try ProxyConfiguration.fromEnvironment(environment) }
        }
    }

    /// A transport with `configuration`, and a pool of connections of its own (copies of the
    /// transport share it).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the trusted-certificates file cannot be loaded.
    public init(configuration: Configuration) throws(AuthCoreError) {
        try self.init(configuration: configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// A transport with `configuration`, reading proxies from `environment` when it says so.
    // bytes-lint: the process environment, looked up by fixed ASCII variable names.
    init(configuration: Configuration, environment: [String: String]) throws(AuthCoreError) {
        self.configuration = configuration
        tls = try TLSClientContext.trusting(configuration.trustedCertificatesFile)
        proxies = Self.proxies(configuration.proxies, environment: environment)
        pool = HTTP1ConnectionPool(
            maximumIdlePerKey: configuration.maximumIdleConnectionsPerHost,
            idleLimit: configuration.idleConnectionTimeout,
            unrepeatableFreshness: configuration.unrepeatableRequestFreshness
        )
    }

    public func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        try NetworkPolicy.requireSecureTransport(request.url, allowInsecureHTTP: request.allowsInsecureHTTP)
        let proxies = try proxies.get()
        let head = try HTTP1RequestHead(
            request,
            proxy: proxies.proxy(for: request.url),
            keepAlive: pool.keepsConnections
        )
        let what = "\(request.method) \(request.url.origin)"
        let cancellation = ConnectionCancellation()
        let exchange = HTTP1Exchange(
            configuration: configuration,
            tls: tls,
            proxies: proxies,
            pool: pool,
            cancellation: cancellation
        )
        let completion = HTTP1Completion()
        let totalTimeout = configuration.totalTimeout
        guard !Task.isCancelled else { throw AuthCoreError(.cancelled, "\(what): cancelled") }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                    completion.install(continuation)
                    let started = BlockingExecutor.shared.submit {
                        completion.resume(Result { () throws(AuthCoreError) in try exchange.run(request, head: head) })
                    }
                    guard started else {
                        completion.resume(
                            .failure(
                                AuthCoreError(.transportFailure, "\(what): no thread could be started for the exchange")
                            )
                        )
                        return
                    }
                    // The watchdog: whatever the thread is blocked in (a name lookup, a slow TLS record),
                    // the call ends at the total limit; the socket is shut down so the thread ends too.
                    // After the call has ended it finds nothing to do (its socket is detached or closed).
                    DispatchQueue.global().asyncAfter(deadline: .now() + DispatchTimeInterval(clamping: totalTimeout)) {
                        cancellation.stop(.timedOut)
                        completion.resume(
                            .failure(AuthCoreError(.timedOut, "\(what): no complete answer within \(totalTimeout)"))
                        )
                    }
                    // A cancel that came before the continuation was installed found nothing to resume.
                    if let error = cancellation.stopError("\(what)", limit: totalTimeout) {
                        completion.resume(.failure(error))
                    }
                }
            } onCancel: {
                cancellation.cancel()
                completion.resume(.failure(AuthCoreError(.cancelled, "\(what): cancelled")))
            }
        } catch let error as AuthCoreError {
            throw error
        } catch {
            throw AuthCoreError(.transportFailure, "\(what): \(error)")
        }
    }
}

/// Resumes a call's continuation exactly once: from the exchange thread, the watchdog, or a cancel,
/// whichever comes first (the others find it taken).
final class HTTP1Completion: Sendable {
    private let continuation = Locked<CheckedContinuation<HTTPResponse, any Error>?>(nil)
    private let early = Locked<Result<HTTPResponse, AuthCoreError>?>(nil)

    func install(_ continuation: CheckedContinuation<HTTPResponse, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ result: Result<HTTPResponse, AuthCoreError>) {
        guard
            let continuation = continuation.withLock({ (slot: inout CheckedContinuation<HTTPResponse, any Error>?) in
                defer { slot = nil }
                return slot
            })
        else { return }
        continuation.resume(with: result.mapError { $0 as any Error })
    }
}

/// One request with its redirects, run on one thread.
struct HTTP1Exchange: Sendable {
    let configuration: HTTP1Transport.Configuration
    let tls: TLSClientContext?
    let proxies: ProxyConfiguration
    let pool: HTTP1ConnectionPool
    let cancellation: ConnectionCancellation

    func run(_ request: HTTPRequest, head: HTTP1RequestHead) throws(AuthCoreError) -> HTTPResponse {
        // A call that ended while this waited for a thread (its watchdog, a cancel) does nothing:
        // it takes no pooled connection and resolves no name.
        if let error = cancellation.stopError(
            "\(request.method) \(request.url.origin)",
            limit: configuration.totalTimeout
        ) {
            throw error
        }
        let deadline = ContinuousClock.now + configuration.totalTimeout
        var current = request
        var currentHead = head
        var followed = 0
        while true {
            let response = try exchangeOnce(current, head: currentHead, deadline: deadline)
            guard case .followSameOrigin(let maximum) = request.redirects, followed < maximum,
                let next = RedirectPolicy.sameOriginRedirect(from: current, answer: response, original: request)
            else { return response }
            followed += 1
            current = next
            currentHead = try HTTP1RequestHead(
                next,
                proxy: proxies.proxy(for: next.url),
                keepAlive: pool.keepsConnections
            )
        }
    }

    /// One request and its answer: on an idle pooled connection when there is one, else on a new
    /// one. A pooled connection that turns out stale (the peer closed it while it idled) is retried
    /// once on a new connection when that cannot repeat an action: nothing of the request was
    /// written, or the method is idempotent and no answer byte came (RFC 9112 §9.3.1).
    private func exchangeOnce(
        _ request: HTTPRequest,
        head: HTTP1RequestHead,
        deadline: ContinuousClock.Instant
    ) throws(AuthCoreError)
        -> HTTPResponse
    {
        let proxy = proxies.proxy(for: request.url)
        let key = HTTP1ConnectionPool.Key(url: request.url, proxy: proxy, tls: tls)
        if pool.keepsConnections,
            let pooled = pool.take(key, repeatable: Self.idempotentMethods.contains(request.method))
        {
            guard pooled.adopt(cancellation, totalLimit: configuration.totalTimeout) else {
                throw cancellation.stopError(
                    "\(request.method) \(request.url.origin)",
                    limit: configuration.totalTimeout
                )
                    ?? AuthCoreError(.cancelled, "\(request.method) \(request.url.origin): cancelled")
            }
            switch exchange(request, head: head, on: pooled, key: key, reused: true, deadline: deadline) {
            case .answered(let response): return response
            case .failed(let error): throw error
            case .stale: break  // a new connection below
            }
        }
        let connection = try HTTP1Connection(
            to: request.url,
            proxy: proxy,
            tls: tls,
            resuming: request.url.scheme == "https" ? pool.session(for: key) : nil,
            connectTimeout: Swift.min(configuration.connectTimeout, deadline - ContinuousClock.now),
            totalLimit: configuration.totalTimeout,
            cancellation: cancellation
        )
        switch exchange(request, head: head, on: connection, key: key, reused: false, deadline: deadline) {
        case .answered(let response): return response
        case .failed(let error), .stale(let error): throw error
        }
    }

    /// How one exchange on one connection ended.
    private enum Attempt {
        case answered(HTTPResponse)
        case failed(AuthCoreError)
        /// A reused connection failed where a retry on a new one is safe.
        case stale(AuthCoreError)
    }

    private func exchange(
        _ request: HTTPRequest,
        head: HTTP1RequestHead,
        on connection: HTTP1Connection,
        key: HTTP1ConnectionPool.Key,
        reused: Bool,
        deadline: ContinuousClock.Instant
    ) -> Attempt {
        let what = "\(request.method) \(request.url.origin)"
        func waitLimit() throws(AuthCoreError) -> Duration {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw AuthCoreError(.timedOut, "\(what): no complete answer within \(configuration.totalTimeout)")
            }
            return Swift.min(configuration.idleTimeout, left)
        }
        var wroteAnything = false
        // A server may answer (413, 403) and close before it has read the whole body: a failed send
        // is reported only if no answer can be read after it.
        var sendFailure: AuthCoreError?
        do throws(AuthCoreError) {
            connection.setTimeout(try waitLimit())
            if case .stream(let stream) = request.body {
                try head.write(to: connection, wroteAnything: &wroteAnything)
                try Self.send(
                    stream,
                    on: connection,
                    what: what,
                    waitLimit: waitLimit,
                    isStopped: { cancellation.isCancelled }
                )
            } else {
                // The head and a small body in one write (HTTP1RequestHead.write).
                _ = try request.body.withInMemoryBytes { (bytes) throws(AuthCoreError) in
                    try head.write(to: connection, body: bytes, wroteAnything: &wroteAnything)
                }
            }
        } catch  where error.code == .transportFailure {
            sendFailure = error
        } catch {
            connection.close()
            return .failed(error)
        }
        if reused, !wroteAnything, let sendFailure {
            connection.close()
            return .stale(sendFailure)
        }
        var parser = HTTP1ResponseParser(
            method: request.method,
            maximumHeadBytes: configuration.maximumHeadBytes,
            maximumBodyBytes: request.maximumResponseBytes
        )
        if let sink = request.responseSink {
            parser.bodySink = { (bytes) throws(AuthCoreError) in try sink.write(bytes) }
        }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        defer { buffer.withUnsafeMutableBytes { wipeSecretMemory($0) } }  // it held the answer's secrets
        var readPastAnswer = false
        var receivedAnything = false
        do throws(AuthCoreError) {
            try readResponse(
                into: &parser,
                from: connection,
                buffer: &buffer,
                waitLimit: waitLimit,
                request: request,
                readPastAnswer: &readPastAnswer,
                receivedAnything: &receivedAnything
            )
        } catch {
            parser.discardBody()
            connection.close()
            if reused, !receivedAnything, Self.idempotentMethods.contains(request.method),
                error.code == .transportFailure
            {
                return .stale(sendFailure ?? error)
            }
            request.responseSink?.abandon()
            return .failed(sendFailure ?? error)
        }
        if let sink = request.responseSink, (200..<300).contains(parser.status) {
            do throws(AuthCoreError) { try sink.finish() } catch {
                connection.close()
                return .failed(error)
            }
        }
        // A new connection's session, once its first answer has brought the server's tickets: later
        // exchanges on it would only ask OpenSSL for the same session again.
        if !reused, let session = connection.resumableSession { pool.keep(session, for: key) }
        if let proxy = head.proxy, parser.status == 407 {
            parser.discardBody()
            connection.close()
            return .failed(
                AuthCoreError(
                    .notPermitted,
                    "\(what) (through the proxy \(proxy)): the proxy "
                        + (proxy.hasCredentials ? "refused its credentials" : "requires credentials")
                        + " (407 Proxy Authentication Required)",
                    httpStatus: 407
                )
            )
        }
        // Fields that change how the connection is used after the answer (an `Expect` whose body
        // was sent unasked-for, an `Upgrade`) leave it out of the pool.
        let changesConnection = request.headers.contains { field in
            Self.connectionChangingFields.contains { field.hasName($0) }
        }
        if sendFailure == nil, !readPastAnswer, !changesConnection, parser.allowsReuse, pool.keepsConnections,
            connection.detach()
        {
            pool.put(connection, for: key, serverTimeout: parser.keepAliveTimeout)
        } else {
            // After a complete answer: a graceful close (close_notify), unless bytes nobody asked
            // for arrived or the send failed.
            connection.close(gracefully: sendFailure == nil && !readPastAnswer)
        }
        if request.answerCarriesSecrets && (200..<300).contains(parser.status) {
            return .answered(
                HTTPResponse(
                    status: parser.status,
                    headers: parser.headers,
                    body: .secret(parser.takeBodyIntoWipingStorage())
                )
            )
        }
        return .answered(HTTPResponse(status: parser.status, headers: parser.headers, body: parser.body))
    }

    /// Sends a streamed body: as it is with a known length (which the chunks must add up to), else
    /// in chunked transfer coding (RFC 9112 §7.1). Each wait is bounded as for any write.
    static func send(
        _ stream: HTTPBodyStream,
        on connection: HTTP1Connection,
        what: String,
        waitLimit: () throws(AuthCoreError) -> Duration,
        isStopped: () -> Bool = { false }
    ) throws(AuthCoreError) {
        // The source's own failures (a file that cannot be read, a caller's chunks that end early)
        // are the request's, not the connection's: they fail the exchange (the connection is
        // closed) rather than wait for an answer to a truncated body.
        func local(_ error: AuthCoreError) -> AuthCoreError {
            error.code == .transportFailure || error.code == .timedOut
                ? AuthCoreError(.invalidParameter, "\(what): the body's source: \(error.reason)") : error
        }
        let chunks: any HTTPBodyChunks
        do { chunks = try stream.open() } catch { throw local(error) }
        var sent = 0
        while true {
            let limit = try waitLimit()
            connection.setTimeout(limit)  // also ends a source that never ends at the deadline
            let next: [UInt8]?
            do { next = try chunks.next(waitingAtMost: limit, isStopped: isStopped) } catch { throw local(error) }
            guard let chunk = next else { break }
            guard !chunk.isEmpty else {
                throw AuthCoreError(.invalidParameter, "\(what): the body's source gave an empty chunk")
            }
            if let length = stream.length {
                // Checked before the bytes go out: what passed the length would be read as the
                // start of another request.
                guard chunk.count <= length - sent else {
                    throw AuthCoreError(
                        .malformedRequest,
                        "\(what): the streamed body is longer than its \(length) bytes"
                    )
                }
                try chunk.withUnsafeBytesTyped { (raw) throws(AuthCoreError) in try connection.write(raw) }
            } else {
                // One write per chunk: size line, data and CRLF together.
                var framed = Array((String(chunk.count, radix: 16) + "\r\n").utf8)
                framed.reserveCapacity(framed.count + chunk.count + 2)
                framed += chunk
                framed += [0x0D, 0x0A]
                try framed.withUnsafeBytesTyped { (raw) throws(AuthCoreError) in try connection.write(raw) }
            }
            sent += chunk.count
        }
        if let length = stream.length {
            guard sent == length else {
                throw AuthCoreError(
                    .malformedRequest,
                    "\(what): the streamed body ended after \(sent) of its \(length) bytes"
                )
            }
        } else {
            try Array("0\r\n\r\n".utf8).withUnsafeBytesTyped { (raw) throws(AuthCoreError) in try connection.write(raw)
            }
        }
    }

    /// Request fields after which a connection is not reused (lower case).
    static let connectionChangingFields: [StaticString] = ["expect", "upgrade", "te", "keep-alive", "proxy-connection"]

    /// Methods whose repetition has the effect of one request (RFC 9110 §9.2.2).
    // bytes-lint: request methods the caller gave (validated tokens), compared as whole ASCII strings.
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    private func readResponse(
        into parser: inout HTTP1ResponseParser,
        from connection: HTTP1Connection,
        buffer: inout [UInt8],
        waitLimit: () throws(AuthCoreError) -> Duration,
        request: HTTPRequest,
        readPastAnswer: inout Bool,
        receivedAnything: inout Bool
    ) throws(AuthCoreError) {
        while !parser.isComplete {
            connection.setTimeout(try waitLimit())
            let count = try buffer.withUnsafeMutableBytesTyped { (raw) throws(AuthCoreError) in
                try connection.read(into: raw)
            }
            if count > 0 { receivedAnything = true }
            do throws(HTTP1ResponseParser.Failure) {
                guard count > 0 else {
                    // Over TLS, a close without close_notify may be an attacker's FIN: an unframed
                    // body cannot tell that from its end, so it is refused as truncated.
                    if connection.endedWithoutCloseNotify && parser.bodyRunsUntilClose { throw .truncated }
                    try parser.finishAtEndOfStream()
                    return
                }
                let used = try buffer.withUnsafeBytesTyped { (raw) throws(HTTP1ResponseParser.Failure) in
                    try parser.consume(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                }
                // Bytes after the answer belong to no request: the connection is not reused.
                if used < count { readPastAnswer = true }
            } catch {
                throw Self.error(error, from: request)
            }
        }
    }

    static func error(_ failure: HTTP1ResponseParser.Failure, from request: HTTPRequest) -> AuthCoreError {
        let origin = request.url.origin
        let limit = Swift.max(0, request.maximumResponseBytes)
        switch failure {
        case .announcedTooLarge(let length):
            return AuthCoreError(
                .inputTooLarge,
                "response from \(origin) announces \(length) bytes, more than the \(limit)-byte limit"
            )
        case .bodyTooLarge:
            return AuthCoreError(.inputTooLarge, "response from \(origin) exceeds the \(limit)-byte limit")
        case .headTooLarge:
            return AuthCoreError(
                .inputTooLarge,
                "response from \(origin) has a head (status line and fields) over the limit"
            )
        case .malformed(let why):
            return AuthCoreError(.transportFailure, "response from \(origin) is not valid HTTP/1.1: \(why)")
        case .truncated:
            return AuthCoreError(.transportFailure, "response from \(origin) ended early (connection closed)")
        case .sinkFailed(let error):
            return error
        }
    }
}

extension RedirectPolicy {
    /// The request to send for a same-origin 301/302/303/307/308 answer to `request`, or nil when the
    /// answer is not such a redirect (RFC 9110 §15.4): 303, and 301/302 after a POST, become a GET
    /// without a body; 307 and 308 repeat the method and body. `Location` may be absolute, or a
    /// path on the same origin; anything else is not followed.
    static func sameOriginRedirect(
        from request: HTTPRequest,
        answer: HTTPResponse,
        original: HTTPRequest
    ) -> HTTPRequest? {
        guard [301, 302, 303, 307, 308].contains(answer.status), let location = answer.headers.first(named: "location")
        else { return nil }
        let target: RequestURL?
        // The kind of reference by its first bytes (RFC 3986 §4.2): network-path, absolute-path, or absolute.
        if location.utf8.starts(with: "//".utf8) {
            target = try? RequestURL("\(request.url.scheme):\(location)")
        } else if location.utf8.first == UInt8(ascii: "/") {
            target = try? RequestURL(request.url.origin + location)
        } else {
            target = try? RequestURL(location)
        }
        guard let target, NetworkPolicy.sameOrigin(target, original.url) else { return nil }
        var next = request
        next.url = target
        if answer.status == 303 || ((answer.status == 301 || answer.status == 302) && request.method == "POST") {
            next.method = request.method == "HEAD" ? "HEAD" : "GET"
            next.body = .empty
            next.headers = request.headers.filter { header in
                !["content-length", "content-type", "content-encoding", "x-amz-decoded-content-length"].contains {
                    header.hasName($0)
                }
            }
        }
        return next
    }
}
