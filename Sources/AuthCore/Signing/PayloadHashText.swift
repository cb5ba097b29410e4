/// The payload's entry in a canonical request: 64 lower-case hex digits of its SHA-256, or a marker
/// (`UNSIGNED-PAYLOAD`, `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`). Stored inline, so passing it
/// around allocates nothing and touches no reference count.
package struct PayloadHashText {
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// The number of bytes (64, or the marker's length).
    package private(set) var count: Int

    /// A marker or a constant hash (at most 64 bytes).
    init(_ text: StaticString) {
        count = Swift.min(text.utf8CodeUnitCount, 64)
        let count = self.count
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: text.utf8Start, count: count)) }
    }

    /// The lower-case hex of a 32-byte digest.
    init(hexOf digest: Digest) {
        count = 64
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                var out = OutputCursor(buffer: bytes)
                digest.withUnsafeBytes { out.writeHex(UnsafeRawBufferPointer(rebasing: $0.prefix(32))) }
            }
        }
    }

    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = storage
        let count = self.count
        return Swift.withUnsafeBytes(of: &copy) { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// The text as a `String` (for the `X-Amz-Content-SHA256` header).
    var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    static let emptyBody = PayloadHashText("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    static let unsigned = PayloadHashText("UNSIGNED-PAYLOAD")
    static let streaming = PayloadHashText("STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
}
