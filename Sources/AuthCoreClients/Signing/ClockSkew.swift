public import AuthCore

/// Clock-skew offsets learned per endpoint host: the host name or address without a port, ASCII
/// lower-case, as bytes — so a `Host` header (`bucket.oss:8443`) and a URL's host (`bucket.oss`)
/// name the same entry.
///
/// An offset is learned only from a recognised skew answer (``isSkewAnswer(_:)``): a 4xx whose error
/// says the request time is off — AWS `RequestTimeTooSkewed` and `RequestExpired`, Alibaba Cloud's
/// `InvalidTimeStamp.Expired` (RPC and ACS3 APIs),
/// `InvalidSignatureException`/`SignatureDoesNotMatch` whose message is about the request time
/// (`Signature expired: … is now earlier than …`, `Signature not yet current: …`), rclone's 400
/// `AccessDenied` with its time message — whose `Date` header is more than ``threshold`` away from
/// the signing time, and only when the offset to the local clock is at most ``maximumOffset``
/// (default ±7 days). Any other 4xx, however far its `Date`, changes nothing, so a server cannot make
/// the client sign for a time of its choosing.
public final class ClockSkewTracker: Sendable {
    private let offsets = Locked<[[UInt8]: Int64]>([:])
    /// The tolerance beyond which a `Date` header counts as skew (AWS allows 15 minutes; a 5-minute
    /// threshold catches skew before requests start failing).
    public let threshold: Int64
    /// The largest offset ever learned, either way (seconds).
    public let maximumOffset: Int64

    /// The default bound on a learned offset: 7 days.
    public static let defaultMaximumOffset: Int64 = 7 * 86_400

    /// A tracker.
    public init(thresholdSeconds: Int64 = 300, maximumOffsetSeconds: Int64 = defaultMaximumOffset) {
        self.threshold = Swift.max(0, thresholdSeconds)
        self.maximumOffset = Swift.max(0, maximumOffsetSeconds)
    }

    /// The process-wide tracker.
    public static let shared = ClockSkewTracker()

    /// The learned offset for `host` (a host, or a `Host` header value with its port; seconds to add
    /// to the local clock), 0 if none.
    public func offset(for host: String) -> Int64 { offsets.withLock { $0[Self.hostKey(host)] ?? 0 } }

    /// Forgets the offset for `host`.
    public func reset(host: String) { _ = offsets.withLock { $0.removeValue(forKey: Self.hostKey(host)) } }

    /// `host` without a `:port` (after an IPv6 literal's `]`, or after a name's only `:`), ASCII
    /// lower-cased, as bytes.
    static func hostKey(_ host: String) -> [UInt8] {
        var bytes = Array(host.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        if bytes.first == UInt8(ascii: "[") {
            if let close = bytes.firstIndex(of: UInt8(ascii: "]")) { bytes = Array(bytes[...close]) }
        } else if bytes.filter({ $0 == UInt8(ascii: ":") }).count == 1,
            let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        {
            bytes = Array(bytes[..<colon])
        }
        return bytes
    }

    /// Learns from a response: returns the new offset when the response is a recognised skew answer
    /// whose `Date` header differs from `signedAt` by more than the threshold and from `localNow` by
    /// at most ``maximumOffset``; nil otherwise (nothing is learned).
    ///
    /// - Parameters:
    ///   - response: the refused response.
    ///   - host: the endpoint host.
    ///   - signedAt: the (corrected) time the request was signed at.
    ///   - localNow: the uncorrected local time now.
    @discardableResult
    public func learn(from response: HTTPResponse, host: String, signedAt: Timestamp, localNow: Timestamp) -> Int64? {
        guard Self.isSkewAnswer(response), let dateHeader = response.headers.first(named: "Date"),
            let serverTime = try? Timestamp(rfc1123: dateHeader)
        else { return nil }
        guard abs(signedAt.seconds(until: serverTime)) > threshold else { return nil }
        let offset = localNow.seconds(until: serverTime)  // |offset| < 3.2e11: the years 0001-9999
        guard abs(offset) <= maximumOffset else { return nil }
        offsets.withLock { $0[Self.hostKey(host)] = offset }
        return offset
    }

    /// Whether `response` is a 4xx refusal because of the request time, by its error code and message.
    public static func isSkewAnswer(_ response: HTTPResponse) -> Bool {
        guard (400..<500).contains(response.status) else { return false }
        let body = ServiceErrorBody(response: response)
        guard let code = body.code else { return false }
        let message = (body.message ?? "").lowercased()
        switch code {
        case "RequestTimeTooSkewed", "RequestExpired", "InvalidTimeStamp.Expired":
            return true
        case "InvalidSignatureException", "SignatureDoesNotMatch":
            return message.hasPrefix("signature expired") || message.hasPrefix("signature not yet current")
                || message.contains("request time")
        case "AccessDenied":
            // rclone serve s3: "The difference between the request time and the server's time exceeds the maximum
            // allowed."
            return response.status == 400 && message.contains("difference between the request time")
        default:
            return false
        }
    }
}
