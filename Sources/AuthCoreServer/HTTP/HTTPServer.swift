public import AuthCore
public import AuthCoreHTTP
internal import CAuthCoreMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: MHD's own pool of polling threads parses requests and
/// writes answers. Each complete request goes to an async ``Handler``, which starts on the polling
/// thread that received it: a handler that computes and answers (a login step, with its Redis
/// round trip made in place) is answered in that thread's callback, with no hop to another thread
/// and back. At its first wait on other work (a call to STS, a Redis call queued behind another)
/// its connection is suspended (MHD_suspend_connection) and the handler goes on on Dispatch's
/// global queue, so a slow handler holds no MHD thread. A handler must not block its thread; the
/// one wait that does is a Redis call made in place (one at a time in the process, each bounded by
/// the store's time limit), and while it lasts the connections its polling thread serves wait too.
///
/// Every handler has a time limit (``Configuration/handlerTimeout``), every request a deadline to
/// arrive in (``Configuration/requestTimeout``, head and body: a slow sender is cut off however
/// steadily it trickles), connections are limited in all and per client address, and idle ones
/// are closed. A request whose framing two readers could disagree on is refused
/// (``RequestFraming``), and an ``Admission`` check can refuse a request from its head alone.
///
/// Limits hold while receiving: a body announced longer than ``Configuration/maximumBodyBytes``
/// is answered `413` with a JSON error before any of it is read; a chunked body that grows past the
/// limit closes the connection; the request head is bounded by MHD's per-connection memory
/// (``Configuration/maximumHeadBytes``). Plain http is only served on a loopback address; any other
/// address needs ``Configuration/tls`` (MHD's TLS, from PEM text).
///
/// Answer bodies (session tokens, credentials) are copied into a buffer that is wiped when MHD
/// releases it; request bodies are wiped when the request completes (best effort: header fields,
/// a bearer token among them, are MHD's memory and are not).
public final class HTTPServer: Sendable {
    /// Where to listen and the limits.
    public struct Configuration: Sendable {
        /// The address to listen on, IPv4 or IPv6 (loopback by default): `"::"` listens on every
        /// IPv6 and IPv4 address (dual stack), `"0.0.0.0"` on every IPv4 one.
        public var host = "127.0.0.1"
        /// The port; 0 lets the system choose (see ``HTTPServer/port``).
        public var port = 0
        /// MHD's polling threads. With two or more, a handler starts on the thread that received its
        /// request (see ``HTTPServer``); with one, every handler runs on Dispatch's global queue, so
        /// that the one thread is never held by a handler.
        public var threads = 2
        /// Connections open at once; more are refused at accept.
        public var maximumConnections = 512
        /// Connections open at once from one client address, an IPv6 one counted per /64 (behind a
        /// proxy or a carrier's NAT, one address is many clients: raise it there).
        public var maximumConnectionsPerAddress = 32
        /// The longest a handler may take; then the client gets `503` (a suspended connection has
        /// no idle timeout of its own). Checked every 100 ms, with the request deadlines: the `503`
        /// goes out up to about 120 ms after the limit — or, for a handler still on the thread that
        /// received its request (computing, or waiting there on a Redis call made in place, which
        /// has the store's own time limit), when it first waits or ends.
        public var handlerTimeout: Duration = .seconds(30)
        /// A connection idle this long is closed (whole seconds).
        public var idleTimeout: Duration = .seconds(30)
        /// The longest a request may take to arrive, head and body, from its connection's start
        /// (or from the end of the connection's previous exchange): a slow sender is cut off then,
        /// however steadily it trickles bytes.
        public var requestTimeout: Duration = .seconds(10)
        /// The longest request body.
        public var maximumBodyBytes = 65_536
        /// MHD's memory per connection, which bounds the request line and header fields.
        public var maximumHeadBytes = 32_768
        /// TLS; required unless ``host`` is a loopback address.
        public var tls: TLSIdentity?
        /// How long ``HTTPServer/stop(grace:)`` lets the requests in flight finish by default
        /// (the graceful drain) before it answers the rest `503`.
        public var drainTimeout: Duration = .seconds(5)

        /// Loopback, a port the system chooses, two threads, 64 KiB bodies, plain http.
        public init() {}
    }

    /// A certificate chain and its private key, PEM.
    public struct TLSIdentity: Sendable {
        /// The certificate chain, leaf first (PEM).
        public var certificateChainPEM: [UInt8]
        /// The private key (PEM).
        public var privateKeyPEM: SecureBytes

        /// An identity from PEM text.
        public init(certificateChainPEM: [UInt8], privateKeyPEM: SecureBytes) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
        }

        /// An identity read from two PEM files of at most 1 MiB each.
        ///
        /// - Throws: `AuthCoreError.Code.malformedInput` naming the file that cannot be read, and
        ///   `SecretFile`'s errors for a key file that others may read.
        public init(certificateFile: String, privateKeyFile: String) throws(AuthCoreError) {
            certificateChainPEM = try ConfigurationFile.read(certificateFile, limit: 1 << 20, what: "certificate file")
            // The key file is checked like every secret file: a regular file of this user, mode 0600.
            guard let key = try SecretFile(path: privateKeyFile).read() else {
                throw AuthCoreError(.malformedInput, "private key file \(privateKeyFile) does not exist")
            }
            privateKeyPEM = key
        }
    }

    /// Answers one request. It must not throw: every failure is an answer (a JSON error).
    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPResponse

    /// Looks at a request when its head has arrived (the request's body is empty here) and may
    /// answer it at once, before its body is read and without a handler: for limits that must cost
    /// the server almost nothing. Called on the server's polling threads: it must not block.
    public typealias Admission = @Sendable (HTTPServerRequest) -> HTTPResponse?

    /// What the server was started with.
    public let configuration: Configuration
    /// The port it listens on (the system's choice when ``Configuration/port`` was 0).
    public let port: Int
    private let core: DaemonCore

    /// What ends each exchange's access record (see ``AccessRecord``); called on MHD's threads, so
    /// it must not block (``JSONLineLog`` queues its lines).
    public typealias RequestLog = @Sendable (AccessRecord) -> Void

    /// Starts listening.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for an address that is neither IPv4 nor
    ///   IPv6, a port outside 0…65535, limits that are not positive, or plain http on an address
    ///   that is not loopback; `.transportFailure` when MHD cannot start (the port is in use, the key
    ///   does not match the certificate, …).
    public init(
        configuration: Configuration,
        admission: Admission? = nil,
        requestLog: RequestLog? = nil,
        handler: @escaping Handler
    )
        throws(AuthCoreError)
    {
        guard let port = UInt16(exactly: configuration.port) else {
            throw AuthCoreError(.invalidParameter, "port \(configuration.port) is outside 0...65535")
        }
        guard var address = ListeningAddress(host: configuration.host, port: port) else {
            throw AuthCoreError(
                .invalidParameter,
                "listen address '\(configuration.host)' is not an IPv4 or IPv6 address"
            )
        }
        guard configuration.tls != nil || address.isLoopback else {
            throw AuthCoreError(
                .invalidParameter,
                "plain http is only served on a loopback address; give a certificate and key for \(configuration.host)"
            )
        }
        let idleSeconds = configuration.idleTimeout.components.seconds
        let requestNanoseconds = configuration.requestTimeout.components.seconds.multipliedReportingOverflow(
            by: 1_000_000_000
        )
        guard let threads = UInt32(exactly: configuration.threads), (1...256).contains(threads),
            let connections = UInt32(exactly: configuration.maximumConnections), connections >= 1,
            let perAddress = UInt32(exactly: configuration.maximumConnectionsPerAddress), perAddress >= 1,
            let idle = UInt32(exactly: idleSeconds), idle >= 1, configuration.maximumBodyBytes >= 0,
            configuration.maximumHeadBytes >= 4096, configuration.handlerTimeout > .zero,
            configuration.drainTimeout >= .zero, !requestNanoseconds.overflow,
            let requestTimeout = UInt64(exactly: requestNanoseconds.partialValue), requestTimeout >= 1_000_000_000
        else {
            throw AuthCoreError(
                .invalidParameter,
                "threads 1...256, connections (per address too), idle seconds, request seconds and the handler time limit at least 1, head memory at least 4096 bytes"
            )
        }

        let core = DaemonCore(
            handler: handler,
            admission: admission,
            requestLog: requestLog,
            maximumBodyBytes: configuration.maximumBodyBytes,
            maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress,
            handlerTimeout: configuration.handlerTimeout,
            requestTimeout: requestTimeout,
            handlersStartOnReceivingThread: threads >= 2
        )
        let context = Unmanaged.passRetained(core)
        let flags =
            UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
            | address.familyFlags
        let daemon: OpaquePointer? = withUnsafePointer(to: &address.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                // The one call that starts MHD, with the TLS key and certificate texts or without.
                func start(
                    key: UnsafeMutablePointer<CChar>?,
                    certificate: UnsafeMutablePointer<CChar>?
                ) -> OpaquePointer? {
                    authcore_mhd_start(
                        flags,
                        socketAddress,
                        accessHandler,
                        context.toOpaque(),
                        acceptPolicy,
                        completionHandler,
                        connectionEvents,
                        threads,
                        connections,
                        perAddress,
                        idle,
                        configuration.maximumHeadBytes,
                        key,
                        certificate
                    )
                }
                guard let tls = configuration.tls else { return start(key: nil, certificate: nil) }
                // MHD hands both texts to the TLS library during the start; the key's NUL-terminated
                // copy is wiped as soon as it returns.
                var certificate = tls.certificateChainPEM.map { CChar(bitPattern: $0) } + [0]
                var key = [CChar](repeating: 0, count: tls.privateKeyPEM.count + 1)
                defer { key.withUnsafeMutableBytes { wipeSecretMemory($0) } }
                tls.privateKeyPEM.withUnsafeBytes { bytes in
                    key.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
                }
                return certificate.withUnsafeMutableBufferPointer { certificateText in
                    key.withUnsafeMutableBufferPointer { keyText in
                        start(key: keyText.baseAddress, certificate: certificateText.baseAddress)
                    }
                }
            }
        }
        guard let daemon else {
            context.release()
            throw AuthCoreError(
                .transportFailure,
                "the HTTP server cannot listen on \(configuration.host):\(configuration.port) (in use, or the TLS key and certificate do not load)"
            )
        }
        core.attach(daemon: daemon, context: context)
        core.startReaper()
        self.core = core
        self.configuration = configuration
        self.port = Int(authcore_mhd_bound_port(daemon))
    }

    /// Connections accepted since the server started (a client that keeps its connection alive
    /// makes one for many requests).
    public var acceptedConnectionCount: Int { core.state.withLock { $0.accepted } }

    /// Whether the timer that keeps the request deadlines and handler time limits is suspended
    /// (no connection open, no handler running: an idle server wakes no thread).
    package var reaperSleeps: Bool { core.reaperState.sleeps }
    /// How many times that timer was woken from its sleep.
    package var reaperWakeCount: Int { core.reaperState.wakes }

    /// `http://host:port` or `https://host:port` (an IPv6 address in brackets).
    public var url: String {
        "\(configuration.tls == nil ? "http" : "https")://\(ListeningAddress.authority(host: configuration.host, port: port))"
    }

    /// The graceful drain: stops accepting connections, lets the requests in flight finish for up
    /// to `grace` (``Configuration/drainTimeout`` when nil), then cancels those still running and
    /// answers them `503`. A request arriving meanwhile on a kept-alive connection is answered `503`
    /// at once, and every answer given while draining closes its connection. Then every connection
    /// is closed. Later calls do nothing.
    public func stop(grace: Duration? = nil) async {
        core.quiesce()
        let deadline = ContinuousClock.now + (grace ?? configuration.drainTimeout)
        // A cancelled caller stops waiting for the handlers at once.
        while core.pendingCount > 0, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // Each 503 given here cancels its handler (answer() does).
        core.answerAllPending()
        // The 503s go out (each exchange completes); a client that does not read is cut off after 1 s.
        let sent = ContinuousClock.now + .seconds(1)
        while core.pendingCount > 0, ContinuousClock.now < sent {
            if Task.isCancelled { usleep(5000) } else { try? await Task.sleep(for: .milliseconds(5)) }
        }
        core.stopDaemon()
    }

    deinit {
        // Dropped without stop(): no new requests; the daemon stops when the last running handler
        // has answered (or its time limit has), never with a connection suspended.
        core.abandon()
    }
}

/// A connection pointer that crosses to the handler's task (only MHD_resume_connection uses it
/// there, which MHD allows from any thread, and only once the connection is suspended).
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The daemon and what its callbacks share: the handler and the requests in flight.
///
/// Every exchange is answered exactly once (`Exchange.deliver`), by whichever comes first: its
/// handler's answer, its time limit (503), or a stop that gave up waiting (503). An answer given
/// while the receiving thread still runs the handler is queued by that thread; a suspended
/// connection is resumed exactly once, after its suspend (`Exchange.ConnectionPhase`). An
/// entry leaves `running` only when MHD reports the request completed (its answer sent), so
/// MHD_stop_daemon is never called with a connection suspended (an API violation, microhttpd.h)
/// nor before an answer given has gone out.
final class DaemonCore: @unchecked Sendable {
    // invariant (Sendable): everything mutable is inside `state` (or is `accepting`, an atomic);
    // `handler` and the limits are constants.
    struct Running {
        let handler: Task<Void, Never>
        /// The uptime (ns) past which the reaper answers `503`.
        let deadline: UInt64
        let exchange: Exchange
        let connection: SuspendedConnection
    }

    struct State {
        var running: [UInt64: Running] = [:]
        var nextIdentifier: UInt64 = 0
        var stopping = false
        /// The server value is gone: the last exchange to end stops the daemon.
        var abandoned = false
        var daemon: OpaquePointer?
        var context: Unmanaged<DaemonCore>?
        /// The sockets of open connections (MHD's: added when a connection starts, removed when MHD
        /// is about to close it, both on its thread, so a socket here is never one MHD closed).
        var sockets: Set<Int32> = []
        /// The sockets receiving a request, with the uptime (ns) by which it must have arrived.
        var deadlines: [Int32: UInt64] = [:]
        /// IPv6 connections per /64 (MHD's own limit counts each /128, and one subscriber holds a
        /// /64), and each such socket's network.
        var perNetwork: [[UInt8]: Int] = [:]
        var socketNetworks: [Int32: [UInt8]] = [:]
        /// Connections accepted since the start.
        var accepted = 0
        /// The timer that cuts off requests past their deadline and handlers past their time limit.
        var reaper: (any DispatchSourceTimer)?
        /// The reaper is suspended: no connection is open and no handler runs, so it has nothing to
        /// watch (an idle server wakes no thread). The first connection resumes it.
        var reaperSleeps = false
        /// How many times the reaper was woken (for tests: a count only grows, a state can be missed).
        var reaperWakes = 0
    }

    let handler: HTTPServer.Handler
    /// Whether handlers start on the polling thread that received their request (two or more
    /// polling threads; see ``ReceivingThreadExecutor``).
    let handlersStartOnReceivingThread: Bool
    let admission: HTTPServer.Admission?
    let requestLog: HTTPServer.RequestLog?
    let maximumBodyBytes: Int
    let maximumConnectionsPerAddress: Int
    /// The handler's time limit (``HTTPServer/Configuration/handlerTimeout``) in nanoseconds, from 0
    /// to `UInt64.max / 2` (about 292 years): added to an uptime, it cannot wrap. Converted once, here.
    let handlerTimeoutNanoseconds: UInt64

    private static func saturatingNanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = product.addingReportingOverflow(UInt64(Swift.max(0, attoseconds) / 1_000_000_000))
        return overflow || carry ? UInt64.max / 2 : Swift.min(total, UInt64.max / 2)
    }
    /// Nanoseconds a request has to arrive.
    let requestTimeout: UInt64
    let state = Locked(State())
    /// Held by ``answer(_:with:)`` around its delivery and resume and by ``stopDaemon()`` while it
    /// takes the daemon (always before `state`'s lock). A handler answering on its receiving thread
    /// takes it inside MHD's callback; nothing holding it waits for MHD's threads (MHD_stop_daemon
    /// is called after it is released). Its state counts the resumes it guarded (nothing reads the
    /// count: a lock around an empty value made ThreadSanitizer take each holder's access to that
    /// value for a write to the lock object's header, a false report).
    let resumeGate = Locked(0)

    init(
        handler: @escaping HTTPServer.Handler,
        admission: HTTPServer.Admission?,
        requestLog: HTTPServer.RequestLog?,
        maximumBodyBytes: Int,
        maximumConnectionsPerAddress: Int,
        handlerTimeout: Duration,
        requestTimeout: UInt64,
        handlersStartOnReceivingThread: Bool
    ) {
        self.handlersStartOnReceivingThread = handlersStartOnReceivingThread
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.handler = handler
        self.admission = admission
        self.requestLog = requestLog
        self.requestTimeout = requestTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.handlerTimeoutNanoseconds = Self.saturatingNanoseconds(handlerTimeout)
    }

    func attach(daemon: OpaquePointer, context: Unmanaged<DaemonCore>) {
        state.withLock {
            $0.daemon = daemon
            $0.context = context
        }
    }

    var pendingCount: Int { state.withLock { $0.running.count } }

    /// Whether a stop has begun (answers then close their connections).
    var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: - Request deadlines

    /// A connection opened (MHD's thread): its first request must arrive by the deadline. An IPv6
    /// connection past its /64's share (``HTTPServer/Configuration/maximumConnectionsPerAddress``)
    /// is shut down at once.
    func connectionStarted(_ socket: Int32, from address: ClientAddress?) {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ requestTimeout
        state.withLock { state in
            state.sockets.insert(socket)
            state.deadlines[socket] = deadline
            state.accepted += 1
            Self.wakeReaper(&state)
            guard let address, !address.isIPv4 else { return }
            let network = address.network(prefixBits: 64)
            let count = state.perNetwork[network, default: 0] + 1
            state.perNetwork[network] = count
            state.socketNetworks[socket] = network
            if count > maximumConnectionsPerAddress { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// MHD is about to close a connection (its thread, before close()): the socket is forgotten.
    func connectionClosed(_ socket: Int32) {
        state.withLock { state in
            state.sockets.remove(socket)
            state.deadlines[socket] = nil
            if let network = state.socketNetworks.removeValue(forKey: socket) {
                let left = state.perNetwork[network, default: 1] - 1
                state.perNetwork[network] = left > 0 ? left : nil
            }
        }
    }

    /// A request has arrived whole (or an exchange ended and the next may come): no deadline while a
    /// handler runs, a fresh one for the next request of a kept-alive connection.
    func requestArrived(_ socket: Int32) { _ = state.withLock { $0.deadlines.removeValue(forKey: socket) } }

    func exchangeEnded(_ socket: Int32) {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ requestTimeout
        state.withLock { state in
            if state.sockets.contains(socket) { state.deadlines[socket] = deadline }
        }
    }

    /// Every 100 ms, on a Dispatch queue (never the concurrency pool), connections past their
    /// deadline are shut down; MHD then closes them on its thread. The sockets are shut down under
    /// the lock that ``connectionClosed(_:)`` takes before MHD closes a socket, so a number MHD has
    /// reused for a new connection is never touched. Handlers past their time limit are answered
    /// `503` by the same timer: one timer for the server, not one per request (a Dispatch timer
    /// armed and cancelled per request woke libdispatch's manager thread twice each time).
    ///
    /// A tick that finds no connection open and no handler running suspends the timer, and the next
    /// connection resumes it (``wakeReaper(_:)``): an idle server wakes no thread, where the
    /// ticks woke two every 100 ms. A busy server never pays for it (the timer keeps ticking while
    /// any connection is open); a server with rare connections resumes it once per busy spell.
    func startReaper() {
        // A queue of a higher class than the handlers' (Dispatch's default one, after their first
        // wait): handlers busy on every thread of that pool do not hold the time limits back.
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInitiated))
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.reap() }
        state.withLock { $0.reaper = timer }
        timer.resume()
    }

    func reap() {
        let now = DispatchTime.now().uptimeNanoseconds
        let late = state.withLock { state -> [UInt64] in
            for (socket, deadline) in state.deadlines where deadline <= now {
                state.deadlines[socket] = nil
                _ = shutdown(socket, Int32(SHUT_RDWR))
            }
            if state.sockets.isEmpty, state.running.isEmpty, !state.reaperSleeps, let reaper = state.reaper {
                // Under the lock, as the resume is: suspends and resumes stay paired.
                state.reaperSleeps = true
                reaper.suspend()
                return []
            }
            // Those already answered (their answer still being sent) are left alone.
            return state.running.compactMap { identifier, entry in
                entry.deadline <= now && !entry.exchange.answer.withLock({ $0.delivered }) ? identifier : nil
            }
        }
        // Outside the lock (answer takes it); an exchange answered meanwhile is left as it is.
        for identifier in late {
            answer(
                identifier,
                with: jsonErrorResponse(status: 503, code: "Timeout", message: "the request took too long")
            )
        }
    }

    /// Resumes the reaper when it sleeps (a connection opened, or a handler started). Called under
    /// the state lock, which its suspension also holds.
    private static func wakeReaper(_ state: inout State) {
        guard state.reaperSleeps, let reaper = state.reaper else { return }
        state.reaperSleeps = false
        state.reaperWakes += 1
        reaper.resume()
    }

    /// Whether the reaper is suspended (nothing to watch), and how many times it was woken.
    package var reaperState: (sleeps: Bool, wakes: Int) { state.withLock { ($0.reaperSleeps, $0.reaperWakes) } }

    /// Creates the handler's task for an exchange whose request has arrived whole, with its time
    /// limit, on a ``ReceivingThreadExecutor`` the caller (the MHD thread that received the request)
    /// runs next; nil when the server is stopping (nothing was started).
    func start(_ exchange: Exchange, connection: SuspendedConnection) -> ReceivingThreadExecutor? {
        state.withLock { state in
            guard !state.stopping else { return nil }
            let identifier = state.nextIdentifier
            state.nextIdentifier &+= 1
            exchange.identifier = identifier
            let request = HTTPServerRequest(
                method: exchange.method,
                path: exchange.path,
                queryParameters: exchange.queryParameters,
                headers: exchange.headers,
                body: exchange.body,
                clientAddress: exchange.clientAddress,
                requestId: exchange.requestId,
                notes: exchange.notes
            )
            let executor = ReceivingThreadExecutor(receiving: handlersStartOnReceivingThread)
            // The task keeps its executor (captured) for as long as it runs. Its first job waits in
            // the executor's list (enqueue only appends there now): nothing runs under this lock.
            let handler = Task(executorPreference: executor) { [self, executor] in
                withExtendedLifetime(executor) {}
                let response = await self.handler(request)
                answer(identifier, with: response)
            }
            // The time limit is kept by the reaper's Dispatch timer, not a sleeping task: a handler
            // holding its thread (computing, or on the receiving thread) cannot hold it back.
            let deadline = DispatchTime.now().uptimeNanoseconds &+ handlerTimeoutNanoseconds
            Self.wakeReaper(&state)  // its connection's start did, unless the reaper slept since
            state.running[identifier] = Running(
                handler: handler,
                deadline: deadline,
                exchange: exchange,
                connection: connection
            )
            return executor
        }
    }

    /// Answers exchange `identifier`, once (a later answer is dropped). An answer given while the
    /// receiving thread still runs the handler is left for it to queue; one given to a suspended
    /// connection resumes it, and MHD sends the answer. The exchange stays counted until MHD reports
    /// it completed.
    func answer(_ identifier: UInt64, with response: HTTPResponse) {
        // Lookup, delivery and resume under `resumeGate`, which a stop takes too before it takes the
        // daemon: every resume begun is finished before MHD_stop_daemon, and none can follow it.
        // The resume itself is outside `state`'s lock: it wakes MHD's thread, which takes that lock
        // at once (and, on the same core, would preempt this thread only to wait for it).
        // MHD_resume_connection only sets flags and wakes a polling thread; it calls nothing of ours.
        let entry: Running? = resumeGate.withLock { resumes in
            let delivered: (entry: Running, resume: Bool)? = state.withLock { state in
                guard state.daemon != nil, let entry = state.running[identifier] else { return nil }
                switch entry.exchange.deliver(response) {
                case .alreadyAnswered: return nil
                case .leftForReceivingThread: return (entry, false)
                case .resumeConnection: return (entry, true)
                }
            }
            if let delivered, delivered.resume {
                MHD_resume_connection(delivered.entry.connection.pointer)
                resumes &+= 1
            }
            return delivered?.entry
        }
        entry?.handler.cancel()
    }

    /// MHD's completion of exchange `identifier` (answered and sent, or its connection failed):
    /// it is forgotten, and a server dropped without stop() stops once nothing is left. Called on
    /// an MHD thread, which MHD_stop_daemon joins: the stop runs on another thread.
    func completed(_ identifier: UInt64) {
        let (entry, stopNow) = state.withLock { state in
            let entry = state.running.removeValue(forKey: identifier)
            return (entry, state.abandoned && state.running.isEmpty)
        }
        entry?.handler.cancel()
        if stopNow { DispatchQueue.global().async { self.stopDaemon() } }
    }

    /// No new connections or handlers; the running handlers go on (their time limits stay).
    ///
    /// New connections are refused by the accept policy (MHD closes each as soon as it has
    /// accepted it), not by MHD_quiesce_daemon: on an epoll daemon with its own polling threads,
    /// MHD_quiesce_daemon and a polling thread may both remove the listening socket from the epoll
    /// set, and the one that loses that race aborts the process ("Failed to remove listen FD from
    /// epoll set", libmicrohttpd 0.9.75, an open defect; seen here in a test's drain, and earlier
    /// under AddressSanitizer). The listening socket stays open until MHD_stop_daemon closes it.
    func quiesce() {
        accepting.store(false, ordering: .releasing)
        state.withLock { $0.stopping = true }
    }

    /// Whether new connections are taken (false once the server stops).
    let accepting = Atomic<Bool>(true)

    /// Cancels the handlers still running (a server dropped without stop()).
    func cancelRunning() {
        let running = state.withLock { Array($0.running.values) }
        for entry in running { entry.handler.cancel() }
    }

    /// Answers every exchange not yet answered with `503` (a stop that stopped waiting).
    func answerAllPending() {
        let identifiers = state.withLock { Array($0.running.keys) }
        for identifier in identifiers {
            answer(
                identifier,
                with: jsonErrorResponse(status: 503, code: "ShuttingDown", message: "the server is stopping")
            )
        }
    }

    /// The server value is gone: stop now if nothing runs, else when the last exchange ends
    /// (each has its time limit).
    func abandon() {
        quiesce()
        cancelRunning()
        let idle = state.withLock { state in
            state.abandoned = true
            return state.running.isEmpty
        }
        if idle { stopDaemon() }
    }

    /// Closes every connection and the listening socket (MHD_stop_daemon), and releases the
    /// callbacks' reference.
    /// Later calls do nothing.
    func stopDaemon() {
        let (daemon, context, reaper): (OpaquePointer?, Unmanaged<DaemonCore>?, (any DispatchSourceTimer)?) =
            resumeGate.withLock { _ in
                state.withLock { state in
                    // A suspended source must not be cancelled and released as it is (libdispatch
                    // stops the program): resumed first, then cancelled below.
                    Self.wakeReaper(&state)
                    defer {
                        state.daemon = nil
                        state.context = nil
                        state.reaper = nil
                    }
                    return (state.daemon, state.context, state.reaper)
                }
            }
        reaper?.cancel()
        if let daemon { MHD_stop_daemon(daemon) }
        context?.release()
    }
}

/// One request while MHD works on it: what has arrived, and the answer once there is one.
final class Exchange: @unchecked Sendable {
    // invariant (Sendable): everything but `answer` is touched only by MHD's callbacks for this
    // connection, which MHD serialises; `answer` is only touched under its lock (the response
    // is written once, before the connection is resumed or by the thread that queues it).
    struct Answer {
        var response: HTTPResponse?
        var delivered = false
        var connection = ConnectionPhase.receivingThreadRunsHandler
    }

    /// Where the connection is while its handler runs: who sends the answer.
    enum ConnectionPhase {
        /// The handler runs on the MHD thread that received the request, inside MHD's callback:
        /// that thread queues an answer given now when the handler first waits.
        case receivingThreadRunsHandler
        /// The receiving thread found no answer and is suspending the connection: it resumes it
        /// itself if an answer comes meanwhile (a resume must follow the suspend).
        case suspending
        /// Suspended: whoever delivers the answer resumes it.
        case suspended
    }

    /// What a delivery calls for.
    enum Delivery {
        /// An answer was delivered before: this one is dropped.
        case alreadyAnswered
        /// Stored; the receiving thread queues it (it is still in MHD's callback).
        case leftForReceivingThread
        /// Stored; the connection is suspended and the caller resumes it, exactly once.
        case resumeConnection
    }

    let method: String
    let path: String
    let queryParameters: [(key: String, value: String)]
    let headers: [HTTPHeader]
    let clientAddress: ClientAddress?
    let requestId: String
    let notes = RequestNotes()
    /// When the head arrived: the wall clock for the log, the monotonic one for the duration.
    let startedAt = SystemClock().now()
    let startedUptime = DispatchTime.now().uptimeNanoseconds
    /// The status queued on the connection, for the access log.
    var status: Int?
    var body: [UInt8] = []
    var started = false
    /// Set by `DaemonCore.start` for an exchange handed to the handler.
    var identifier: UInt64?
    let answer = Locked(Answer())

    init(
        method: String,
        path: String,
        queryParameters: [(key: String, value: String)],
        headers: [HTTPHeader],
        clientAddress: ClientAddress?
    ) {
        self.method = method
        self.path = path
        self.queryParameters = queryParameters
        self.headers = headers
        self.clientAddress = clientAddress
        requestId = RequestIdentifiers.accepted(headers) ?? RequestIdentifiers.make()
    }

    /// The access log's record of this exchange, now that it has ended.
    func record(completed: Bool) -> AccessRecord {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- startedUptime
        var record = AccessRecord(
            startedAt: startedAt,
            method: method,
            path: path,
            status: status,
            duration: .nanoseconds(Int64(clamping: elapsed)),
            peer: clientAddress,
            requestId: requestId,
            user: notes.user
        )
        record.completed = completed
        return record
    }

    /// Stores the answer unless one was delivered already, and says who sends it.
    func deliver(_ response: HTTPResponse) -> Delivery {
        answer.withLock { answer in
            guard !answer.delivered else { return .alreadyAnswered }
            answer.delivered = true
            answer.response = response
            return answer.connection == .suspended ? .resumeConnection : .leftForReceivingThread
        }
    }

    /// The receiving thread's handler run has ended (the handler answered or waits): the answer if
    /// there is one, taken; otherwise the connection is marked as being suspended.
    func answerOrSuspend() -> HTTPResponse? {
        answer.withLock { answer in
            if answer.delivered { return answer.response.take() }
            answer.connection = .suspending
            return nil
        }
    }

    /// The connection is suspended: true when an answer came while it was being suspended (the
    /// receiving thread then resumes it).
    func suspended() -> Bool {
        answer.withLock { answer in
            answer.connection = .suspended
            return answer.delivered
        }
    }

    /// The delivered answer, taken (nil before one is delivered, and after).
    func takeResponse() -> HTTPResponse? { answer.withLock { $0.response.take() } }

    /// Best effort: the request body's bytes here are overwritten (a copy the handler still holds,
    /// or one left behind by a reallocation while receiving, is not).
    func wipe() {
        body.withUnsafeMutableBytes { wipeSecretMemory($0) }
        body = []
    }
}

/// The JSON error MHD's own early answers use (the app server answers in the same shape).
func jsonErrorResponse(status: Int, code: String, message: String) -> HTTPResponse {
    let text = #"{"code":"\#(code)","message":"\#(message)"}"#
    return HTTPResponse(
        status: status,
        headers: [HTTPHeader("Content-Type", "application/json")],
        body: Array(text.utf8)
    )
}

/// An answer given when the head arrives, before the body: the connection is closed after it
/// (whatever of the body is on its way is never read).
func earlyAnswer(_ response: HTTPResponse) -> HTTPResponse {
    var answer = response
    answer.headers.append(HTTPHeader("Connection", "close"))
    return answer
}

// MARK: - MHD callbacks

private let accessHandler: MHD_AccessHandlerCallback = {
    context,
    connection,
    url,
    method,
    _,
    uploadData,
    uploadSize,
    requestContext in
    guard let context, let connection, let requestContext else { return MHD_Result.NO }
    let core = Unmanaged<DaemonCore>.fromOpaque(context).takeUnretainedValue()
    guard let existing = requestContext.pointee else {
        // The head has arrived.
        let exchange = Exchange(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            queryParameters: connectionValues(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND, trimming: false),
            headers: headerFields(of: connection),
            clientAddress: clientAddress(of: connection)
        )
        requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
        // Refused before a body byte is read; MHD closes the connection after the answer.
        if let refusal = RequestFraming.refusal(exchange.headers) {
            return queue(earlyAnswer(refusal), on: connection, for: exchange, core: core)
        }
        let length = RequestFraming.contentLength(exchange.headers)
        if let length, length > core.maximumBodyBytes {
            return queue(
                earlyAnswer(
                    jsonErrorResponse(
                        status: 413,
                        code: "RequestTooLarge",
                        message: "the body is longer than \(core.maximumBodyBytes) bytes"
                    )
                ),
                on: connection,
                for: exchange,
                core: core
            )
        }
        if let admission = core.admission,
            let answer = admission(
                HTTPServerRequest(
                    method: exchange.method,
                    path: exchange.path,
                    headers: exchange.headers,
                    clientAddress: exchange.clientAddress,
                    requestId: exchange.requestId,
                    notes: exchange.notes
                )
            )
        {
            return queue(earlyAnswer(answer), on: connection, for: exchange, core: core)
        }
        if let length { exchange.body.reserveCapacity(length) }  // one buffer: no reallocation leaves a copy behind
        return MHD_Result.YES
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
    if let uploadSize, uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        let (total, overflow) = exchange.body.count.addingReportingOverflow(count)
        guard !overflow, total <= core.maximumBodyBytes, let uploadData else {
            exchange.wipe()
            return MHD_Result.NO  // a chunked body past the limit: the connection is closed
        }
        exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    if let response = exchange.takeResponse() { return queue(response, on: connection, for: exchange, core: core) }
    guard !exchange.started else { return MHD_Result.YES }
    exchange.started = true
    core.requestArrived(authcore_mhd_connection_fd(connection))
    guard let executor = core.start(exchange, connection: SuspendedConnection(pointer: connection)) else {
        return queue(
            jsonErrorResponse(status: 503, code: "ShuttingDown", message: "the server is stopping"),
            on: connection,
            for: exchange,
            core: core
        )
    }
    // The handler runs here until it answers or first waits on another thread's work (with one
    // polling thread its executor sent every job elsewhere, and this returns at once).
    executor.runUntilWaiting()
    if let response = exchange.answerOrSuspend() { return queue(response, on: connection, for: exchange, core: core) }
    // It waits: the connection is suspended until its answer resumes it (MHD calls this handler
    // again then, and the answer is taken above). An answer that came during the suspend is
    // resumed here, after it.
    MHD_suspend_connection(connection)
    if exchange.suspended() { MHD_resume_connection(connection) }
    return MHD_Result.YES
}

private let completionHandler: MHD_RequestCompletedCallback = { context, connection, requestContext, termination in
    if let context, let connection {
        Unmanaged<DaemonCore>.fromOpaque(context).takeUnretainedValue().exchangeEnded(
            authcore_mhd_connection_fd(connection)
        )
    }
    guard let requestContext, let existing = requestContext.pointee else { return }
    let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeRetainedValue()
    exchange.wipe()
    requestContext.pointee = nil
    guard let context else { return }
    let core = Unmanaged<DaemonCore>.fromOpaque(context).takeUnretainedValue()
    // MHD_REQUEST_TERMINATED_COMPLETED_OK is 0 (microhttpd.h): the answer was sent whole.
    core.requestLog?(exchange.record(completed: termination.rawValue == 0))
    if let identifier = exchange.identifier { core.completed(identifier) }
}

/// MHD's accept policy: a new connection is taken until the server stops (``DaemonCore/quiesce()``).
private let acceptPolicy: MHD_AcceptPolicyCallback = { context, _, _ in
    guard let context else { return MHD_Result.NO }
    let core = Unmanaged<DaemonCore>.fromOpaque(context).takeUnretainedValue()
    return core.accepting.load(ordering: .acquiring) ? MHD_Result.YES : MHD_Result.NO
}

/// MHD's connection events: a connection's socket is followed from its start until MHD closes it.
private let connectionEvents: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context, let connection else { return }
    let core = Unmanaged<DaemonCore>.fromOpaque(context).takeUnretainedValue()
    let socket = authcore_mhd_connection_fd(connection)
    guard socket >= 0 else { return }
    // MHD_CONNECTION_NOTIFY_STARTED is 0, MHD_CONNECTION_NOTIFY_CLOSED 1 (microhttpd.h).
    switch event.rawValue {
    case 0: core.connectionStarted(socket, from: clientAddress(of: connection))
    case 1: core.connectionClosed(socket)
    default: break
    }
}

/// The connection's peer address.
private func clientAddress(of connection: OpaquePointer) -> ClientAddress? {
    // Read into a stack block: the address's own array is the one allocation.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { buffer in
        buffer.initialize(repeating: 0)
        let count = Int(authcore_mhd_client_address(connection, buffer.baseAddress))
        guard (0...16).contains(count) else { return nil }
        return try? ClientAddress(bytes: Array(buffer.prefix(count)))
    }
}

/// Every request header field, in order, its value without the spaces and tabs around it (RFC 9112
/// §5: `OWS` is not part of the value; libmicrohttpd strips the leading ones).
private func headerFields(of connection: OpaquePointer) -> [HTTPHeader] {
    connectionValues(of: connection, kind: MHD_ValueKind.HEADER_KIND, trimming: true).map {
        HTTPHeader($0.key, $0.value)
    }
}

/// The values of one kind MHD parsed for the request, in order: header fields (`trimming` spaces and
/// tabs around the value) or query arguments (percent-decoded by MHD; a key without `=` has an
/// empty value). Bytes that are not UTF-8 read as replacement characters. Each value is decoded
/// from MHD's bytes in place (trimmed as a range of them): one string per key and value, no
/// intermediate arrays.
private func connectionValues(
    of connection: OpaquePointer,
    kind: MHD_ValueKind,
    trimming: Bool
) -> [(key: String, value: String)] {
    final class Collector {
        var values: [(key: String, value: String)] = []
        let trimming: Bool
        init(trimming: Bool) { self.trimming = trimming }
    }
    // Without an iterator MHD only counts them: the list is reserved once, exactly (none: no allocation).
    let count = Int(MHD_get_connection_values(connection, kind, nil, nil))
    guard count > 0 else { return [] }
    let collector = Collector(trimming: trimming)
    collector.values.reserveCapacity(count)
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(
            connection,
            kind,
            { context, _, key, value in
                guard let context, let key else { return MHD_Result.YES }
                let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
                @inline(__always) func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
                let bytes =
                    value.map {
                        UnsafeBufferPointer(
                            start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                            count: strlen($0)
                        )
                    }
                    ?? UnsafeBufferPointer(start: nil, count: 0)
                var start = 0
                var end = bytes.count
                if collector.trimming {
                    while start < end, isSpace(bytes[start]) { start += 1 }
                    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
                }
                collector.values.append(
                    (
                        String(cString: key),
                        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    )
                )
                return MHD_Result.YES
            },
            Unmanaged.passUnretained(collector).toOpaque()
        )
    }
    return collector.values
}

/// Queues `response` on `connection` with the exchange's `X-Request-Id` (and `Connection: close`
/// while the server stops): the body is copied into a buffer MHD owns, which is wiped when MHD frees
/// it (it may hold a session token or credentials).
private func queue(
    _ response: HTTPResponse,
    on connection: OpaquePointer,
    for exchange: Exchange,
    core: DaemonCore
) -> MHD_Result {
    // The server answers from memory: a streamed body is a handler's mistake, answered 500.
    guard let count = response.body.count, !response.body.isStream else {
        return queue(
            jsonErrorResponse(status: 500, code: "InternalError", message: "the request failed"),
            on: connection,
            for: exchange,
            core: core
        )
    }
    var headers = response.headers
    if !headers.contains(where: { $0.hasName("X-Request-Id") }) {
        headers.append(HTTPHeader(RequestIdentifiers.headerName, exchange.requestId))
    }
    if core.isStopping, !headers.contains(where: { $0.hasName("Connection") }) {
        headers.append(HTTPHeader("Connection", "close"))
    }
    let prefix = MemoryLayout<Int>.stride
    guard let storage = malloc(prefix + count) else { return MHD_Result.NO }
    storage.storeBytes(of: count, as: Int.self)
    let body = storage + prefix
    _ = response.body.withInMemoryBytes { bytes in
        if let base = bytes.baseAddress { body.copyMemory(from: base, byteCount: count) }
    }
    guard let answer = MHD_create_response_from_buffer_with_free_callback(count, body, wipeAndFree) else {
        wipeAndFree(body)
        return MHD_Result.NO
    }
    defer { MHD_destroy_response(answer) }
    for header in headers {
        guard MHD_add_response_header(answer, header.name, header.value) == MHD_Result.YES else { return MHD_Result.NO }
    }
    // A handler's status outside 100…599 is the server's fault: 500.
    let status = UInt32(exactly: response.status).flatMap { (100...599).contains($0) ? $0 : nil } ?? 500
    exchange.status = Int(status)
    return MHD_queue_response(connection, status, answer)
}

/// MHD's free callback for ``queue(_:on:)``'s buffers: the length is stored just before the body.
private let wipeAndFree: MHD_ContentReaderFreeCallback = { body in
    guard let body else { return }
    let storage = body - MemoryLayout<Int>.stride
    let count = storage.load(as: Int.self)
    wipeSecretMemory(UnsafeMutableRawBufferPointer(start: body, count: count))
    free(storage)
}
