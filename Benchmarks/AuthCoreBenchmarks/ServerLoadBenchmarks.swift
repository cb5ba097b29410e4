import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `server.srp.login.3072`: the app server under load on loopback, in this process — libmicrohttpd
/// (2 threads) serving `AppServer`, and concurrent `SRPLoginClient`s over the library's HTTP/1.1
/// transport, for a fixed time, with the in-memory store and with Redis (`redis-server` started on a
/// free port when the binary is installed). Each row reports logins per second (and per core: the
/// clients' half of the SRP math shares the same cores), p50/p90/p99 latency of a whole login (two
/// round trips), and, from a sequential run, what a login costs beyond the SRP math of both sides
/// (`srp.handshake.3072.sha256`'s work, measured here too).
///
/// Checked in the same run, and a failure ends the benchmark with exit 1: every login succeeded;
/// the server answered as many `finish` as `begin` and exactly the clients' successes; no login id
/// was finished twice; and once the lifetimes (2 s) have passed, the store holds nothing.
func serverLoadResults(settings: HarnessSettings) -> [BenchmarkResult] {
    let name = "server.srp.login.3072"
    if let filter = settings.filter, !(name + ".redis").contains(filter), !filter.hasPrefix(name) { return [] }
    var results: [BenchmarkResult] = []
    FileHandle.standardError.write(Data("\r[server] \(name) (in-memory)\u{1B}[K".utf8))
    results.append(runSynchronously { Unchecked(await loadRun(name: name, store: .memory, settings: settings)) }.value)
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") {
        FileHandle.standardError.write(Data("\r[server] \(name).redis\u{1B}[K".utf8))
        guard let redis = BenchRedis() else { loadFailure("redis-server did not start") }
        defer { redis.stop() }
        let port = redis.port
        results.append(
            runSynchronously {
                Unchecked(await loadRun(name: name + ".redis", store: .redis(port), settings: settings))
            }.value
        )
    }
    return results
}

/// A result handed from the run's task to the main thread, which waits for it (nothing else touches it).
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

enum LoadStore: Sendable {
    case memory
    case redis(Int)
}

/// Ends the benchmark: a load run that loses or keeps something is a failure, not a figure.
func loadFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\nerror: server.srp.login.3072: \(message)\n".utf8))
    exit(1)
}

func runSynchronously<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        box.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = box.withLock({ $0 }) else { loadFailure("the run produced nothing") }
    return value
}

/// What the server answered, counted in its handler.
struct ServerCounts {
    var begins = 0
    var finishes = 0
    var refusals = 0
}

func loadRun(name: String, store kind: LoadStore, settings: HarnessSettings) async -> BenchmarkResult {
    do {
        let configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
        let clients = 8
        let password = SecureBytes(Array("load test password".utf8))
        var table: [String: SRPVerifier] = [:]
        for index in 0...clients {
            table["load-\(index)"] = try configuration.makeVerifier(
                username: Array("load-\(index)".utf8),
                password: password
            )
        }
        let memory = InMemoryHandshakeStore()
        let store: any HandshakeStore
        var redisPort = 0
        switch kind {
        case .memory: store = memory
        case .redis(let port):
            var redis = RedisHandshakeStore.Configuration()
            redis.port = port
            store = RedisHandshakeStore(configuration: redis)
            redisPort = port
        }
        var policy = SRPLoginPolicy()
        policy.handshakeLifetime = .seconds(2)
        let keys = try ServerKeys(serverSecret: try SystemRandom().secureBytes(count: 32))
        let logins = SRPLoginService(
            configuration: configuration,
            policy: policy,
            verifiers: try StaticVerifierStore(table, configuration: configuration),
            handshakes: store,
            keys: keys
        )
        let app = AppServer(logins: logins, sessions: try AppSessions(store: store, keys: keys, lifetime: .seconds(2)))
        let counts = Locked(ServerCounts())
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in
            let response = await app.handle(request)
            counts.withLock { counts in
                if response.status != 200 {
                    counts.refusals += 1
                } else if request.path == "/srp/begin" {
                    counts.begins += 1
                } else {
                    counts.finishes += 1
                }
            }
            return response
        }
        let client = try SRPLoginClient(server: try RequestURL(server.url), configuration: configuration)

        // The SRP math alone, both sides (what srp.handshake.3072.sha256 measures), for the comparison.
        let srpServer = SRPServer(configuration: configuration)
        let srpClient = SRPClient(configuration: configuration)
        let verifier = try configuration.makeVerifier(username: Array("load-0".utf8), password: password)
        var mathSamples: [Double] = []
        for _ in 0..<(settings.quick ? 5 : 60) {
            let start = DispatchTime.now().uptimeNanoseconds
            let ephemeral = try srpServer.makeEphemeral(verifier: verifier)
            let b = ephemeral.serverPublicValue
            let session = try srpClient.processChallenge(
                username: Array("load-0".utf8),
                password: password,
                salt: verifier.salt,
                serverPublicValue: b,
                ephemeral: try srpClient.makeEphemeral()
            )
            let verified = try srpServer.verifyClient(
                username: Array("load-0".utf8),
                verifier: verifier,
                clientPublicValue: session.clientPublicValue,
                clientProof: session.clientProof,
                ephemeral: ephemeral
            )
            _ = try session.verifyServerProof(verified.serverProof)
            mathSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start))
        }

        // Sequential logins: the service's cost over the math.
        var sequential: [Double] = []
        var finishedIds: [String] = []
        for _ in 0..<(settings.quick ? 5 : 60) {
            let start = DispatchTime.now().uptimeNanoseconds
            let pending = try await client.begin(username: "load-\(clients)", password: password)
            _ = try await client.finish(pending)
            sequential.append(Double(DispatchTime.now().uptimeNanoseconds - start))
            finishedIds.append(pending.loginId)
        }

        // Concurrent logins for a fixed time.
        let seconds = settings.quick ? 2.0 : 8.0
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let cpuBefore = processCPUSeconds()
        let wallStart = DispatchTime.now().uptimeNanoseconds
        let outcomes = await withTaskGroup(of: ([Double], [String], Int).self) { group in
            for worker in 0..<clients {
                group.addTask {
                    var latencies: [Double] = []
                    var ids: [String] = []
                    var failures = 0
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let start = DispatchTime.now().uptimeNanoseconds
                        do {
                            let pending = try await client.begin(username: "load-\(worker)", password: password)
                            _ = try await client.finish(pending)
                            ids.append(pending.loginId)
                            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start))
                        } catch {
                            failures += 1
                        }
                    }
                    return (latencies, ids, failures)
                }
            }
            var all: [([Double], [String], Int)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        let latencies = outcomes.flatMap(\.0).sorted()
        let ids = finishedIds + outcomes.flatMap(\.1)
        let failures = outcomes.map(\.2).reduce(0, +)
        await server.stop()

        // Nothing lost, nothing doubled, nothing kept.
        let served = counts.withLock { $0 }
        guard failures == 0, served.refusals == 0 else {
            loadFailure("\(failures) logins failed, \(served.refusals) refusals (\(name))")
        }
        guard served.begins == ids.count, served.finishes == ids.count else {
            loadFailure(
                "\(served.begins) begins and \(served.finishes) finishes answered for \(ids.count) client logins (\(name))"
            )
        }
        guard Set(ids).count == ids.count else { loadFailure("a login id was finished twice (\(name))") }
        func live() async -> Int {
            switch kind {
            case .memory: return await memory.liveEntryCount
            case .redis: return redisKeyCount(port: redisPort)
            }
        }
        // The count sees the sessions just issued (so the check below can fail), then none.
        let before = await live()
        guard before > 0 else {
            loadFailure("the store shows no live session right after the run (\(name)): the count is broken")
        }
        try await Task.sleep(for: .milliseconds(2300))
        let left = await live()
        guard left == 0 else { loadFailure("\(left) states outlived their 2 s lifetime (\(name))") }

        let spread = Percentiles(latencies)
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let rate = Double(latencies.count) / wall
        let math = Percentiles(mathSamples).p50
        let alone = Percentiles(sequential).p50
        let note = String(
            format:
                "%.0f logins/s, %.0f per core (%d cores, clients in process), p99 %.1f ms, %.1f ms CPU per login; one at a time %.2f ms = %.2fx the SRP math alone (%.2f ms); %d begins = %d finishes, %d live entries then 0 after TTL",
            rate,
            rate / cores,
            Int(cores),
            spread.p99 / 1e6,
            cpu / Double(max(1, latencies.count)) * 1e3,
            alone / 1e6,
            alone / math,
            math / 1e6,
            served.begins,
            served.finishes,
            before
        )
        var result = BenchmarkResult(
            name: name,
            percentiles: spread,
            iterations: latencies.count,
            note: note
        )
        result.extra = [
            "logins_per_second": rate.rounded(), "logins_per_second_per_core": (rate / cores).rounded(),
            "sequential_p50": alone.rounded(), "srp_math_p50": math.rounded(), "clients": clients, "seconds": seconds,
        ]
        return result
    } catch {
        loadFailure("\(error)")
    }
}

/// User and system CPU time of this process, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
    ) / 1e6
}

/// Live keys in the benchmark's Redis (`SCAN` skips expired keys).
func redisKeyCount(port: Int) -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
    process.arguments = ["-p", String(port), "--scan"]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { loadFailure("redis-cli cannot run") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { loadFailure("redis-cli --scan failed") }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").count
}

/// A `redis-server` on a free loopback port for the run, stopped by PID.
final class BenchRedis {
    let port: Int
    private let process = Process()

    init?() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        close(descriptor)
        guard bound else { return nil }
        port = Int(UInt16(bigEndian: address.sin_port))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        var configuration = RedisHandshakeStore.Configuration()
        configuration.port = port
        let probe = RedisHandshakeStore(configuration: configuration)
        for _ in 0..<100 {
            if probe.answersPing() { return }
            usleep(50_000)
        }
        stop()
        return nil
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
