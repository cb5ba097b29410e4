public import AuthCore

/// Retries of calls that are safe to repeat, when the service was throttling or failing (the AWS
/// SDKs' "standard" retry mode, "Retry behavior" in the AWS SDKs and Tools Reference Guide): at most
/// ``maximumAttempts`` attempts in all, the delay before attempt *n* + 1 a uniformly random fraction
/// of `min(maximumDelay, baseDelay · 2ⁿ⁻¹)` ("full jitter").
///
/// Each client says how safe each call is to repeat (``Repeatability``):
/// - ``Repeatability/idempotent`` calls are retried after HTTP 429 and 5xx answers, the error types
///   below (whatever their status), transport failures and time-outs;
/// - ``Repeatability/unlessProcessed`` calls (a refresh that may rotate the refresh token, a password
///   sign-in that makes Cognito send an MFA code, `GetId` creating an identity) only after answers
///   that prove the request was not processed: 429 and the throttling types;
/// - ``Repeatability/never`` calls (challenge answers, sign-up, reset: they count an attempt or send
///   a message) are not retried.
/// Other refusals (a wrong password stays wrong) and cancellation are never retried.
public struct RetryPolicy: Sendable {
    /// Attempts in all (1: no retry), at most 10.
    public let maximumAttempts: Int
    /// The first backoff step.
    public let baseDelay: Duration
    /// The largest backoff step.
    public let maximumDelay: Duration
    let sleep: @Sendable (Duration) async throws -> Void

    /// A policy. Attempts are clamped to 1...10, delays to 0 s...60 s.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(5)
    ) {
        self.init(maximumAttempts: maximumAttempts, baseDelay: baseDelay, maximumDelay: maximumDelay) {
            try await Task.sleep(for: $0)
        }
    }

    /// A policy that sleeps with `sleep` (tests record the delays instead of waiting).
    package init(
        maximumAttempts: Int,
        baseDelay: Duration,
        maximumDelay: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.maximumAttempts = Swift.min(Swift.max(1, maximumAttempts), 10)
        self.baseDelay = Swift.min(Swift.max(.zero, baseDelay), .seconds(60))
        self.maximumDelay = Swift.min(Swift.max(.zero, maximumDelay), .seconds(60))
        self.sleep = sleep
    }

    /// Three attempts, 200 ms doubling to 5 s, with full jitter.
    public static let standard = RetryPolicy()
    /// One attempt.
    public static let none = RetryPolicy(maximumAttempts: 1)

    // bytes-lint: error type names the retry decision looks up; a look-alike spelling changes only whether a request is
    // retried.
    /// The throttling types: the service refused the request before doing anything.
    public static let throttlingErrorTypes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "TooManyRequestsException", "RequestThrottled",
        "RequestThrottledException", "RequestLimitExceeded", "ProvisionedThroughputExceededException", "SlowDown",
    ]

    // bytes-lint: error type names the retry decision looks up; a look-alike spelling changes only whether a request is
    // retried.
    /// Error types that mean "slow down" or a passing failure of the service (which may have
    /// processed the request).
    public static let retryableErrorTypes: Set<String> = throttlingErrorTypes.union([
        "InternalErrorException", "InternalFailure", "InternalError", "ServiceUnavailable",
        "ServiceUnavailableException",
    ])

    /// How safe a call is to send again.
    public enum Repeatability: Sendable {
        /// Repeating it has no effect beyond the first (reads, revocations, SRP initiation).
        case idempotent
        /// Repeating it after it was processed would change something (rotate a token, send a code,
        /// create an identity): retried only when the answer shows it was not processed.
        case unlessProcessed
        /// Not retried.
        case never
    }

    /// Whether `error` is worth another attempt of a call of `repeatability`.
    public static func isRetryable(_ error: AuthCoreError, _ repeatability: Repeatability = .idempotent) -> Bool {
        switch repeatability {
        case .never:
            return false
        case .unlessProcessed:
            guard error.code == .serviceError else { return false }
            if let type = error.serviceErrorType, throttlingErrorTypes.contains(type) { return true }
            return error.httpStatus == 429
        case .idempotent:
            switch error.code {
            case .transportFailure, .timedOut: return true
            case .serviceError:
                if let type = error.serviceErrorType, retryableErrorTypes.contains(type) { return true }
                guard let status = error.httpStatus else { return false }
                return status == 429 || (500...599).contains(status)
            default: return false
            }
        }
    }

    /// The delay before attempt `attempt` + 1 (attempt ≥ 1): full jitter over the capped exponential step.
    func delay(after attempt: Int, random: any SecureRandomGenerator) -> Duration {
        let step = Swift.min(maximumDelay, baseDelay * (1 << Swift.min(attempt - 1, 20)))
        var fraction: UInt16 = 0
        try? withUnsafeMutableBytes(of: &fraction) { buffer throws(AuthCoreError) in try random.fill(buffer) }
        return step * (Double(fraction) / Double(UInt16.max))
    }

    /// Runs `body` up to ``maximumAttempts`` times while it fails with an error retryable for `repeatability`.
    ///
    /// - Throws: the last error; `AuthCoreError.Code.cancelled` when the task is cancelled
    ///   during a backoff.
    func run<T>(
        _ repeatability: Repeatability,
        random: any SecureRandomGenerator,
        _ body: () async throws(AuthCoreError) -> T
    ) async throws(AuthCoreError) -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                guard attempt < maximumAttempts, Self.isRetryable(error, repeatability) else { throw error }
                guard !Task.isCancelled else { throw AuthCoreError(.cancelled, "cancelled before a retry") }
                let pause = delay(after: attempt, random: random)
                AuthCoreLog.log(
                    .info,
                    "authcore.http",
                    "retrying",
                    [
                        "attempt": String(attempt),
                        "reason": error.serviceErrorType.flatMap(ServiceErrorBody.loggableIdentifier)
                            ?? "\(error.code)",
                        "delayMs": AuthCoreLog.milliseconds(pause),
                    ]
                )
                do { try await sleep(pause) } catch {
                    throw AuthCoreError(.cancelled, "cancelled while waiting to retry")
                }
                attempt += 1
            }
        }
    }
}
