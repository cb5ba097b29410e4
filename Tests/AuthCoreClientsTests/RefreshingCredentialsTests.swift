import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Testing

/// A credentials source that counts its calls, can be slow (held at a gate) and can fail.
final class CountingSource: CredentialsProvider {
    struct State {
        var calls = 0
        var lifetime: Int64 = 3600
        var failing = false
        var expiredAnswer = false
        var gate: AsyncStream<Void>.Continuation?
    }
    let state = Locked(State())
    let clock: ManualClock
    let gateStream: AsyncStream<Void>?

    init(clock: ManualClock, gated: Bool = false) {
        self.clock = clock
        if gated {
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            gateStream = stream
            state.withLock {
                $0.gate = continuation
                return ()
            }
        } else {
            gateStream = nil
        }
    }

    var calls: Int { state.withLock { $0.calls } }
    func set(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
    func openGate() { _ = state.withLock { $0.gate?.yield(()) } }

    func credentials() async throws(AuthCoreError) -> Credentials {
        let (number, lifetime, failing, expired) = state.withLock { s in
            s.calls += 1
            return (s.calls, s.lifetime, s.failing, s.expiredAnswer)
        }
        if let gateStream {
            for await _ in gateStream { break }
        } else {
            await Task.yield()
        }
        if failing { throw AuthCoreError(.credentialsUnavailable, "source down (call \(number))") }
        let expiration = expired ? clock.now().adding(seconds: -1) : clock.now().adding(seconds: lifetime)
        return try Credentials(
            accessKeyId: "ASIA\(number)",
            secretAccessKey: "secret-\(number)",
            sessionToken: "t",
            expiration: expiration
        )
    }
}

@Suite("Refreshing credentials: single flight, windows, backoff")
struct RefreshingCredentialsTests {
    let start = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!

    @Test("1000 concurrent callers across an expiry boundary cause exactly one refresh")
    func singleFlight() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock)
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        #expect(try await provider.credentials().accessKeyId == "ASIA1")
        clock.advance(seconds: 3601)  // expired
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await provider.credentials().accessKeyId } }
            var collected: [String] = []
            for try await id in group { collected.append(id) }
            return collected
        }
        #expect(ids.count == 1000)
        #expect(Set(ids) == ["ASIA2"])
        #expect(source.calls == 2)
    }

    @Test("a slow refresh does not block callers that still hold valid credentials")
    func slowRefreshDoesNotBlock() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock, gated: true)
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        let first = Task { try await provider.credentials() }
        source.openGate()
        #expect(try await first.value.accessKeyId == "ASIA1")
        clock.advance(seconds: 3500)  // 100 s left: inside the 300 s window, still valid
        // The refresh starts and is held at the gate; every caller gets the current credentials at once.
        for _ in 0..<50 { #expect(try await provider.credentials().accessKeyId == "ASIA1") }
        #expect(source.calls == 2, "one background refresh started, not fifty")
        source.openGate()
        // The background refresh finishes when the cooperative pool gets to it: with other suites
        // holding both of a 2-core machine's threads (SRP arithmetic), 200 yields were not always
        // enough. Wait for it, up to a bound (no timing is asserted: only that it lands).
        var refreshed = ""
        let giveUp = ContinuousClock.now + .seconds(30)
        while refreshed != "ASIA2" && ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(1))
            refreshed = try await provider.credentials().accessKeyId
        }
        #expect(refreshed == "ASIA2")
    }

    @Test(
        "a failing refresh: valid credentials keep being served; after expiry the error; retries back off 1 s doubling to 60 s"
    )
    func backoff() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock)
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 9))
        _ = try await provider.credentials()
        source.set { $0.failing = true }
        clock.advance(seconds: 3500)
        // Inside the window: the refresh fails in the background, the current credentials are served.
        #expect(try await provider.credentials().accessKeyId == "ASIA1")
        for _ in 0..<20 { await Task.yield() }
        #expect(try await provider.credentials().accessKeyId == "ASIA1")
        clock.advance(seconds: 200)  // expired now
        await #expect(throws: AuthCoreError(.credentialsUnavailable, "")) { try await provider.credentials() }
        let afterFirstFailure = source.calls
        // Immediate retries do not reach the source (no tight loop).
        for _ in 0..<100 { _ = try? await provider.credentials() }
        #expect(source.calls == afterFirstFailure)
        // Each further attempt waits at least half the current step (jitter: 50–100 %), the step doubling to 60 s.
        var steps: [Int64] = []
        var previousCalls = source.calls
        var waited: Int64 = 0
        while steps.count < 8 {
            clock.advance(milliseconds: 250)
            waited += 250
            _ = try? await provider.credentials()
            if source.calls > previousCalls {
                steps.append(waited)
                waited = 0
                previousCalls = source.calls
            }
            #expect(waited <= 61_000, "a retry must come within the 60 s cap")
            if waited > 61_000 { break }
        }
        let expectedSteps: [Int64] = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]
        for (index, (got, step)) in zip(steps, expectedSteps).enumerated() {
            #expect(got >= step / 2 && got <= step + 250, "attempt \(index): waited \(got) ms for a \(step) ms step")
        }
        // Recovery resets the backoff.
        source.set { $0.failing = false }
        clock.advance(seconds: 61)
        #expect(try await provider.credentials().accessKeyId.hasPrefix("ASIA"))
    }

    @Test("credentials whose lifetime is under twice the window refresh at half their lifetime")
    func shortLifetime() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock)
        source.set { $0.lifetime = 90 }
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        _ = try await provider.credentials()
        #expect(await provider.refreshTime() == start.adding(seconds: 45))
        clock.advance(seconds: 44)
        _ = try await provider.credentials()
        #expect(source.calls == 1)
        clock.advance(seconds: 2)
        _ = try await provider.credentials()
        let giveUp = ContinuousClock.now + .seconds(30)  // the background attempt, whenever the pool runs it
        while source.calls < 2 && ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(1)) }
        #expect(source.calls == 2)
    }

    @Test("a refresh that returns expired credentials is an error; clearCredentials forces a fetch")
    func expiredAnswerAndClear() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock)
        source.set { $0.expiredAnswer = true }
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        await #expect(throws: AuthCoreError(.expired, "")) { try await provider.credentials() }
        source.set { $0.expiredAnswer = false }
        clock.advance(seconds: 2)
        _ = try await provider.credentials()
        let calls = source.calls
        await provider.clearCredentials()
        _ = try await provider.credentials()
        #expect(source.calls == calls + 1)
    }

    @Test("clearCredentials during a refresh: its waiters get its answer, but it is not cached")
    func clearDuringRefresh() async throws {
        let clock = ManualClock(start)
        let source = CountingSource(clock: clock, gated: true)
        let provider = RefreshingCredentialsProvider(source: source, clock: clock, random: SeededRandom(seed: 1))
        let waiting = Task { try await provider.credentials() }
        while source.calls == 0 { await Task.yield() }
        await provider.clearCredentials()
        source.openGate()
        #expect(try await waiting.value.accessKeyId == "ASIA1")
        let next = Task { try await provider.credentials() }
        while source.calls < 2 { await Task.yield() }
        source.openGate()
        #expect(try await next.value.accessKeyId == "ASIA2", "the answer from before the clear was not cached")
        #expect(try await provider.credentials().accessKeyId == "ASIA2")
        #expect(source.calls == 2)
    }

    @Test("static, environment and closure sources")
    func simpleSources() async throws {
        let env = EnvironmentCredentialsProvider(.oss) { name in
            ["OSS_ACCESS_KEY_ID": "LTAI", "OSS_ACCESS_KEY_SECRET": "s", "OSS_SECURITY_TOKEN": ""][name]
        }
        let fromEnvironment = try await env.credentials()
        #expect(fromEnvironment.accessKeyId == "LTAI")
        #expect(fromEnvironment.sessionToken == nil, "an empty variable counts as unset")
        await #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try await EnvironmentCredentialsProvider(.aws) { _ in nil }.credentials()
        }
        struct Boom: Error {}
        await #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try await ClosureCredentialsProvider { throw Boom() }.credentials()
        }
        let fixed = try Credentials(accessKeyId: "AKID", secretAccessKey: "s")
        #expect(try await StaticCredentialsProvider(fixed).credentials().accessKeyId == "AKID")
        #expect(try await ClosureCredentialsProvider { fixed }.credentials().accessKeyId == "AKID")
    }
}
