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
        var made: [Int32] = [-1, -1]
        guard pipe(&made) == 0 else { throw CommandFailure("serve: cannot make the signal pipe (errno \(errno))") }
        // Moved to descriptors above 2: a process started with stdin or stdout closed would get them
        // as the pipe, and its readiness line and access log would land in it.
        let ends = made.map { fcntl($0, F_DUPFD_CLOEXEC, 3) }
        for end in made { close(end) }
        guard ends.allSatisfy({ $0 >= 3 }) else { throw CommandFailure("serve: cannot make the signal pipe (errno \(errno))") }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)  // a full pipe never blocks the handler
        readEnd = ends[0]
        writeEnd = ends[1]
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { signal in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(TerminationSignals.writeEnd, &byte, 1)
            errno = saved
        }
        #else
        action.__sigaction_u.__sa_handler = { signal in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(TerminationSignals.writeEnd, &byte, 1)
            errno = saved
        }
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
                continuation.resume()
            }
        }
    }
}
