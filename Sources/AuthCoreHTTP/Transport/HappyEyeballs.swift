internal import AuthCore

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
#else
private let streamSocket = SOCK_STREAM
private let closeOnExec: Int32 = 0
#endif

/// One address to connect to: a `sockaddr` as the resolver gave it.
struct SocketAddress: Sendable, Hashable {
    let family: Int32
    /// The `sockaddr_in` or `sockaddr_in6` bytes.
    let bytes: [UInt8]

    init(family: Int32, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    /// A numeric address and port (`127.0.0.1`, `::1`); nil when `host` is not one.
    init?(numericHost host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        hints.ai_flags = AI_NUMERICHOST
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(first) }
        self.init(first.pointee)
    }

    init(_ entry: addrinfo) {
        family = entry.ai_family
        bytes = Array(UnsafeRawBufferPointer(start: entry.ai_addr, count: Int(entry.ai_addrlen)))
    }

    /// The addresses of `host` for `port`, ordered for racing (RFC 8305 §4): the families
    /// interleaved, starting with the resolver's first (RFC 6724 order), each family's own order kept.
    ///
    /// - Throws: `AuthCoreError.Code.transportFailure` when the name cannot be resolved.
    static func resolve(host: String, port: Int, origin: String) throws(AuthCoreError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            let why = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
            throw AuthCoreError(.transportFailure, "\(origin): cannot resolve the host: \(why)")
        }
        defer { freeaddrinfo(first) }
        var all: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            let address = SocketAddress(entry.pointee)
            if !all.contains(address) { all.append(address) }
        }
        return interleavingFamilies(all)
    }

    /// `addresses` with the families alternating, the first address's family first (RFC 8305 §4,
    /// "First Address Family Count" 1).
    static func interleavingFamilies(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let firstFamily = addresses.first?.family else { return [] }
        var preferred = addresses.filter { $0.family == firstFamily }[...]
        var other = addresses.filter { $0.family != firstFamily }[...]
        var ordered: [SocketAddress] = []
        while !preferred.isEmpty || !other.isEmpty {
            if let next = preferred.popFirst() { ordered.append(next) }
            if let next = other.popFirst() { ordered.append(next) }
        }
        return ordered
    }
}

/// Connection racing by Happy Eyeballs (RFC 8305 §5): attempts to the addresses in order, each
/// started ``attemptDelay`` after the previous one (or at once when the previous one failed), the
/// first to complete kept and the others closed. So a black-holed first address (an IPv6 route
/// that drops packets) costs 250 ms, not the whole connect limit.
///
/// Runs on the calling thread (the transport's blocking executor), polling in slices of at most
/// 100 ms so a cancel or the deadline is seen.
enum HappyEyeballs {
    /// The delay between starting two attempts (RFC 8305 §5 recommends 250 ms).
    static let attemptDelay: Duration = .milliseconds(250)

    /// What a race ended with.
    enum Outcome: Equatable {
        /// A connected, blocking, close-on-exec socket, and the address it reached.
        case connected(Int32, SocketAddress)
        /// Every attempt failed; the last errno.
        case failed(Int32)
        case timedOut
        case cancelled
        /// There was no address to try.
        case noAddresses
    }

    /// The most attempts pending at once: a name with many black-holed addresses does not open a
    /// socket every 250 ms for the whole connect limit.
    static let maximumPendingAttempts = 8

    /// Races connections to `addresses` until one completes, all fail, `deadline` passes or
    /// `isCancelled` says so.
    static func connect(
        to addresses: [SocketAddress],
        deadline: ContinuousClock.Instant,
        attemptDelay: Duration = attemptDelay,
        isCancelled: () -> Bool
    ) -> Outcome {
        guard !addresses.isEmpty else { return .noAddresses }
        var attempts: [(descriptor: Int32, address: SocketAddress)] = []
        func closeAll(except kept: Int32? = nil) {
            for attempt in attempts where attempt.descriptor != kept { _ = close(attempt.descriptor) }
            attempts = []
        }
        var nextIndex = 0
        var nextStart = ContinuousClock.now
        var lastError = ECONNREFUSED
        while true {
            if isCancelled() {
                closeAll()
                return .cancelled
            }
            let now = ContinuousClock.now
            guard now < deadline else {
                closeAll()
                return .timedOut
            }
            if nextIndex < addresses.count, now >= nextStart || attempts.isEmpty,
                attempts.count < maximumPendingAttempts
            {
                let address = addresses[nextIndex]
                nextIndex += 1
                switch start(address) {
                case .success(let (descriptor, connected)):
                    if connected {
                        closeAll()
                        return finish(descriptor, address)
                    }
                    attempts.append((descriptor, address))
                    nextStart = now + attemptDelay
                case .failure(let failure):
                    lastError = failure.code
                    nextStart = now  // a failed attempt starts the next one at once
                }
                continue
            }
            guard !attempts.isEmpty else { return .failed(lastError) }
            var until = Swift.min(deadline, now + .milliseconds(100))
            if nextIndex < addresses.count, attempts.count < maximumPendingAttempts {
                until = Swift.min(until, nextStart)
            }
            var pollers = attempts.map { pollfd(fd: $0.descriptor, events: Int16(POLLOUT), revents: 0) }
            let slice = Swift.max(Duration.zero, until - now).components
            // ≤ 100 ms
            let milliseconds = Int32(Swift.max(1, slice.seconds * 1000 + slice.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&pollers, nfds_t(pollers.count), milliseconds)
            if ready < 0, errno != EINTR {
                lastError = errno
                closeAll()
                return .failed(lastError)
            }
            guard ready > 0 else { continue }
            var failed: Set<Int32> = []
            for poller in pollers where poller.revents != 0 {
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(poller.fd, SOL_SOCKET, SO_ERROR, &failure, &length) != 0 { failure = errno }
                if failure == 0 {
                    // invariant: every polled descriptor is one of `attempts`.
                    let winner = attempts.first { $0.descriptor == poller.fd }!
                    closeAll(except: poller.fd)
                    return finish(winner.descriptor, winner.address)
                }
                lastError = failure
                failed.insert(poller.fd)
            }
            for descriptor in failed { _ = close(descriptor) }
            attempts.removeAll { failed.contains($0.descriptor) }
            if !failed.isEmpty { nextStart = ContinuousClock.now }
        }
    }

    /// A non-blocking socket with its connect started; `connected` when it completed at once.
    private static func start(_ address: SocketAddress) -> Result<(Int32, connected: Bool), Int32Error> {
        let descriptor = socket(address.family, streamSocket | closeOnExec, 0)
        guard descriptor >= 0 else { return .failure(Int32Error(errno)) }
        // Not inherited by child processes (SOCK_CLOEXEC where it exists; FD_CLOEXEC either way).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let code = errno
            _ = close(descriptor)
            return .failure(Int32Error(code))
        }
        let status = address.bytes.withUnsafeBytes { raw in
            // invariant: `bytes` is a whole sockaddr of its family, as the resolver gave it.
            connectSocket(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if status == 0 { return .success((descriptor, true)) }
        let code = errno
        guard code == EINPROGRESS else {
            _ = close(descriptor)
            return .failure(Int32Error(code))
        }
        return .success((descriptor, false))
    }

    /// The winner made blocking again (reads and writes are bounded by socket timeouts), with
    /// `TCP_NODELAY`.
    private static func finish(_ descriptor: Int32, _ address: SocketAddress) -> Outcome {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            _ = close(descriptor)
            return .failed(code)
        }
        var one: Int32 = 1
        // TCP_NODELAY (<netinet/tcp.h>, value 1): the head and the body go out without waiting.
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), 1, &one, socklen_t(MemoryLayout<Int32>.size))
        return .connected(descriptor, address)
    }
}

/// `connect(2)`, where ``HappyEyeballs/connect(to:deadline:attemptDelay:isCancelled:)`` would hide it.
private func connectSocket(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}

/// An errno value as an `Error`, for `Result`.
struct Int32Error: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}
