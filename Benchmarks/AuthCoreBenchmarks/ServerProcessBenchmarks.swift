import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The app server alone: two `authcore serve` processes (the release binary beside this one) on one
/// `redis-server`, driven by login clients in processes of their own (`authcore-bench
/// --login-client`), so what is measured is the servers' CPU and nothing of the clients'.
///
/// - `server.srp.login.3072.cpu`: the servers' CPU (utime + stime from `/proc/<pid>/stat`, both
///   instances) per login, over 1000 sequential logins from one client process (each login begun
///   on one instance and finished on the other). The row's value is that CPU per login; the note gives
///   logins per second per core (its inverse) and the overhead: CPU per login minus the server's SRP
///   math alone, the median over five paired rounds (each: 20 math samples here, then 200 logins;
///   the servers' CPU from their CPU-time clocks, to the nanosecond), after 30 logins not counted.
/// - `server.srp.math.3072`: the server's SRP math alone, `begin`'s and `finish`'s (the challenge,
///   the sealing and opening of the state, the proof), in this process, no I/O: the rounds' 100
///   samples.
/// - `server.srp.load.3072`: ``loadClients`` client processes for a fixed time against the two
///   instances: logins per second, p50/p99 of a whole login, the servers' CPU per login under load.
///
/// The load run checks, and a failure ends the benchmark with exit 1: every login succeeded; each
/// instance's access log shows exactly as many `200` begins and finishes in all as the clients
/// counted successes; no login id was finished twice, and a finished one replayed is refused; and
/// once the lifetimes (2 s) have passed, Redis holds nothing.
func serverProcessResults(settings: HarnessSettings) -> [BenchmarkResult] {
    let names = ["server.srp.login.3072.cpu", "server.srp.math.3072", "server.srp.load.3072"]
    if let filter = settings.filter, !names.contains(where: { $0.contains(filter) || filter.hasPrefix($0) }) {
        return []
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") else { return [] }
    // AUTHCORE_BENCH_SERVE_BINARY: another build's authcore (an A/B run against an earlier commit).
    let binary =
        ProcessInfo.processInfo.environment["AUTHCORE_BENCH_SERVE_BINARY"]
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("authcore")
        .path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        loadFailure("\(binary) is missing: build the authcore product too")
    }
    var results: [BenchmarkResult] = []
    guard let redis = BenchRedis() else { loadFailure("redis-server did not start") }
    defer { redis.stop() }
    do {
        let fleet = try ServeFleet(binary: binary, redisPort: redis.port)
        defer { fleet.stop() }
        FileHandle.standardError.write(Data("\r[server] server.srp.login.3072.cpu\u{1B}[K".utf8))
        // A warm-up, not counted: the servers' first logins fault pages in and fill the runtime's
        // caches. Then rounds, each the server's math alone (in this process) and then logins
        // against the servers: the overhead is the median of the rounds' paired differences, so the
        // machine's drift (10–20 % between minutes on this VM) falls on both sides of each.
        _ = try runClients(1, urls: fleet.urls, seconds: 0, count: settings.quick ? 5 : 30)
        Thread.sleep(forTimeInterval: 0.3)  // the warm-up's last access lines, then forgotten
        fleet.clearLogs()
        let (roundCount, loginsPerRound, mathPerRound) = settings.quick ? (1, 40, 10) : (5, 200, 20)
        var mathSamples: [Double] = []
        var rounds: [(cpu: Double, math: Double)] = []
        var reports: [ClientReport] = []
        var cpuTotal = 0.0
        let switchesBefore = fleet.contextSwitches()
        for _ in 0..<roundCount {
            let math = try serverMathSamples(count: mathPerRound)
            mathSamples += math
            let cpuBefore = fleet.cpuSeconds()
            reports += try runClients(1, urls: fleet.urls, seconds: 0, count: loginsPerRound)
            let cpu = fleet.cpuSeconds() - cpuBefore
            cpuTotal += cpu
            rounds.append((cpu / Double(loginsPerRound), Percentiles(math).p50 / 1e9))
        }
        let sequentialCount = roundCount * loginsPerRound
        let switchesPerLogin = Double(max(0, fleet.contextSwitches() - switchesBefore)) / Double(sequentialCount)
        try check(reports, expected: sequentialCount, fleet: fleet, redisPort: redis.port)
        results.append(
            BenchmarkResult(
                name: "server.srp.math.3072",
                percentiles: Percentiles(mathSamples),
                iterations: mathSamples.count,
                note: "the server's SRP math per login (begin + finish, sealing included), no I/O"
            )
        )
        let perLogin = cpuTotal / Double(sequentialCount)
        let math = Percentiles(mathSamples).p50 / 1e9
        let overheads = rounds.map { $0.cpu - $0.math }.sorted()
        let overhead = overheads[overheads.count / 2]
        var cpuRow = BenchmarkResult(
            name: "server.srp.login.3072.cpu",
            percentiles: Percentiles(single: perLogin * 1e9),
            iterations: sequentialCount,
            note: String(
                format:
                    "servers' CPU per login (2 instances, clients in other processes): %.2f ms = %.0f logins/s per core; overhead over the math (%.2f ms) %.2f ms (median of %d paired rounds, %.2f–%.2f); %.1f context switches per login",
                perLogin * 1e3,
                1 / perLogin,
                math * 1e3,
                overhead * 1e3,
                roundCount,
                overheads[0] * 1e3,
                overheads[overheads.count - 1] * 1e3,
                switchesPerLogin
            )
        )
        cpuRow.extra = [
            "cpu_per_login_ms": perLogin * 1e3, "logins_per_second_per_core": (1 / perLogin).rounded(),
            "overhead_ms": overhead * 1e3,
            "context_switches_per_login": (switchesPerLogin * 10).rounded() / 10,
        ]
        results.append(cpuRow)

        FileHandle.standardError.write(Data("\r[server] server.srp.load.3072\u{1B}[K".utf8))
        let seconds = settings.quick ? 2.0 : 8.0
        let loadBefore = fleet.cpuSeconds()
        let wallStart = Date()
        let load = try runClients(loadClients, urls: fleet.urls, seconds: seconds, count: 0)
        let wall = Date().timeIntervalSince(wallStart)
        let cpuLoad = fleet.cpuSeconds() - loadBefore
        let successes = load.flatMap(\.ids).count
        try check(load, expected: nil, fleet: fleet, redisPort: redis.port)
        let spread = Percentiles(load.flatMap(\.latencies))
        let rate = Double(successes) / wall
        var loadRow = BenchmarkResult(
            name: "server.srp.load.3072",
            percentiles: spread,
            iterations: successes,
            note: String(
                format:
                    "%d client processes, %.0f logins/s on 2 cores (clients included), p50 %.1f ms, p99 %.1f ms, servers' CPU %.2f ms per login; every finish matched one begin, none twice, store empty after TTL",
                loadClients,
                rate,
                spread.p50 / 1e6,
                spread.p99 / 1e6,
                cpuLoad / Double(max(1, successes)) * 1e3
            )
        )
        loadRow.extra = [
            "logins_per_second": rate.rounded(), "clients": loadClients, "seconds": seconds,
            "cpu_per_login_ms": cpuLoad / Double(max(1, successes)) * 1e3,
        ]
        results.append(loadRow)
    } catch {
        loadFailure("\(error)")
    }
    return results
}

let loadClients = 4

/// The server's SRP math alone, per login, `count` samples in nanoseconds: `begin`'s challenge and
/// sealing, and `finish`'s opening and proof check (the client's math, done between, is not timed).
func serverMathSamples(count: Int) throws -> [Double] {
    let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
    let password = SecureBytes(Array("load test password".utf8))
    let username = "math"
    let verifier = try configuration.makeVerifier(username: Array(username.utf8), password: password)
    let service = SRPLoginService(
        configuration: configuration,
        verifiers: try StaticVerifierStore([username: verifier], configuration: configuration),
        handshakes: InMemoryHandshakeStore(),
        keys: try ServerKeys(serverSecret: try SystemRandom().secureBytes(count: 32))
    )
    let client = SRPClient(configuration: configuration)
    let stored = VerifierLookup(verifier: verifier, isEnrolled: true)
    var samples: [Double] = []
    for index in 0..<count {
        let ephemeral = try client.makeEphemeral()
        let loginId = String(repeating: "0", count: 24) + String(format: "%08x", index)
        let a = BigUInt(bigEndianBytes: ephemeral.publicValue.minimalBigEndianBytes)
        let start = DispatchTime.now().uptimeNanoseconds
        let (challenge, sealed) = try service.prepareChallenge(
            username: username,
            clientPublicValue: a,
            stored: stored,
            loginId: loginId,
            deviceId: nil,
            now: SystemClock().now()
        )
        let beginTime = DispatchTime.now().uptimeNanoseconds - start
        let session = try client.processChallenge(
            username: Array(username.utf8),
            password: password,
            salt: challenge.salt,
            serverPublicValue: challenge.serverPublicValue,
            ephemeral: ephemeral
        )
        let finishStart = DispatchTime.now().uptimeNanoseconds
        let state = try service.openState(sealed, loginId: loginId)
        let verified = try service.verifiedProof(state: state, clientProof: session.clientProof, stored: stored)
        samples.append(Double(beginTime + DispatchTime.now().uptimeNanoseconds - finishStart))
        _ = try session.verifyServerProof(verified.serverProof)
    }
    return samples
}

/// Two `authcore serve` processes on one Redis, for the benchmark.
final class ServeFleet {
    let directory: URL
    var processes: [Process] = []
    var urls: [String] = []
    /// Each instance's stdout lines after the readiness line (its access log).
    let logs: [Locked<[UInt8]>] = [Locked([]), Locked([])]

    init(binary: String, redisPort: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-bench-serve-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
        var users: [String] = []
        for index in 0...loadClients {
            let name = "load-\(index)"
            let verifier = try configuration.makeVerifier(
                username: Array(name.utf8),
                password: SecureBytes(Array("load test password".utf8))
            )
            users.append(
                "\"\(name)\": {\"salt_hex\": \"\(Hex.encode(verifier.salt))\", \"verifier_hex\": \"\(verifier.verifierBytes.withUnsafeBytes { Hex.encode($0) })\"}"
            )
        }
        let table = directory.appendingPathComponent("users.json")
        guard
            FileManager.default.createFile(
                atPath: table.path,
                contents: Data("{\"users\": {\(users.joined(separator: ", "))}}".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw AuthCoreError(.transportFailure, "cannot write \(table.path)") }
        let file = directory.appendingPathComponent("server.json")
        try Data(
            #"{"srp":{"verifiersFile":"users.json","handshakeLifetimeSeconds":2},"sessionLifetimeSeconds":2,"store":{"redis":{"port":\#(redisPort)}},"rateLimits":{"perAddress":null,"perNetwork":null}}"#
                .utf8
        ).write(to: file)
        let secret = try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Hex.encode($0) }
        for index in 0..<2 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["serve", "--config", file.path]
            process.environment = ["AUTHCORE_SERVER_SECRET": secret, "PATH": "/usr/bin:/bin"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.standardError
            try process.run()
            processes.append(process)
            let log = logs[index]
            let ready = DispatchSemaphore(value: 0)
            let reader = pipe.fileHandleForReading
            Thread.detachNewThread {
                var signalled = false
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    let complete = log.withLock { bytes in
                        bytes.append(contentsOf: chunk)
                        return bytes.contains(0x0A)
                    }
                    if complete, !signalled {
                        signalled = true
                        ready.signal()
                    }
                }
                if !signalled { ready.signal() }
            }
            guard ready.wait(timeout: .now() + 30) == .success else {
                throw AuthCoreError(.timedOut, "authcore serve was not ready in 30 s")
            }
            let first = log.withLock { bytes -> [UInt8] in
                let end = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
                defer { bytes.removeSubrange(..<Swift.min(bytes.endIndex, end + 1)) }
                return Array(bytes[..<end])
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(first)) as? [String: Any],
                let url = object["url"] as? String
            else {
                throw AuthCoreError(.malformedResponse, "authcore serve announced no url")
            }
            urls.append(url)
        }
    }

    /// Both instances' context switches so far, voluntary and not, summed over their threads
    /// (`/proc/<pid>/task/*/status`): a count that, unlike CPU time, hardly varies between runs on a
    /// noisy machine (a thread that exits takes its count with it: the servers' threads live on).
    func contextSwitches() -> Int {
        processes.reduce(0) { total, process in total + processContextSwitches(process.processIdentifier) }
    }

    /// Both instances' user + system CPU, in seconds (`/proc/<pid>/stat` fields 14 and 15).
    func cpuSeconds() -> Double {
        processes.reduce(0) { total, process in total + processCPU(process.processIdentifier) }
    }

    /// The 200 answers to `path` in all instances' access logs.
    func successes(_ path: String) -> Int {
        logs.reduce(0) { total, log in
            let lines = log.withLock { $0 }.split(separator: 0x0A)
            return total
                + lines.filter { line in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                        return false
                    }
                    return object["path"] as? String == path && object["status"] as? Int == 200
                }.count
        }
    }

    func clearLogs() { for log in logs { log.withLock { $0.removeAll() } } }

    func stop() {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A process's user + system CPU in seconds: its CPU-time clock (`clock_getcpuclockid`, every
/// thread's, to the nanosecond), else `/proc/<pid>/stat` in clock ticks (0 when unreadable).
func processCPU(_ pid: Int32) -> Double {
    var clock = clockid_t()
    var time = timespec()
    if clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 {
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return 0 }
    // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A process's context switches, voluntary and not, over its threads (0 when unreadable).
func processContextSwitches(_ pid: Int32) -> Int {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return 0 }
    let labels = [Array("voluntary_ctxt_switches:".utf8), Array("nonvoluntary_ctxt_switches:".utf8)]
    var total = 0
    for thread in threads {
        guard
            let status = FileManager.default.contents(atPath: "/proc/\(pid)/task/\(thread)/status").map({ [UInt8]($0) })
        else { continue }
        for line in status.split(separator: 0x0A) {
            guard let label = labels.first(where: { line.starts(with: $0) }) else { continue }
            let digits = line.dropFirst(label.count).filter { $0 >= 0x30 && $0 <= 0x39 }
            if !digits.isEmpty, digits.count <= 18 { total += digits.reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        }
    }
    return total
}

/// What one client process reports.
struct ClientReport {
    var latencies: [Double]
    var ids: [String]
    var failures: Int
    var replayRefused: Bool
}

/// Runs `count` client processes (`authcore-bench --login-client`) at once and collects their reports.
func runClients(_ count: Int, urls: [String], seconds: Double, count logins: Int) throws -> [ClientReport] {
    var processes: [(Process, Pipe)] = []
    for index in 0..<count {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--login-client", urls[0], urls[1], String(seconds), String(logins), "load-\(index)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        processes.append((process, pipe))
    }
    return try processes.map { process, pipe in
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let latencies = object["latencies"] as? [Double], let ids = object["ids"] as? [String],
            let failures = object["failures"] as? Int,
            let replayRefused = object["replayRefused"] as? Bool
        else { throw AuthCoreError(.malformedResponse, "a login client failed (status \(process.terminationStatus))") }
        return ClientReport(latencies: latencies, ids: ids, failures: failures, replayRefused: replayRefused)
    }
}

/// The load run's checks: no failure, every success once in the access logs, no id twice, replays
/// refused, and an empty store once the lifetimes have passed.
func check(_ reports: [ClientReport], expected: Int?, fleet: ServeFleet, redisPort: Int) throws {
    let ids = reports.flatMap(\.ids)
    let failures = reports.map(\.failures).reduce(0, +)
    guard failures == 0 else { loadFailure("\(failures) logins failed") }
    if let expected, ids.count != expected { loadFailure("\(ids.count) logins for \(expected) asked") }
    guard Set(ids).count == ids.count else { loadFailure("a login id was finished twice") }
    guard reports.allSatisfy(\.replayRefused) else { loadFailure("a finished login id replayed was accepted") }
    Thread.sleep(forTimeInterval: 0.3)  // the last access lines
    let begins = fleet.successes("/srp/begin")
    let finishes = fleet.successes("/srp/finish")
    // A server without an access log (a build before it, in an A/B run) is not counted here.
    let logged = ProcessInfo.processInfo.environment["AUTHCORE_BENCH_SERVE_BINARY"] == nil || begins + finishes > 0
    guard !logged || (begins == ids.count && finishes == ids.count) else {
        loadFailure("\(begins) begins and \(finishes) finishes logged for \(ids.count) client logins")
    }
    fleet.clearLogs()
    guard redisKeyCount(port: redisPort) > 0 else {
        loadFailure("Redis shows no live key right after the run: the count is broken")
    }
    Thread.sleep(forTimeInterval: 2.3)
    let left = redisKeyCount(port: redisPort)
    guard left == 0 else { loadFailure("\(left) keys outlived their 2 s lifetime") }
}

/// `authcore-bench --login-client URL_A URL_B SECONDS COUNT USER`: logs in as USER over and over
/// (login i begun on one instance and finished on the other), for SECONDS (when > 0) or COUNT
/// logins, then replays its last finished login (which must be refused), and prints one JSON line:
/// `{"latencies": [ns…], "ids": […], "failures": N, "replayRefused": bool}`.
func runLoginClient(_ arguments: [String]) -> Never {
    guard arguments.count == 5, let seconds = Double(arguments[2]), let count = Int(arguments[3]) else {
        usageFailure("--login-client URL_A URL_B SECONDS COUNT USER")
    }
    let user = arguments[4]
    let report = runSynchronously { () -> Unchecked<[String: Any]> in
        do {
            let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
            let clients = try arguments[0...1].map {
                try SRPLoginClient(server: try RequestURL($0), configuration: configuration)
            }
            let password = SecureBytes(Array("load test password".utf8))
            let deadline = Date().addingTimeInterval(seconds)
            var latencies: [Double] = []
            var ids: [String] = []
            var failures = 0
            var last: SRPPendingLogin?
            var index = 0
            while seconds > 0 ? Date() < deadline : index < count {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    let pending = try await clients[index % 2].begin(username: user, password: password)
                    _ = try await clients[(index + 1) % 2].finish(pending)
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start))
                    ids.append(pending.loginId)
                    last = pending
                } catch {
                    failures += 1
                }
                index += 1
            }
            var replayRefused = false
            if let last {
                do { _ = try await clients[0].finish(last) } catch {
                    replayRefused = (error as? AuthCoreError)?.serviceErrorType == "LoginExpired"
                }
            }
            return Unchecked(["latencies": latencies, "ids": ids, "failures": failures, "replayRefused": replayRefused])
        } catch {
            return Unchecked(["error": "\(error)"])
        }
    }
    guard let data = try? JSONSerialization.data(withJSONObject: report.value) else { exit(1) }
    FileHandle.standardOutput.write(data)
    exit(report.value["error"] == nil ? 0 : 1)
}
