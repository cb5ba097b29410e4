package import AuthCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a profile's `credential_process` and reads the credentials it prints, as the AWS CLI's
/// "Sourcing credentials with an external process" describes and botocore's `ProcessProvider` does:
/// the command is split into words (``ShellWords``) and run without a shell; its standard output must
/// be one JSON object with `"Version": 1`, `AccessKeyId`, `SecretAccessKey` and optionally
/// `SessionToken` and `Expiration` (ISO 8601).
///
/// Beyond botocore: the run is bounded — at most ``maximumOutputBytes`` of output and ``timeLimit``
/// (at most a day; the process and its process group are killed after it, or when the calling task
/// is cancelled) — and the process's standard error goes nowhere (it may hold anything). The process
/// inherits this process's environment, as with botocore. A non-zero exit, a missing key, another version or output
/// that is not JSON is an
/// `AuthCoreError.Code.credentialsUnavailable` naming the profile; output whose `Expiration` has
/// passed is `AuthCoreError.Code.expired`.
package struct CredentialProcessRunner: Sendable {
    /// The most output bytes read.
    static let maximumOutputBytes = 64 << 10

    let command: String
    let profile: String
    let timeLimit: Duration
    /// `PATH`, for a command named without a `/`.
    let searchPath: String?

    /// Runs the command and parses its output.
    func credentials(now: Timestamp) async throws(AuthCoreError) -> Credentials {
        let words = try ShellWords.split(command, context: "profile \(profile): credential_process")
        guard let program = words.first else {
            throw AuthCoreError(.malformedInput, "profile \(profile): credential_process is empty")
        }
        guard let executable = Self.resolve(program, searchPath: searchPath) else {
            throw AuthCoreError(
                .credentialsUnavailable,
                "profile \(profile): credential_process program '\(program)' was not found"
            )
        }
        let outcome = await run(executable: executable, arguments: Array(words.dropFirst()))
        switch outcome {
        case .failedToStart:
            throw AuthCoreError(.credentialsUnavailable, "profile \(profile): credential_process could not be started")
        case .timedOut:
            throw AuthCoreError(.timedOut, "profile \(profile): credential_process did not finish within \(timeLimit)")
        case .tooLarge:
            throw AuthCoreError(
                .inputTooLarge,
                "profile \(profile): credential_process printed more than \(Self.maximumOutputBytes) bytes"
            )
        case .cancelled:
            throw AuthCoreError(
                .cancelled,
                "profile \(profile): cancelled while credential_process ran (it was killed)"
            )
        case .exited(let status, _) where status != 0:
            throw AuthCoreError(
                .credentialsUnavailable,
                status < 0
                    ? "profile \(profile): credential_process was killed by a signal"
                    : "profile \(profile): credential_process exited with status \(status)"
            )
        case .exited(_, let output):
            return try Self.parse(output, profile: profile, now: now)
        }
    }

    /// The credentials in a process's output (the AWS CLI's `credential_process` format, version 1).
    package static func parse(_ output: [UInt8], profile: String, now: Timestamp) throws(AuthCoreError) -> Credentials {
        let context = "profile \(profile): credential_process output"
        let members: [String: JSONValue]
        do { members = try JSONObject(parsing: output, context: context).value.objectMembers ?? [:] } catch {
            throw AuthCoreError(.credentialsUnavailable, "\(context) is not a JSON object")
        }
        guard let version = members["Version"], version == .integer(1) || version == .number(1) else {
            throw AuthCoreError(.credentialsUnavailable, "\(context): unsupported Version (only 1 is)")
        }
        func required(_ key: String) throws(AuthCoreError) -> String {
            guard let value = members[key]?.stringValue else {
                throw AuthCoreError(.credentialsUnavailable, "\(context): missing required key \(key)")
            }
            return value
        }
        let accessKeyId = try required("AccessKeyId")
        let secret = try required("SecretAccessKey")
        let token = members["SessionToken"]?.stringValue
        var expiration: Timestamp?
        if let text = members["Expiration"]?.stringValue {
            guard let parsed = try? Timestamp(iso8601: text) else {
                throw AuthCoreError(.credentialsUnavailable, "\(context): Expiration is not an ISO 8601 time")
            }
            guard parsed > now else { throw AuthCoreError(.expired, "\(context): the credentials expired at \(text)") }
            expiration = parsed
        }
        return try Credentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secret,
            sessionToken: token,
            expiration: expiration
        )
    }

    /// `program` itself when it names a path, else the first executable of that name on `searchPath`.
    static func resolve(_ program: String, searchPath: String?) -> String? {
        if program.utf8.contains(UInt8(ascii: "/")) { return program }
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(
            separator: ":",
            omittingEmptySubsequences: true
        ) {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    enum Outcome: Sendable {
        case exited(Int32, [UInt8])
        case failedToStart
        case timedOut
        case tooLarge
        case cancelled
    }

    /// Runs the process on a thread of its own (its waits block), stopping at the time limit or when
    /// the calling task is cancelled.
    private func run(executable: String, arguments: [String]) async -> Outcome {
        let limit = Swift.min(timeLimit, .seconds(86_400))
        let cancelled = Locked(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: ProcessRun.run(
                            executable: executable,
                            arguments: arguments,
                            timeLimit: limit,
                            cancelled: cancelled
                        )
                    )
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }
}

/// One run of a program with `posix_spawn`, reaped by this code alone (so a signal never reaches a
/// reused process id): standard input and error on `/dev/null`, standard output read through a pipe
/// with `poll`, in its own process group, so that at the deadline `SIGKILL` reaches it and anything
/// it started. When the program has exited but something it left behind still holds the pipe, the
/// output read so far is taken after a short grace instead of waiting for an end that may not come.
enum ProcessRun {
    static let graceAfterExit: Duration = .milliseconds(200)

    static func run(
        executable: String,
        arguments: [String],
        timeLimit: Duration,
        cancelled: Locked<Bool>
    ) -> CredentialProcessRunner.Outcome {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return .failedToStart }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Close-on-exec for both ends (dup2 onto 1 in the child clears it there): another thread's
        // spawn must not inherit them (pipe2 is not visible from Swift's Glibc module).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        )
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            return .failedToStart
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeLimit)
        var output: [UInt8] = []
        var status: Int32 = 0
        var reaped = false
        var exitedAt: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var outcome: CredentialProcessRunner.Outcome?
        reading: while true {
            if cancelled.withLock({ $0 }) {
                outcome = .cancelled
                break
            }
            let now = clock.now
            if now >= deadline {
                outcome = .timedOut
                break
            }
            if let exitedAt, now - exitedAt > graceAfterExit { break }  // a leftover holds the pipe
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count > 0 {
                    output += buffer[..<count]
                    if output.count > CredentialProcessRunner.maximumOutputBytes {
                        outcome = .tooLarge
                        break
                    }
                } else if count == 0 {
                    break  // end of output
                } else if errno != EINTR && errno != EAGAIN {
                    break
                }
            }
            if !reaped && waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                exitedAt = clock.now
            }
        }
        close(readEnd)
        // Wait for the program itself until the deadline; kill its group if it outlives it (or the
        // run stopped early). Not yet reaped, so its id is still its own.
        while !reaped {
            if outcome != nil || clock.now >= deadline || cancelled.withLock({ $0 }) {
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                reaped = true
                if outcome == nil { outcome = cancelled.withLock({ $0 }) ? .cancelled : .timedOut }
                break
            }
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
            } else {
                usleep(5_000)
            }
        }
        if let outcome { return outcome }
        // Exited normally: the low 7 bits are 0 and the code is the next byte; a signal is a failure.
        let exitCode: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        return .exited(exitCode, output)
    }
}
