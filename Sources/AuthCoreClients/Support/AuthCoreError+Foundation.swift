public import AuthCore
public import Foundation

/// `AuthCoreError` for code that handles Foundation errors: `localizedDescription` is the reason
/// (never a secret), and the recovery suggestion says when trying again may help.
extension AuthCoreError: LocalizedError {
    public var errorDescription: String? { reason }

    public var failureReason: String? { serviceErrorType.map { "The service answered \($0)." } }

    public var recoverySuggestion: String? {
        if isCancellation { return nil }
        return isRetryable ? "The failure may pass: try again, after a pause." : nil
    }
}

extension AuthCoreError {
    /// Whether another attempt of an idempotent call may succeed: a transport failure or time-out,
    /// throttling, or a 429/5xx answer (``RetryPolicy/isRetryable(_:_:)``, the rule AuthCore's own
    /// retries follow). Cancellation, refusals and malformed input are not retryable.
    public var isRetryable: Bool { RetryPolicy.isRetryable(self, .idempotent) }
}

extension Timestamp {
    /// The time of `date`, to the nanosecond (rounded down); dates outside the years 0001–9999 (and
    /// infinities) are clamped to ``Timestamp/minimum`` or ``Timestamp/maximum``, so the conversion is total.
    public init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        guard interval.isFinite, let seconds = Int64(exactly: whole),
            (Timestamp.minimumSeconds...Timestamp.maximumSeconds).contains(seconds)
        else {
            self = interval > 0 ? .maximum : .minimum
            return
        }
        let fraction = Int32(exactly: ((interval - whole) * 1e9).rounded(.down)) ?? 0
        self.init(secondsSince1970: seconds, nanoseconds: Swift.min(999_999_999, Swift.max(0, fraction)))
    }
}

extension Date {
    /// The date of `timestamp` (Foundation's `Date` holds about a microsecond of precision in this range).
    public init(_ timestamp: Timestamp) {
        self.init(timeIntervalSince1970: Double(timestamp.secondsSince1970) + Double(timestamp.nanoseconds) / 1e9)
    }
}
