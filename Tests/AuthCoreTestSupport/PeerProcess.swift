public import Foundation

/// The repository root, found from this file's path.
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The project's Python venv interpreter (created by `make test` before the tests run).
public let venvPython = repositoryRoot.appendingPathComponent(".venv/bin/python")

public struct PeerError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A reference-implementation process driven over stdin/stdout, one JSON object per line.
public final class JSONLinePeer {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    public init(script: String) throws {
        guard FileManager.default.isExecutableFile(atPath: venvPython.path) else {
            throw PeerError(
                description: "\(venvPython.path) is missing: run the tests through 'make test', which creates the venv"
            )
        }
        process.executableURL = venvPython
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/\(script)").path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Sends one request and reads one reply.
    public func send(_ request: [String: Any]) throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: request) + Data("\n".utf8)
        input.fileHandleForWriting.write(line)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let reply = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let object = try JSONSerialization.jsonObject(with: reply) as? [String: Any] else {
                    throw PeerError(description: "peer answered with something that is not a JSON object")
                }
                return object
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw PeerError(description: "peer closed its output") }
            buffer.append(chunk)
        }
    }

    public func close() {
        _ = try? send(["op": "quit"])
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
