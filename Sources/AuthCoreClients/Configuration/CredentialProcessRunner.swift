package import AuthCore
import Foundation

/// Runs a profile's `credential_process` and reads the credentials it prints, as the AWS CLI's
/// "Sourcing credentials with an external process" describes and botocore's `ProcessProvider` does:
/// the command is split into words (``ShellWords``) and run without a shell; its standard output must
/// be one JSON object with `"Version": 1`, `AccessKeyId`, `SecretAccessKey` and optionally
/// `SessionToken` and `Expiration` (ISO 8601).
///
/// Beyond botocore: the run is bounded — at most ``maximumOutputBytes`` of output and ``timeLimit``
/// (the process is killed after it) — and the process's standard error goes nowhere (it may hold
/// anything). A non-zero exit, a missing key, another version or output that is not JSON is an
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
            throw AuthCoreError(.credentialsUnavailable, "profile \(profile): credential_process program '\(program)' was not found")
        }
        let outcome = await run(executable: executable, arguments: Array(words.dropFirst()))
        switch outcome {
        case .failedToStart:
            throw AuthCoreError(.credentialsUnavailable, "profile \(profile): credential_process could not be started")
        case .timedOut:
            throw AuthCoreError(.timedOut, "profile \(profile): credential_process did not finish within \(timeLimit)")
        case .tooLarge:
            throw AuthCoreError(.inputTooLarge, "profile \(profile): credential_process printed more than \(Self.maximumOutputBytes) bytes")
        case .exited(let status, _) where status != 0:
            throw AuthCoreError(.credentialsUnavailable, "profile \(profile): credential_process exited with status \(status)")
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
        return try Credentials(accessKeyId: accessKeyId, secretAccessKey: secret, sessionToken: token, expiration: expiration)
    }

    /// `program` itself when it names a path, else the first executable of that name on `searchPath`.
    static func resolve(_ program: String, searchPath: String?) -> String? {
        if program.utf8.contains(UInt8(ascii: "/")) { return program }
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true) {
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
    }

    /// Runs the process on a thread of its own (its reads block), killing it at the time limit.
    private func run(executable: String, arguments: [String]) async -> Outcome {
        let limit = timeLimit
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Self.runBlocking(executable: executable, arguments: arguments, timeLimit: limit))
            }
        }
    }

    private static func runBlocking(executable: String, arguments: [String], timeLimit: Duration) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return .failedToStart }
        let deadline = DispatchTime.now() + .nanoseconds(Int(timeLimit.components.seconds) * 1_000_000_000 + Int(timeLimit.components.attoseconds / 1_000_000_000))
        let timer = DispatchSource.makeTimerSource()
        let expired = Locked(false)
        timer.schedule(deadline: deadline)
        timer.setEventHandler {
            if process.isRunning {
                expired.withLock { $0 = true }
                kill(process.processIdentifier, SIGKILL)
            }
        }
        timer.resume()
        defer { timer.cancel() }
        var bytes: [UInt8] = []
        let reader = output.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            bytes += chunk
            if bytes.count > maximumOutputBytes {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return .tooLarge
            }
        }
        process.waitUntilExit()
        if expired.withLock({ $0 }) { return .timedOut }
        return .exited(process.terminationStatus, bytes)
    }
}
