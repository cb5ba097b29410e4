import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT for `authcore serve`, caught from the command's first step: a handler that
/// writes the signal's number to a pipe (the only thing it does, and async-signal-safe) is in place
/// before the server is built and long before its readiness line, so an orchestrator's first
/// SIGTERM is never lost, however soon after that line it comes. (The server used to set the
/// signals to ignored and then make Dispatch sources for them after the line: a SIGTERM in between
/// was dropped.) SIGPIPE is ignored too: a log reader that has gone makes writes fail, not the
/// process die.
enum TerminationSignals {
    /// The pipe's write end, set once by ``install()`` before any handler can run.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// Installs the handlers (once per process; later calls do nothing).
    ///
    /// - Throws: a `CommandFailure` when the pipe cannot be made.
    static func install() throws {
        guard writeEnd < 0 else { return }
        // A process started with stdin, stdout or stderr closed gets /dev/null there first: else the
        // pipe, or later a client's or Redis's socket, would take descriptor 1 and receive the
        // readiness line and the access log.
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            _ = open("/dev/null", O_RDWR)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CommandFailure("serve: cannot make the signal pipe (errno \(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)  // a full pipe never blocks the handler
        readEnd = ends[0]
        writeEnd = ends[1]
        // Only write(2), async-signal-safe; errno is kept for the interrupted code.
        let handler: @convention(c) (Int32) -> Void = { signal in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(TerminationSignals.writeEnd, &byte, 1)
            errno = saved
        }
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for signalNumber in [SIGTERM, SIGINT] { _ = sigaction(signalNumber, &action, nil) }
        signal(SIGPIPE, SIG_IGN)
    }

    /// From now on, the next SIGTERM or SIGINT ends the process at once (exit 1, one line on stderr):
    /// an operator's second signal during a long drain.
    static func exitOnNext() {
        let descriptor = readEnd
        guard descriptor >= 0 else { return }
        DispatchQueue(label: "authcore.serve.second-signal").async {
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) < 0, errno == EINTR {}
            let message = Array("serve: a second signal: stopping without waiting for the requests in flight\n".utf8)
            _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            _exit(1)
        }
    }

    /// Returns at the first SIGTERM or SIGINT received since ``install()`` (at once if one already came).
    static func next() async {
        let descriptor = readEnd
        guard descriptor >= 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "authcore.serve.signals").async {
                var byte: UInt8 = 0
                while read(descriptor, &byte, 1) < 0, errno == EINTR {}
                // Signals already waiting with it are the same event (a terminal's SIGINT reaching a
                // wrapper and the server): emptied, so only a later one counts as a second signal.
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                while read(descriptor, &byte, 1) > 0 {}
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                continuation.resume()
            }
        }
    }
}
