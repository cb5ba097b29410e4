/// `YYYYMMDDTHHMMSSZ` formatted once per signature from integer date components (constant
/// divisors only), stored inline.
package struct AmzDate {
    /// The 16 ASCII bytes.
    private(set) var storage: (UInt64, UInt64) = (0, 0)
    /// `YYYYMMDD` as a number (the signing-key memo's key).
    let day: Int

    init(_ c: Timestamp.Components) {
        day = c.year * 10_000 + c.month * 100 + c.day
        let zero = UInt8(ascii: "0")
        withUnsafeMutableBytes(of: &storage) { out in
            let year = c.year % 10_000
            out[0] = zero &+ UInt8(year / 1000)
            out[1] = zero &+ UInt8(year / 100 % 10)
            out[2] = zero &+ UInt8(year / 10 % 10)
            out[3] = zero &+ UInt8(year % 10)
            out[4] = zero &+ UInt8(c.month / 10)
            out[5] = zero &+ UInt8(c.month % 10)
            out[6] = zero &+ UInt8(c.day / 10)
            out[7] = zero &+ UInt8(c.day % 10)
            out[8] = UInt8(ascii: "T")
            out[9] = zero &+ UInt8(c.hour / 10)
            out[10] = zero &+ UInt8(c.hour % 10)
            out[11] = zero &+ UInt8(c.minute / 10)
            out[12] = zero &+ UInt8(c.minute % 10)
            out[13] = zero &+ UInt8(c.second / 10)
            out[14] = zero &+ UInt8(c.second % 10)
            out[15] = UInt8(ascii: "Z")
        }
    }

    package init(_ time: Timestamp) { self.init(time.components) }

    /// All 16 bytes (`YYYYMMDDTHHMMSSZ`).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = storage
        return withUnsafeBytes(of: &copy) { body($0) }
    }

    /// The first 8 bytes (`YYYYMMDD`).
    func withDateBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<8])) }
    }

    var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }
    var dateString: String { withDateBytes { String(decoding: $0, as: UTF8.self) } }
}

extension String {
    /// A string of exactly `count` UTF-8 bytes written by `body` (one allocation).
    @inline(__always)
    init(writing count: Int, _ body: (inout OutputCursor) -> Void) {
        self.init(unsafeUninitializedCapacity: count) { buffer in
            var cursor = OutputCursor(buffer: buffer)
            body(&cursor)
            return cursor.position
        }
    }
}

/// Appends bytes into a fixed, pre-sized buffer.
package struct OutputCursor {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    package init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
    package var position = 0

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(position &+ bytes.count <= buffer.count, "output buffer too small")  // invariant: callers size buffers from their inputs
        UnsafeMutableRawPointer(buffer.baseAddress! + position).copyMemory(from: base, byteCount: bytes.count)  // invariant: callers size the buffer
        position += bytes.count
    }

    @inline(__always)
    mutating func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write($0) } }

    @inline(__always)
    mutating func write(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        let count = range.count
        precondition(position &+ count <= buffer.count, "output buffer too small")  // invariant: callers size buffers from their inputs
        if count <= 16 {
            // Short pieces (header names, separators): a byte loop beats a memmove call.
            var i = 0
            while i < count {
                buffer[position &+ i] = source[range.lowerBound &+ i]
                i &+= 1
            }
        } else {
            (buffer.baseAddress! + position).update(from: source.baseAddress! + range.lowerBound, count: count)  // invariant: non-empty ranges of sized buffers
        }
        position &+= count
    }

    @inline(__always)
    mutating func writeByte(_ byte: UInt8) {
        precondition(position < buffer.count, "output buffer too small")  // invariant: callers size buffers from their inputs
        buffer[position] = byte
        position += 1
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { write(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func writeHex(_ bytes: UnsafeRawBufferPointer) {
        precondition(position &+ 2 &* bytes.count <= buffer.count, "output buffer too small")  // invariant: callers size buffers
        // invariant: checked above; the buffer has room for every digit.
        let base = buffer.baseAddress!
        for byte in bytes {
            base[position] = lowerHexDigit(byte >> 4)
            base[position &+ 1] = lowerHexDigit(byte & 0x0F)
            position &+= 2
        }
    }
}
