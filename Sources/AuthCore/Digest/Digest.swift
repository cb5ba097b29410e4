/// The output of a hash function or HMAC: up to 64 bytes stored inline (no heap allocation).
///
/// `==` is constant-time, so a `Digest` can be compared against a received MAC directly.
public struct Digest: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    /// The number of meaningful bytes (20 for SHA-1 … 64 for SHA-512).
    public let count: Int

    /// The largest digest size, SHA-512's.
    public static let maximumByteCount = 64

    @inlinable
    init(count: Int) {
        self.storage = (0, 0, 0, 0, 0, 0, 0, 0)
        self.count = count
    }

    /// Builds a digest from `count` bytes written by `body`.
    @inlinable
    init(count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
        self.init(count: count)
        withUnsafeMutableBytes(of: &storage) { raw in
            body(UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
        }
    }

    /// Calls `body` with the digest bytes.
    ///
    /// - Warning: Do not escape the pointer from the closure.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var copy = storage
        return try Swift.withUnsafeBytes(of: &copy) { (raw) throws(E) -> R in
            try body(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        }
    }

    /// The digest as an array.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Lower-case hex.
    public var hexLowercased: String { withUnsafeBytes { Hex.encode($0) } }

    /// Standard Base64 (RFC 4648 §4).
    public var base64: String { withUnsafeBytes { Base64.encode($0) } }

    /// The same digest, declassified for the constant-flow gate: for MACs the protocol publishes
    /// (request signatures) at the point they are made.
    package var published: Digest {
        var copy = self
        Swift.withUnsafeBytes(of: &copy.storage) { ConstantFlow.declassify($0) }
        return copy
    }

    /// Standard Base64 of a value the protocol publishes (a signature, a proof that is sent),
    /// declassified first for the constant-flow gate.
    package var publishedBase64: String {
        withUnsafeBytes {
            ConstantFlow.declassify($0)
            return Base64.encode($0)
        }
    }
    /// Lower-case hex of a value the protocol publishes, declassified first.
    package var publishedHexLowercased: String {
        withUnsafeBytes {
            ConstantFlow.declassify($0)
            return Hex.encode($0)
        }
    }

    /// Only the size: a digest may be a MAC, a key or a hash of a secret. Use ``hexLowercased`` to show a
    /// public digest.
    public var description: String { "Digest(\(count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .struct) }

    /// Constant-time equality.
    public static func == (lhs: Digest, rhs: Digest) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in constantTimeEqual(l, r) } }
    }
}
