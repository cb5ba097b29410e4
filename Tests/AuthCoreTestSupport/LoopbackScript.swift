public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A script of `scripts/` run as a loopback server for one test: it binds a free port itself and
/// prints one JSON line (`{"port": N, ...}`) when ready; the wait for it is bounded, and the process
/// is stopped by PID when the test ends (``stop()``, also on deinit).
public final class LoopbackScript: @unchecked Sendable {
    // invariant (Sendable): `process` is only started in init and stopped in stop(); the reader
    // writes `output` under `lock`.
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    /// The first line the script printed, parsed.
    public private(set) var announcement: [String: Any] = [:]

    /// Starts `scripts/<script>` with the venv's Python and waits up to `timeout` for its line.
    public convenience init(
        script: String,
        arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 30
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: venvPython.path) else {
            throw PeerError(
                description: "\(venvPython.path) is missing: run the tests through 'make test', which creates the venv"
            )
        }
        try self.init(
            executable: venvPython,
            arguments: [repositoryRoot.appendingPathComponent("scripts/\(script)").path] + arguments,
            environment: environment,
            timeout: timeout,
            name: script
        )
    }

    /// Starts `executable` (`authcore serve`, say) and waits up to `timeout` for its line, a JSON
    /// object with the member `announces` (`port` for a server).
    public init(
        executable: URL,
        arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 30,
        name: String? = nil,
        announces key: String = "port"
    ) throws {
        let script = name ?? executable.lastPathComponent
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        // A reader thread collects the first line (blocking reads; the wait for it is bounded here).
        let reader = out.fileHandleForReading
        let ready = DispatchSemaphore(value: 0)
        // The reader goes on after the first line (a server's access log follows it): a pipe nobody
        // reads would block the process once full. What it reads is kept (up to 8 MiB) for `lines`.
        Thread.detachNewThread { [self] in
            var signalled = false
            while true {
                let chunk = reader.availableData
                lock.lock()
                if output.count < 8 << 20 { output.append(chunk) }
                let lineArrived = output.contains(UInt8(ascii: "\n"))
                lock.unlock()
                if !signalled, chunk.isEmpty || lineArrived {
                    signalled = true
                    ready.signal()
                }
                if chunk.isEmpty { break }
            }
        }
        guard ready.wait(timeout: .now() + timeout) == .success else {
            stop()
            throw PeerError(description: "\(script) was not ready within \(timeout) s")
        }
        lock.lock()
        let line = output.firstIndex(of: UInt8(ascii: "\n")).map { output[output.startIndex..<$0] }
        lock.unlock()
        guard let line, let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], object[key] != nil
        else {
            stop()
            throw PeerError(description: "\(script) exited or announced something that is not {\"\(key)\": …, ...}")
        }
        announcement = object
    }

    /// Every complete line printed on stdout so far (the first is the announcement).
    public var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The process's identifier (to signal it).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Waits up to `timeout` for the process to exit; its status, or nil while it still runs.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(announcement["port"] as? Int ?? 0)" }

    /// Stops the process: SIGTERM, and SIGKILL if it has not exited within 2 s.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<200 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Kills the process at once (SIGKILL), as a crash would.
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
