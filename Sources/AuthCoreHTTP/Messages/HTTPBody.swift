public import AuthCore

/// The body of a request or a response: bytes, bytes that carry a secret (kept in wiping storage),
/// or a stream of chunks sent as it is produced.
///
/// One type for what the transports send and receive:
/// - ``bytes(_:)``: an ordinary body in memory;
/// - ``secret(_:)``: a body holding a password or a secret key, in `SecureBytes` (wiped when
///   released); a transport sends it from there (``withInMemoryBytes(_:)``), and delivers the answer to
///   a request with ``HTTPRequest/answerCarriesSecrets`` this way;
/// - ``stream(_:)``: a request body read from a file or the caller's chunks, in constant memory,
///   with or without a known length (``HTTPBodyStream``); a transport whose
///   ``HTTPTransport/streamsBodies`` is false refuses it.
public enum HTTPBody: Sendable, CustomStringConvertible, CustomReflectable {
    /// Bytes in memory.
    case bytes([UInt8])
    /// Bytes that carry a secret, in wiping storage.
    case secret(SecureBytes)
    /// Chunks produced as they are sent.
    case stream(HTTPBodyStream)

    /// No body.
    public static let empty = HTTPBody.bytes([])

    /// The body's length in bytes: nil for a stream of unknown length.
    public var count: Int? {
        switch self {
        case .bytes(let bytes): bytes.count
        case .secret(let secret): secret.count
        case .stream(let stream): stream.length
        }
    }

    /// Whether the body is a ``stream(_:)``.
    public var isStream: Bool {
        if case .stream = self { return true }
        return false
    }

    /// Whether the body is known to hold no byte.
    public var isEmpty: Bool { count == 0 }

    /// The bytes of a ``bytes(_:)`` body; empty for the others (a secret is read only through
    /// ``withInMemoryBytes(_:)``, which makes no copy; a stream through its chunks). For reading an
    /// answer known to be plain (an error document); a transport sends with ``withInMemoryBytes(_:)``
    /// and ``stream(_:)``, never this.
    public var plainBytes: [UInt8] {
        if case .bytes(let bytes) = self { return bytes }
        return []
    }

    /// The body in wiping storage: a ``secret(_:)``'s own, or a wiping copy of plain bytes (from a
    /// transport that does not know ``HTTPRequest/answerCarriesSecrets``); empty for a stream.
    package var inWipingStorage: SecureBytes {
        switch self {
        case .secret(let secret): secret
        case .bytes(let bytes): SecureBytes(bytes)
        case .stream: SecureBytes([])
        }
    }

    /// Calls `work` with the bytes of a body in memory (``bytes(_:)`` or ``secret(_:)``, from its
    /// wiping storage); nil for a stream.
    ///
    /// - Warning: Do not escape the pointer from the closure.
    public func withInMemoryBytes<R, E: Error>(_ work: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        switch self {
        case .bytes(let bytes): try bytes.withUnsafeBytesTyped(work)
        case .secret(let secret): try secret.withUnsafeBytes(work)
        case .stream: nil
        }
    }

    /// The kind and size only (also for `dump` and debuggers).
    public var customMirror: Mirror { Mirror(self, children: ["body": description], displayStyle: .enum) }

    /// The kind and size only: bodies carry passwords, tokens and secret keys.
    public var description: String {
        switch self {
        case .bytes(let bytes): "\(bytes.count) bytes"
        case .secret(let secret): "\(secret.count) secret bytes"
        case .stream(let stream): stream.length.map { "streamed, \($0) bytes" } ?? "streamed"
        }
    }
}
