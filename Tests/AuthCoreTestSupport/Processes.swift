public import Foundation

/// The `authcore` binary built beside the test bundle.
public let authcoreBinary: URL = {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("authcore")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/authcore")
}()

/// Whether the binaries under test were built with a sanitizer (`make asan`, `make tsan`: their
/// scratch paths), whose shadow memory and quarantine make resident-memory figures meaningless.
public let builtWithSanitizer: Bool = ["/.build/asan/", "/.build/tsan/"].contains { authcoreBinary.path.contains($0) }

/// What a finished process left.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let terminatedBySignal: Bool
}

/// Runs a program with arguments, optional stdin and environment changes (a nil value removes a
/// variable), and collects its output.
public func run(
    _ executable: URL,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:]
)
    throws -> ProcessResult
{
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes concurrently so a chatty stderr cannot block the process.
    let errorData = ErrorCollector(err.fileHandleForReading)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errorData.wait(), as: UTF8.self),
        terminatedBySignal: process.terminationReason == .uncaughtSignal
    )
}

final class ErrorCollector: @unchecked Sendable {
    // invariant: `data` is written by the reader thread before `done` is signalled and read after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }
    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Runs `authcore` with arguments.
public func authcore(
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:]
) throws -> ProcessResult {
    try run(
        authcoreBinary,
        arguments,
        stdin: stdin,
        environment: awsChainIsolation.merging(environment) { _, given in given }
    )
}

/// What every `authcore` run gets unless a test says otherwise: the AWS default chain sees no shared
/// files of the machine's user, no container endpoint, and never asks the instance metadata service
/// (169.254.169.254 is not loopback: tests reach only loopback).
public let awsChainIsolation: [String: String?] = [
    "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent/authcore-tests/config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/authcore-tests/credentials", "AWS_PROFILE": nil,
    "AWS_DEFAULT_PROFILE": nil,
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": nil, "AWS_CONTAINER_CREDENTIALS_FULL_URI": nil,
    "AWS_WEB_IDENTITY_TOKEN_FILE": nil,
]

/// Writes `text` to a fresh temporary file and returns its path.
public func temporaryFile(_ text: String, name: String = "vector.json") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// A required environment variable set by `scripts/with_peers.py` (which `make test` runs the tests under).
public func peerEnvironment(_ name: String) throws -> String {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        throw PeerError(
            description:
                "\(name) is not set: run the tests through 'make test', which starts the local peers (scripts/with_peers.py)"
        )
    }
    return value
}

/// Runs the `authcore` binary under Python's `resource` module: its result (the child's stdout and
/// stderr, and then one more stderr line) and its peak resident set in KiB (`ru_maxrss` of the
/// child, -1 if it could not be read).
public func authcoreWithPeakResidentKiB(
    _ arguments: [String],
    environment: [String: String?] = [:]
) throws -> (result: ProcessResult, peakKiB: Int) {
    let script =
        "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:]); "
        + "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)"
    let result = try run(venvPython, ["-c", script, authcoreBinary.path] + arguments, environment: environment)
    let last = result.stderr.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    return (result, Int(last) ?? -1)
}
