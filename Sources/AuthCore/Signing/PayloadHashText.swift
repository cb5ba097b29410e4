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
        withUnsafeMutableBytes(of: &storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: text.utf8Start, count: count))
        }
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

    /// The payload's entry: the hex SHA-256 of bytes (at most ``SigV4Request/maximumInMemoryPayload``),
    /// a precomputed hash checked to be 64 hex digits (written lower-case), or a marker.
    ///
    /// - Throws: ``AuthCoreError/Code/inputTooLarge`` for a larger body,
    ///   ``AuthCoreError/Code/malformedRequest`` for a precomputed hash that is not 64 hex digits.
    // borrowed: no copy (retain) of the body per signature
    package init(_ payload: borrowing SigV4Payload) throws(AuthCoreError) {
        switch payload {
        case .bytes(let bytes):
            guard bytes.count <= SigV4Request.maximumInMemoryPayload else {
                throw AuthCoreError(.inputTooLarge, "payload exceeds \(SigV4Request.maximumInMemoryPayload) bytes")
            }
            self =
                bytes.isEmpty ? .emptyBody : PayloadHashText(hexOf: bytes.withUnsafeBytes { LowLevelSHA256.hash($0) })
        case .precomputedHash(let hex):
            guard hex.utf8.count == 64, let bytes = try? Hex.decode(hex) else {
                throw AuthCoreError(.malformedRequest, "payload hash must be 64 hex digits")
            }
            self.init(hexOf: bytes.withUnsafeBytes { raw in Digest(count: 32) { $0.copyMemory(from: raw) } })
        case .unsigned:
            self = .unsigned
        case .streaming:
            self = .streaming
        }
    }

    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = storage
        let count = self.count
        return Swift.withUnsafeBytes(of: &copy) { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// The text as a `String` (for the `X-Amz-Content-SHA256` header).
    var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    static var emptyBody: PayloadHashText {
        PayloadHashText("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
    static var unsigned: PayloadHashText { PayloadHashText("UNSIGNED-PAYLOAD") }
    static var streaming: PayloadHashText { PayloadHashText("STREAMING-AWS4-HMAC-SHA256-PAYLOAD") }
}
