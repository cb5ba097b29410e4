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
/// `{"time":…,"method":"POST","path":"/srp/finish","status":200,"durationMs":1.84,"peer":"127.0.0.1","requestId":…,"user":"alice"}`;
/// - an **audit line** per security event (``audit(_:user:peer:requestId:)``):
///   `{"time":…,"audit":"login-failed","user":"alice","peer":…,"requestId":…}`.
///
/// No line holds a header value (but the request id a client chose), a body, a token or a password:
/// the fields are the ones above, the path and the user cut at 256 bytes. Lines are written in order
/// by a thread of the log's own (`LineLogWriter`), so a caller (an MHD thread, a handler) never
/// waits for the descriptor, and in batches: a line joins a buffer, written `batchInterval` after
/// the first line in it (at once past `batchBytes`) — one wake of the writing thread per batch, not
/// one per request (each wake is a context switch, a large part of a request's cost on a small
/// machine), and no Dispatch timer (a `asyncAfter` per batch cost libdispatch's manager thread two
/// wakes and four system calls more). A
/// reader that falls behind makes lines wait in memory up to `maximumPending` lines and 8 MiB; past
/// that lines are dropped and counted, and the next line written says how many (`{"dropped":N}`) —
/// a stalled log must not stall or exhaust the server. A log made `held` writes nothing until
/// ``announce(_:)`` has written its first line (a server's readiness line comes first, even when a
/// request arrives before it is printed).
public final class JSONLineLog: Sendable {
    /// How long a line may wait for others to join its batch.
    static let batchInterval = DispatchTimeInterval.milliseconds(10)
    /// A batch this large is written at once.
    static let batchBytes = 64 << 10

    /// The most bytes of lines waiting to be written.
    static let maximumPendingBytes = 8 << 20
    /// The longest path or user written (longer ones are cut).
    static let maximumFieldBytes = 256
    /// The longest text line (``text(_:)``), its newline apart.
    public static let maximumTextBytes = 4096

    private let writer: LineLogWriter

    /// A log writing to `descriptor` (standard output by default; not closed by the log). A `held`
    /// log writes nothing before ``announce(_:)``. Lines are written after the call that gives them,
    /// and after the log is released (its thread writes what is left): ``flush(within:)`` before
    /// closing the descriptor.
    public init(descriptor: Int32 = 1, maximumPending: Int = 10_000, held: Bool = false) {
        writer = LineLogWriter(descriptor: descriptor, maximumPending: Swift.max(1, maximumPending), held: held)
    }

    deinit {
        // The writer thread writes what is left, then ends.
        writer.close()
    }

    /// Writes `line` (and a newline) at once, ahead of every line queued so far, and releases a held
    /// log. Later calls write their line in turn.
    public func announce(_ line: [UInt8]) { writer.announce(line + [0x0A]) }

    /// The access line of one request (give this to ``HTTPServer``'s `requestLog`).
    public func access(_ record: AccessRecord) {
        let milliseconds =
            Double(record.duration.components.seconds) * 1000 + Double(record.duration.components.attoseconds) / 1e15
        var line = LineWriter()
        line.string("time", record.startedAt.iso8601Milliseconds)
        line.string("method", Self.cut(record.method))
        line.string("path", Self.cut(record.path))
        if let status = record.status { line.integer("status", status) }
        line.number("durationMs", (milliseconds * 1000).rounded() / 1000)
        if let peer = record.peer { line.string("peer", peer.description) }
        line.string("requestId", record.requestId)
        if let user = record.user { line.string("user", Self.cut(user)) }
        if !record.completed { line.raw("completed", "false") }
        enqueue(line.finished())
    }

    /// The kinds of audit line.
    public enum AuditEvent: String, Sendable {
        /// A login's proof was wrong (a wrong password, or an unknown user).
        case loginFailed = "login-failed"
        /// A login was refused because its user has too many failures from this client.
        case lockout
    }

    /// A line of plain text (for a log of text lines, such as `authcore serve`'s failure reasons on
    /// standard error): `text` cut at ``maximumTextBytes``, each control character but tab (C0, DEL,
    /// C1) and each line or paragraph separator (U+2028, U+2029) written as `?`, so a request's
    /// path in it can neither start a line of its own nor send a terminal escape. The same queue,
    /// limits and drop counting as the JSON lines: a stalled reader never blocks the caller.
    public func text(_ text: String) {
        var line: [UInt8] = []
        line.reserveCapacity(Swift.min(text.utf8.count, Self.maximumTextBytes) + 1)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let unsafe =
                (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            guard line.count + (unsafe ? 1 : UTF8.width(scalar)) <= Self.maximumTextBytes else { break }
            if unsafe { line.append(UInt8(ascii: "?")) } else { UTF8.encode(scalar) { line.append($0) } }
        }
        line.append(0x0A)
        enqueue(line)
    }

    /// An audit line.
    public func audit(_ event: AuditEvent, user: String?, peer: ClientAddress?, requestId: String) {
        var line = LineWriter()
        line.string("time", SystemClock().now().iso8601Milliseconds)
        line.string("audit", event.rawValue)
        if let user { line.string("user", Self.cut(user)) }
        if let peer { line.string("peer", peer.description) }
        line.string("requestId", requestId)
        enqueue(line.finished())
    }

    /// Waits until every line queued so far is written, for at most `limit` (a reader that has
    /// stalled must not hold a stopping server); false when the limit came first. Releases a held
    /// log.
    @discardableResult
    public func flush(within limit: Duration = .seconds(2)) -> Bool { writer.flush(within: limit) }

    /// At most ``maximumFieldBytes`` of `text` (a cut inside a character leaves U+FFFD).
    static func cut(_ text: String) -> String {
        text.utf8.count <= maximumFieldBytes
            ? text : String(decoding: text.utf8.prefix(maximumFieldBytes), as: UTF8.self)
    }

    /// One JSON object written member by member (fixed ASCII names; string values escaped by the
    /// package's JSON string escaper), a newline at the end: a line costs a few hundred nanoseconds,
    /// where JSONEncoder cost tens of microseconds per request.
    struct LineWriter {
        private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]

        init() { bytes.reserveCapacity(256) }

        private mutating func name(_ name: StaticString) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: "\":".utf8)
        }

        mutating func string(_ key: StaticString, _ value: String) {
            name(key)
            var value = value
            value.withUTF8 { utf8 in
                let raw = UnsafeRawBufferPointer(utf8)
                let start = bytes.count
                let count = SecretJSONValues.escapedCount(raw)
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: repeatElement(0, count: count))
                bytes.withUnsafeMutableBytes { output in _ = SecretJSONValues.escape(raw, into: output, at: start + 1) }
                bytes.append(UInt8(ascii: "\""))
            }
        }

        mutating func integer(_ key: StaticString, _ value: Int) {
            name(key)
            bytes.append(contentsOf: String(value).utf8)
        }

        mutating func number(_ key: StaticString, _ value: Double) {
            name(key)
            bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        }

        mutating func raw(_ key: StaticString, _ text: StaticString) {
            name(key)
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        consuming func finished() -> [UInt8] {
            bytes.append(contentsOf: "}\n".utf8)
            return bytes
        }
    }

    private func enqueue(_ line: [UInt8]) { writer.append(line, counted: true) }
}
