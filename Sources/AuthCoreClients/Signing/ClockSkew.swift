public import AuthCore

/// Clock-skew offsets learned per endpoint host.
///
/// When a service refuses a request with a 4xx whose `Date` header is more than 5 minutes away
/// from the time the request was signed at (AWS: `RequestTimeTooSkewed`,
/// `InvalidSignatureException`, `SignatureDoesNotMatch`; rclone: 400 `AccessDenied`), the offset
/// between the server's clock and the local one is recorded for that host, and the request is
/// signed again with the corrected time.
public final class ClockSkewTracker: Sendable {
    private let offsets = Locked<[String: Int64]>([:])
    /// The tolerance beyond which a `Date` header counts as skew (AWS allows 15 minutes; a 5-minute
    /// threshold catches skew before requests start failing).
    public let threshold: Int64

    /// A tracker.
    public init(thresholdSeconds: Int64 = 300) { self.threshold = thresholdSeconds }

    /// The process-wide tracker.
    public static let shared = ClockSkewTracker()

    /// The learned offset for `host` (seconds to add to the local clock), 0 if none.
    public func offset(for host: String) -> Int64 { offsets.withLock { $0[host.lowercased()] ?? 0 } }

    /// Forgets the offset for `host`.
    public func reset(host: String) { _ = offsets.withLock { $0.removeValue(forKey: host.lowercased()) } }

    /// Learns from a response: returns the new offset when the response is a 4xx whose `Date`
    /// header differs from `signedAt` by more than the threshold, nil otherwise.
    ///
    /// - Parameters:
    ///   - response: the refused response.
    ///   - host: the endpoint host.
    ///   - signedAt: the (corrected) time the request was signed at.
    ///   - localNow: the uncorrected local time now.
    @discardableResult
    public func learn(from response: HTTPResponse, host: String, signedAt: Timestamp, localNow: Timestamp) -> Int64? {
        guard (400..<500).contains(response.status), let dateHeader = response.headers.first(named: "Date"),
            let serverTime = try? Timestamp(rfc1123: dateHeader)
        else { return nil }
        guard abs(signedAt.seconds(until: serverTime)) > threshold else { return nil }
        let offset = localNow.seconds(until: serverTime)
        offsets.withLock { $0[host.lowercased()] = offset }
        return offset
    }
}
