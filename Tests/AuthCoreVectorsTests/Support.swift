import Foundation

/// The repository root, found from this file's path (tests and the CLI read the same `vectors/`).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The repository's `vectors/` directory.
let vectorsDirectory = repositoryRoot.appendingPathComponent("vectors")

/// The `authcore` binary built beside this test bundle.
let authcoreBinary: URL = {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    // On Linux the test runner is `<build>/debug/AuthCorePackageTests.xctest`; on macOS it sits inside a bundle.
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("authcore")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/authcore")
}()

struct ProcessResult {
    let status: Int32
    let stdout: String
    let stderr: String
    let terminatedBySignal: Bool
}

/// Runs a program with arguments, optional stdin and extra environment, and collects its output.
func run(_ executable: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:])
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
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), terminatedBySignal: process.terminationReason == .uncaughtSignal)
}

/// Writes `text` to a fresh temporary file and returns its path.
func temporaryFile(_ text: String, name: String = "vector.json") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}
