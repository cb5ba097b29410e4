import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// `authcore serve` instances for a test: a directory with the verifier table (made by `authcore srp
/// verifier`, as an operator would) and one configuration file per instance; each instance is a
/// process on a port it chose, stopped by PID when the test ends.
final class AppServerFleet: @unchecked Sendable {
    // invariant (Sendable): `instances` is appended to only by `start`, which the test calls serially.
    let directory: URL
    let passwords: [String: String]
    private(set) var instances: [LoopbackScript] = []

    /// A fleet whose users are `passwords` (3072-bit group, SHA-256).
    init(passwords: [String: String]) throws {
        self.passwords = passwords
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var users: [String] = []
        for (name, password) in passwords.sorted(by: { $0.key < $1.key }) {
            let made = try authcore(
                ["srp", "verifier", "--group", "3072", "--hash", "sha256", "--username", name],
                stdin: password
            )
            guard made.status == 0 else { throw PeerError(description: "srp verifier: \(made.stderr)") }
            users.append("\"\(name)\": \(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        // Written as an operator would: readable by the server's user only (the server refuses a
        // verifier table others may read, like any secret file).
        let table = directory.appendingPathComponent("users.json")
        guard
            FileManager.default.createFile(
                atPath: table.path,
                contents: Data("{\"users\": {\(users.joined(separator: ", "))}}".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw PeerError(description: "cannot write \(table.path)") }
    }

    deinit {
        for instance in instances { instance.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts an instance with `configuration` (the `srp` section gets the verifier file) and the
    /// secrets in `environment` (AUTHCORE_SERVER_SECRET included).
    @discardableResult
    func start(_ configuration: [String: Any], environment: [String: String]) throws -> LoopbackScript {
        var configuration = configuration
        var srp = configuration["srp"] as? [String: Any] ?? [:]
        srp["verifiersFile"] = "users.json"
        configuration["srp"] = srp
        let file = directory.appendingPathComponent("config-\(instances.count).json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: file)
        let instance = try LoopbackScript(
            executable: authcoreBinary,
            arguments: ["serve", "--config", file.path],
            environment: environment,
            name: "authcore serve"
        )
        instances.append(instance)
        return instance
    }
}

/// The client half of a login against an instance.
func loginClient(_ instance: LoopbackScript) throws(AuthCoreError) -> SRPLoginClient {
    try SRPLoginClient(server: try RequestURL(instance.url))
}

/// POSTs JSON to an instance; the status and the `code` of the answer.
func postJSON(
    _ instance: LoopbackScript,
    _ path: String,
    _ body: String,
    headers: [HTTPHeader] = []
) async throws -> (status: Int, code: String?, body: [UInt8]) {
    let response = try await HTTP1Transport().send(
        HTTPRequest(
            method: "POST",
            url: try RequestURL(instance.url + path),
            headers: [HTTPHeader("Content-Type", "application/json")] + headers,
            body: Array(body.utf8)
        )
    )
    let object = try? JSONObject(parsing: response.body.plainBytes, context: "answer")
    return (response.status, try? object?.string("code"), response.body.plainBytes)
}

/// Expects `body` to be refused by the server with `status` and `code`.
func expectRefusal<T>(
    _ status: Int,
    _ code: String,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("\(what) was accepted", sourceLocation: sourceLocation)
    } catch {
        guard let error = error as? AuthCoreError else {
            Issue.record("\(what): \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.httpStatus == status, "\(what): \(error)", sourceLocation: sourceLocation)
        #expect(error.serviceErrorType == code, "\(what): \(error)", sourceLocation: sourceLocation)
    }
}
