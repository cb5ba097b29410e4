import AuthCore
internal import AuthCoreHTTP
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's operational log: one JSON object per line on a file descriptor (standard output for
/// `authcore serve`), for a log shipper to read. Two kinds of line:
///
/// - an **access line** per request (``access(_:)``):
///   `{"time":…,"method":"POST","path":"/srp/finish","status":200,"durationMs":1.84,"peer":"127.0.0.1","requestId":…,"user":"alice"}`;
/// - an **audit line** per security event (``audit(_:user:peer:requestId:)``):
///   `{"time":…,"audit":"login-failed","user":"alice","peer":…,"requestId":…}`.
///
/// No line holds a header value, a body, a token or a password: the fields are the ones above.
/// Lines are written in order by one Dispatch queue, so a caller (an MHD thread, a handler) never
/// waits for the descriptor. A reader that falls behind makes lines wait in memory up to
/// `maximumPending`; past it lines are dropped and counted, and the next line written says how
/// many (`"dropped":N`) — a stalled log must not stall or exhaust the server.
public final class JSONLineLog: Sendable {
    private struct Pending {
        var lines = 0
        var dropped = 0
    }

    private let descriptor: Int32
    private let maximumPending: Int
    private let pending = Locked(Pending())
    private let queue = DispatchQueue(label: "authcore.server.log")

    /// A log writing to `descriptor` (standard output by default; not closed by the log).
    public init(descriptor: Int32 = 1, maximumPending: Int = 10_000) {
        self.descriptor = descriptor
        self.maximumPending = Swift.max(1, maximumPending)
    }

    /// The access line of one request (give this to ``HTTPServer``'s `requestLog`).
    public func access(_ record: AccessRecord) {
        let milliseconds = Double(record.duration.components.seconds) * 1000 + Double(record.duration.components.attoseconds) / 1e15
        enqueue(
            AccessLine(
                time: Self.time(record.startedAt), method: record.method, path: record.path, status: record.status,
                durationMs: (milliseconds * 1000).rounded() / 1000, peer: record.peer?.description, requestId: record.requestId, user: record.user))
    }

    /// The kinds of audit line.
    public enum AuditEvent: String, Sendable {
        /// A login's proof was wrong (a wrong password, or an unknown user).
        case loginFailed = "login-failed"
        /// A login was refused because its user has too many failures from this client.
        case lockout
    }

    /// An audit line.
    public func audit(_ event: AuditEvent, user: String?, peer: ClientAddress?, requestId: String) {
        enqueue(AuditLine(time: Self.time(SystemClock().now()), audit: event.rawValue, user: user, peer: peer?.description, requestId: requestId))
    }

    /// Waits until every line queued so far is written (tests, and before exit).
    public func flush() { queue.sync {} }

    private struct AccessLine: Encodable, Sendable {
        let time: String
        let method: String
        let path: String
        let status: Int?
        let durationMs: Double
        let peer: String?
        let requestId: String
        let user: String?
    }

    private struct AuditLine: Encodable, Sendable {
        let time: String
        let audit: String
        let user: String?
        let peer: String?
        let requestId: String
    }

    private func enqueue<L: Encodable & Sendable>(_ line: L) {
        let dropped: Int? = pending.withLock { pending in
            guard pending.lines < maximumPending else {
                pending.dropped += 1
                return nil
            }
            pending.lines += 1
            defer { pending.dropped = 0 }
            return pending.dropped
        }
        guard let dropped else { return }
        queue.async { [self] in
            var bytes = (try? ServiceJSON.encode(line, keys: .asDeclared)) ?? Array(#"{"logError":"a line could not be encoded"}"#.utf8)
            if dropped > 0 { bytes = Array(#"{"dropped":\#(dropped)}"#.utf8) + [0x0A] + bytes }
            bytes.append(0x0A)
            writeAll(bytes)
            pending.withLock { $0.lines -= 1 }
        }
    }

    /// Writes all of `bytes`, retrying after a signal; a descriptor that fails drops the line.
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// ISO 8601 with milliseconds, UTC.
    static func time(_ time: Timestamp) -> String {
        let c = time.components
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let milliseconds = Int(time.nanoseconds / 1_000_000)
        let ms = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : String(milliseconds)
        return "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second)).\(ms)Z"
    }
}
