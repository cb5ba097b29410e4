public import AuthCore

/// What a handler learns about its request that the access log should say: the user, once known.
/// One per request, shared by the handler and the server (a reference: ``HTTPServerRequest`` is a
/// value).
public final class RequestNotes: Sendable {
    private let state = Locked<String?>(nil)

    /// Empty notes.
    public init() {}

    /// The user the request acts for (a session's user) or tried to log in as (a login's, recorded
    /// before its proof is checked: the status tells whether it succeeded); a username, never a
    /// token; nil until known.
    public var user: String? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// One request as the access log records it, given to ``HTTPServer``'s request log when the
/// exchange ends. It holds no header value and no body: nothing secret.
public struct AccessRecord: Sendable {
    /// When the request's head arrived (the system's clock).
    public var startedAt: Timestamp
    /// The method.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The status answered; nil when the connection ended before an answer was queued.
    public var status: Int?
    /// Whether the answer was sent whole (false: the connection ended first, or the server was
    /// stopped).
    public var completed = true
    /// From the head's arrival to the end of the exchange (the answer written, or the connection gone).
    public var duration: Duration
    /// The peer's address.
    public var peer: ClientAddress?
    /// The request id: the client's `X-Request-Id` when it is a usable one, else one the server made
    /// (a client's id is its own word: two clients may send the same).
    public var requestId: String
    /// The user a handler recorded (``RequestNotes/user``).
    public var user: String?

    /// A record (the server makes these; tests may too).
    public init(
        startedAt: Timestamp,
        method: String,
        path: String,
        status: Int?,
        duration: Duration,
        peer: ClientAddress?,
        requestId: String,
        user: String? = nil
    ) {
        self.startedAt = startedAt
        self.method = method
        self.path = path
        self.status = status
        self.duration = duration
        self.peer = peer
        self.requestId = requestId
        self.user = user
    }
}

/// The `X-Request-Id` rule: a client's id is kept when it is 1…128 bytes of letters, digits and
/// `-_.:/+=` (so it can be logged and echoed as is); otherwise the server makes one, a random
/// per-process prefix and a counter (unique across instances without a call to the random source
/// per request).
enum RequestIdentifiers {
    static let headerName = "X-Request-Id"

    /// The client's id when usable.
    static func accepted(_ headers: [HTTPHeader]) -> String? {
        guard let value = headers.first(named: headerName) else { return nil }
        let bytes = value.utf8
        guard (1...128).contains(bytes.count), bytes.allSatisfy(isAllowed) else { return nil }
        return value
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"),
            UInt8(ascii: "+"), UInt8(ascii: "="):
            return true
        default: return false
        }
    }

    private static let prefix: String = {
        let bytes = (try? SystemRandom().secureBytes(count: 6).withUnsafeBytes { Array($0) }) ?? []
        return Hex.encode(bytes)
    }()
    private static let counter = Locked<UInt64>(0)

    /// A new id: `<12 hex digits>-<counter in hex>`.
    static func make() -> String {
        let next = counter.withLock { value in
            value &+= 1
            return value
        }
        return "\(prefix)-\(String(next, radix: 16))"
    }
}
