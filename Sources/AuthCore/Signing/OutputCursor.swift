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

extension Array where UInt8 == Element {
    /// The bytes (at most `capacity`) written by `body`, built in a temporary block (on the stack
    /// unless large) and copied into an array of exactly their size; the block is wiped afterwards
    /// when `holdsSecret`. The array itself is never wiped: it must not hold a secret (use
    /// ``SecureBytes`` for that); `holdsSecret` is for writers whose word stores may reach secret
    /// bytes past what they keep.
    ///
    /// For small arrays built per call (a signer's fixed parts, a query). It is cheaper than
    /// `Array(unsafeUninitializedCapacity:initializingWith:)`, which allocates through an entry point
    /// the compiler cannot specialise (`ContiguousArray._allocateBufferUninitialized`, `@inline(never)`
    /// and without a body callers can see; its run-time lookup of the storage class's metadata
    /// costs about 300 instructions, measured with callgrind): `reserveCapacity` and
    /// `append(contentsOf:)` are specialised here.
    @inline(__always)
    init(writing capacity: Int, holdsSecret: Bool = false, _ body: (inout OutputCursor) -> Void) {
        self = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(capacity, 1)) { block in
            var out = OutputCursor(buffer: block)
            body(&out)
            var array: [UInt8] = []
            array.reserveCapacity(out.position)
            array.append(contentsOf: UnsafeBufferPointer(rebasing: block[..<out.position]))
            if holdsSecret { secureZero(UnsafeMutableRawBufferPointer(block)) }
            return array
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
        // invariant: callers size buffers from their inputs
        precondition(position &+ bytes.count <= buffer.count, "output buffer too small")
        // invariant: callers size the buffer
        UnsafeMutableRawPointer(buffer.baseAddress! + position).copyMemory(from: base, byteCount: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write($0) } }

    @inline(__always)
    mutating func write(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        let count = range.count
        // invariant: callers size buffers from their inputs
        precondition(position &+ count <= buffer.count, "output buffer too small")
        if count <= 16 {
            // Short pieces (header names, separators): a byte loop beats a memmove call.
            var i = 0
            while i < count {
                buffer[position &+ i] = source[range.lowerBound &+ i]
                i &+= 1
            }
        } else {
            // invariant: non-empty ranges of sized buffers
            (buffer.baseAddress! + position).update(from: source.baseAddress! + range.lowerBound, count: count)
        }
        position &+= count
    }

    /// Copies `count` bytes eight at a time, without a `memmove` call, when both sides have room for
    /// whole words: the source may be read, and the buffer written, up to seven bytes past `count`
    /// (those bytes are overwritten by what comes next, or lie past the end of the result).
    /// - Parameter sourceSlack: how many bytes past `source + count` may be read.
    @inline(__always)
    mutating func writeWords(_ source: UnsafeRawPointer, count: Int, sourceSlack: Int) {
        // invariant: callers size buffers from their inputs
        precondition(position &+ count <= buffer.count, "output buffer too small")
        let rounded = (count &+ 7) & ~7
        // invariant: a buffer this cursor writes into is never empty (callers size it from their inputs).
        let target = UnsafeMutableRawPointer(buffer.baseAddress! + position)
        if position &+ rounded <= buffer.count && rounded &- count <= sourceSlack {
            var offset = 0
            while offset < count {
                target.storeBytes(
                    of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
                    toByteOffset: offset,
                    as: UInt64.self
                )
                offset &+= 8
            }
        } else {
            target.copyMemory(from: source, byteCount: count)
        }
        position &+= count
    }

    /// Writes the eight bytes of `word` as they lie in memory (a word loaded from a byte buffer).
    @inline(__always)
    mutating func writeWord(_ word: UInt64) {
        // invariant: callers size buffers from their inputs
        precondition(position &+ 8 <= buffer.count, "output buffer too small")
        // invariant: checked above
        UnsafeMutableRawPointer(buffer.baseAddress! + position).storeBytes(of: word, as: UInt64.self)
        position &+= 8
    }

    /// Writes the first `count` (0...8) bytes of `word` as they lie in memory: one eight-byte store
    /// when the buffer has room for it past the position (the bytes after the first `count` are
    /// then left beyond the position, for what follows to overwrite), else byte by byte.
    @inline(__always)
    mutating func writeWord(_ word: UInt64, keeping count: Int) {
        // invariant: callers size buffers from their inputs
        precondition(count >= 0 && count <= 8 && position &+ count <= buffer.count, "output buffer too small")
        let target = UnsafeMutableRawPointer(buffer.baseAddress! + position)  // invariant: checked above
        if position &+ 8 <= buffer.count {
            target.storeBytes(of: word, as: UInt64.self)
        } else {
            // Byte by byte from the value (no copy of it in memory: its bytes may be a secret's).
            var rest = UInt64(littleEndian: word)
            for offset in 0..<count {
                target.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: offset, as: UInt8.self)
                rest &>>= 8
            }
        }
        position &+= count
    }

    @inline(__always)
    mutating func writeByte(_ byte: UInt8) {
        // invariant: callers size buffers from their inputs
        precondition(position < buffer.count, "output buffer too small")
        buffer[position] = byte
        position += 1
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { write(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func write(_ text: String) {
        // Native strings lend their bytes in place (no copy of the string value, so no retain).
        if text.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) == nil {
            var text = text
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
    }

    @inline(__always)
    mutating func writeHex(_ bytes: UnsafeRawBufferPointer) {
        // invariant: callers size buffers
        precondition(position &+ 2 &* bytes.count <= buffer.count, "output buffer too small")
        // invariant: checked above; the buffer has room for every digit.
        Hex.write(bytes, to: UnsafeMutableRawPointer(buffer.baseAddress!) + position)
        position &+= 2 &* bytes.count
    }
}
