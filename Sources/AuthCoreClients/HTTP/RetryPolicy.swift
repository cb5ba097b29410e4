public import AuthCore

/// Retries of calls that are safe to repeat, when the service was throttling or failing (the AWS
/// SDKs' "standard" retry mode, "Retry behavior" in the AWS SDKs and Tools Reference Guide): at most
/// ``maximumAttempts`` attempts in all, the delay before attempt *n* + 1 a uniformly random fraction
/// of `min(maximumDelay, baseDelay · 2ⁿ⁻¹)` ("full jitter").
///
/// Retried: HTTP 429 and 5xx answers, the throttling error types below (whatever their status), and
/// transport failures and time-outs. Never retried: other refusals (a wrong password stays wrong),
/// cancellation, and calls that are not safe to repeat (they send a code, answer a challenge, count
/// an attempt): each client says which of its operations are.
public struct RetryPolicy: Sendable {
    /// Attempts in all (1: no retry), at most 10.
    public let maximumAttempts: Int
    /// The first backoff step.
    public let baseDelay: Duration
    /// The largest backoff step.
    public let maximumDelay: Duration
    let sleep: @Sendable (Duration) async throws -> Void

    /// A policy. Attempts are clamped to 1...10, delays to 0 s...60 s.
    public init(maximumAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(5)) {
        self.init(maximumAttempts: maximumAttempts, baseDelay: baseDelay, maximumDelay: maximumDelay) { try await Task.sleep(for: $0) }
    }

    /// A policy that sleeps with `sleep` (tests record the delays instead of waiting).
    package init(maximumAttempts: Int, baseDelay: Duration, maximumDelay: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.maximumAttempts = Swift.min(Swift.max(1, maximumAttempts), 10)
        self.baseDelay = Swift.min(Swift.max(.zero, baseDelay), .seconds(60))
        self.maximumDelay = Swift.min(Swift.max(.zero, maximumDelay), .seconds(60))
        self.sleep = sleep
    }

    /// Three attempts, 200 ms doubling to 5 s, with full jitter.
    public static let standard = RetryPolicy()
    /// One attempt.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// Error types that mean "slow down" (AWS's throttling codes) or a passing failure of the service.
    public static let retryableErrorTypes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "TooManyRequestsException", "RequestThrottled",
        "RequestThrottledException", "RequestLimitExceeded", "ProvisionedThroughputExceededException", "SlowDown",
        "InternalErrorException", "InternalFailure", "InternalError", "ServiceUnavailable", "ServiceUnavailableException",
    ]

    /// Whether `error` is worth another attempt.
    public static func isRetryable(_ error: AuthCoreError) -> Bool {
        switch error.code {
        case .transportFailure, .timedOut: return true
        case .serviceError:
            if let type = error.serviceErrorType, retryableErrorTypes.contains(type) { return true }
            guard let status = error.httpStatus else { return false }
            return status == 429 || (500...599).contains(status)
        default: return false
        }
    }

    /// The delay before attempt `attempt` + 1 (attempt ≥ 1): full jitter over the capped exponential step.
    func delay(after attempt: Int, random: any SecureRandomGenerator) -> Duration {
        let step = Swift.min(maximumDelay, baseDelay * (1 << Swift.min(attempt - 1, 20)))
        var fraction: UInt16 = 0
        try? withUnsafeMutableBytes(of: &fraction) { buffer throws(AuthCoreError) in try random.fill(buffer) }
        return step * (Double(fraction) / Double(UInt16.max))
    }

    /// Runs `body` up to ``maximumAttempts`` times while it fails with a retryable error.
    ///
    /// - Throws: the last error; ``AuthCore/AuthCoreError/Code/cancelled`` when the task is cancelled
    ///   during a backoff.
    func run<T>(random: any SecureRandomGenerator, _ body: () async throws(AuthCoreError) -> T) async throws(AuthCoreError) -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                guard attempt < maximumAttempts, Self.isRetryable(error), !Task.isCancelled else { throw error }
                do { try await sleep(delay(after: attempt, random: random)) } catch {
                    throw AuthCoreError(.cancelled, "cancelled while waiting to retry")
                }
                attempt += 1
            }
        }
    }
}
