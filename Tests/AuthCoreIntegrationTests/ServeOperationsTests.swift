import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// `authcore serve` as an orchestrator runs it: signals from the first moment, the access log on
/// stdout, `--check-config`, and the listen address from the environment.
@Suite(
    "authcore serve in operation: SIGTERM right after the readiness line, access log, --check-config, environment overrides",
    .serialized
)
final class ServeOperationsTests {
    let fleet: AppServerFleet
    let environment = ["AUTHCORE_SERVER_SECRET": "operations-tests-secret-of-32+bytes!"]
    let password = SecureBytes(Array("operations password".utf8))

    init() throws {
        fleet = try AppServerFleet(passwords: ["alice": "operations password"])
    }

    @Test(
        "a SIGTERM sent the moment the readiness line is read stops the server, exit 0, every time (it was lost 25 times in 40)"
    )
    func sigtermRightAfterReadiness() throws {
        for attempt in 0..<25 {
            let instance = try fleet.start([:], environment: environment)
            kill(instance.processIdentifier, SIGTERM)
            let status = instance.waitForExit(timeout: 10)
            #expect(status == 0, "attempt \(attempt): \(status.map(String.init) ?? "still running 10 s after SIGTERM")")
            instance.stop()
        }
    }

    @Test(
        "stdout: the readiness line, then one access line per request (user once known, request id echoed) and audit lines; no token, no password"
    )
    func accessLogOnStdout() async throws {
        let instance = try fleet.start(["srp": ["maximumFailures": 2]], environment: environment)
        let session = try await loginClient(instance).login(username: "alice", password: password)
        let token = session.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let health = try await HTTP1Transport().send(
            HTTPRequest(
                method: "GET",
                url: try RequestURL(instance.url + "/healthz"),
                headers: [HTTPHeader("X-Request-Id", "probe-1")]
            )
        )
        #expect(health.status == 200 && health.headers.first(named: "X-Request-Id") == "probe-1")
        for _ in 0..<2 {
            await expectRefusal(401, "ProofMismatch", "a wrong password") {
                try await loginClient(instance).login(username: "alice", password: SecureBytes(Array("not it".utf8)))
            }
        }
        await expectRefusal(429, "TooManyFailures", "the lockout") {
            try await loginClient(instance).login(username: "alice", password: self.password)
        }
        kill(instance.processIdentifier, SIGTERM)
        #expect(instance.waitForExit(timeout: 10) == 0)
        try await Task.sleep(for: .milliseconds(200))  // the reader takes the last lines

        let lines = instance.lines
        let objects = lines.dropFirst().compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == lines.count - 1, "every line after the readiness line is one JSON object")
        let access = objects.filter { $0["audit"] == nil }
        #expect(
            access.map { $0["path"] as? String } == [
                "/srp/begin", "/srp/finish", "/healthz", "/srp/begin", "/srp/finish", "/srp/begin", "/srp/finish",
                "/srp/begin",
            ]
        )
        #expect(access.map { $0["status"] as? Int } == [200, 200, 200, 200, 401, 200, 401, 429])
        #expect(access[1]["user"] as? String == "alice" && access[2]["requestId"] as? String == "probe-1")
        #expect(
            access.allSatisfy {
                $0["peer"] as? String == "127.0.0.1" && $0["method"] is String && $0["durationMs"] is Double
                    && $0["time"] is String
            }
        )
        #expect(
            objects.filter { $0["audit"] != nil }.map { $0["audit"] as? String } == [
                "login-failed", "login-failed", "lockout",
            ]
        )
        let text = lines.joined(separator: "\n")
        #expect(!text.contains(token) && !text.contains("operations password") && !text.contains("not it"))
    }

    @Test(
        "--check-config: 0 and one JSON line for a good file (the environment's listen overrides applied), 2 with the reason for a bad one; nothing listens"
    )
    func checkConfig() throws {
        let good = fleet.directory.appendingPathComponent("check-good.json")
        try Data(
            #"{"srp":{"verifiersFile":"users.json"},"store":{"redis":{"sentinel":{"masterName":"m","addresses":[{"host":"127.0.0.1","port":26379}]}}}}"#
                .utf8
        ).write(to: good)
        let checked = try authcore(
            ["serve", "--check-config", good.path],
            environment: ["AUTHCORE_SERVER_SECRET": nil, "AUTHCORE_LISTEN_HOST": "::1", "AUTHCORE_LISTEN_PORT": "8443"]
        )
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout == #"{"listen":"[::1]:8443","store":"redis-sentinel","valid":true}"# + "\n")

        let cases: [(String, [String: String?], String)] = [
            (#"{"srp":{"verifiersFile":"missing.json"}}"#, [:], "missing.json"),
            (
                #"{"srp":{"verifiersFile":"users.json"},"listen":{"host":"0.0.0.0"}}"#, [:],
                "plain http is only served on a loopback address"
            ),
            (
                #"{"srp":{"verifiersFile":"users.json"},"listen":{"host":"localhost"}}"#, [:],
                "is not an IPv4 or IPv6 address"
            ),
            (
                #"{"srp":{"verifiersFile":"users.json"},"listen":{"drainTimeoutSeconds":-1}}"#, [:],
                "listen.drainTimeoutSeconds"
            ),
            (
                #"{"srp":{"verifiersFile":"users.json"}}"#, ["AUTHCORE_LISTEN_PORT": "http"],
                "AUTHCORE_LISTEN_PORT must be a port number"
            ),
            (
                #"{"srp":{"verifiersFile":"users.json"}}"#, ["AUTHCORE_LISTEN_PORT": "65536"],
                "AUTHCORE_LISTEN_PORT must be a port number"
            ),
            (
                #"{"srp":{"verifiersFile":"users.json"}}"#, ["AUTHCORE_LISTEN_HOST": "::"],
                "plain http is only served on a loopback address"
            ),
        ]
        for (index, (text, environment, reason)) in cases.enumerated() {
            let file = fleet.directory.appendingPathComponent("check-\(index).json")
            try Data(text.utf8).write(to: file)
            let result = try authcore(["serve", "--check-config", file.path], environment: environment)
            #expect(result.status == 2, "\(text) \(environment): \(result.stderr)")
            #expect(result.stderr.contains(reason), "\(text): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // An ACL user without its password is refused when serving (the password is a secret: not checked by
        // --check-config).
        let acl = fleet.directory.appendingPathComponent("check-acl.json")
        try Data(#"{"srp":{"verifiersFile":"users.json"},"store":{"redis":{"username":"authcore"}}}"#.utf8).write(
            to: acl
        )
        let noPassword = try authcore(
            ["serve", "--config", acl.path],
            environment: [
                "AUTHCORE_SERVER_SECRET": "operations-tests-secret-of-32+bytes!", "AUTHCORE_REDIS_PASSWORD": nil,
            ]
        )
        #expect(
            noPassword.status == 2
                && noPassword.stderr.contains("store.redis.username needs its password in AUTHCORE_REDIS_PASSWORD"),
            "\(noPassword.stderr)"
        )
        let both = try authcore(["serve", "--check-config", good.path, "--config", good.path])
        #expect(both.status == 2 && both.stderr.contains("not both"))
    }

    @Test(
        "AUTHCORE_LISTEN_HOST and AUTHCORE_LISTEN_PORT replace the file's listen address: the server listens on ::1 at the port given"
    )
    func listenFromEnvironment() async throws {
        let port = try RedisServerProcess.freePort()
        let instance = try fleet.start(
            ["listen": ["host": "127.0.0.1", "port": 1]],
            environment: environment.merging(["AUTHCORE_LISTEN_HOST": "::1", "AUTHCORE_LISTEN_PORT": String(port)]) {
                $1
            }
        )
        #expect(instance.announcement["port"] as? Int == port)
        #expect(instance.announcement["url"] as? String == "http://[::1]:\(port)")
        let client = try SRPLoginClient(server: try RequestURL("http://[::1]:\(port)"))
        #expect(try await client.login(username: "alice", password: password).username == "alice")
    }

    @Test(
        "the drain waits for a request in flight (its upstream never answers); a second SIGTERM ends the server at once, exit 1"
    )
    func secondSignal() async throws {
        // Cognito Identity "behind" the server: a loopback listener that never accepts.
        let upstream = try OneShotListener()
        let instance = try fleet.start(
            [
                "listen": ["drainTimeoutSeconds": 60],
                "developerIdentity": [
                    "region": "us-east-1", "identityPoolId": "us-east-1:00000000-0000-0000-0000-000000000000",
                    "providerName": "login.test",
                    "endpoint": "http://127.0.0.1:\(upstream.port)",
                ],
            ],
            environment: environment.merging([
                "AWS_ACCESS_KEY_ID": "AKIDSECONDSIGNAL", "AWS_SECRET_ACCESS_KEY": "second-signal-secret",
            ]) { $1 }
        )
        let session = try await loginClient(instance).login(username: "alice", password: password)
        let url = instance.url
        let pending = Task {
            try? await HTTP1Transport().send(
                HTTPRequest(
                    method: "POST",
                    url: try RequestURL(url + "/cognito/developer-identity"),
                    headers: [session.authorizationHeader]
                )
            )
        }
        try await Task.sleep(for: .milliseconds(500))  // the handler is waiting for the upstream
        kill(instance.processIdentifier, SIGTERM)
        #expect(instance.waitForExit(timeout: 1) == nil, "draining: the request in flight is waited for")
        kill(instance.processIdentifier, SIGTERM)
        #expect(instance.waitForExit(timeout: 10) == 1, "the second signal ends it at once")
        pending.cancel()
    }

    @Test(
        "started with stdout closed, the server serves and stops cleanly (its descriptors 0-2 are /dev/null, never a socket or the signal pipe)"
    )
    func closedStdout() async throws {
        let port = try RedisServerProcess.freePort()
        let file = fleet.directory.appendingPathComponent("closed-stdout.json")
        try Data(#"{"srp":{"verifiersFile":"users.json"},"listen":{"port":\#(port)}}"#.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" serve --config \"$1\" >&- <&-", authcoreBinary.path, file.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var ready = false
        for _ in 0..<100 where !ready {  // bounded: 10 s
            ready =
                (try? await HTTP1Transport().send(
                    HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(port)/healthz"))
                ))?.status == 200
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ready)
        let client = try SRPLoginClient(server: try RequestURL("http://127.0.0.1:\(port)"))
        for _ in 0..<3 { #expect(try await client.login(username: "alice", password: password).username == "alice") }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning && process.terminationStatus == 0 && process.terminationReason == .exit)
    }
}
