internal import CAuthCoreLibCrypto

/// A buffer for secret bytes that is wiped before its memory is freed.
///
/// `SecureBytes` is a copy-on-write value: copies share one heap buffer until one of them is
/// mutated. Whenever a buffer is released (or replaced on growth) its whole capacity is overwritten
/// with `OPENSSL_cleanse`. Its `description` shows only the length, it is not `Codable` or
/// `Hashable`, and its `==` is constant-time. Bytes are reachable only through
/// ``withUnsafeBytes(_:)``.
///
/// - Important: Swift `String`s cannot be wiped. Pass passwords as bytes (`some Collection<UInt8>`)
///   when you can; AuthCore copies them once into `SecureBytes`.
public struct SecureBytes: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    // invariant (Sendable): a copy-on-write value. Its one heap object (a ManagedBuffer, which the
    // standard library marks non-Sendable) is written only through a uniquely referenced copy
    // (makeUnique), and shared copies only read it.

    /// The bytes and their counts in one heap object — the counts are the buffer's header, the
    /// bytes its tail, which never moves while the object lives — so a secret is one allocation,
    /// not an object and a buffer. The whole capacity is zeroed when made and wiped in `deinit`.
    private final class Storage: ManagedBuffer<SecureBytesHeader, UInt8> {
        // invariant: the bytes are reached only inside ``withBytes(_:)``, and their address never
        // leaves it (nor SecureBytes' withUnsafe… closures).

        /// A zeroed buffer of at least one byte.
        static func make(capacity: Int) -> Storage {
            let capacity = Swift.max(capacity, 1)
            // `create` on the subclass makes a `Storage` (the documented ManagedBuffer pattern).
            let storage = unsafeDowncast(
                create(minimumCapacity: capacity) { _ in SecureBytesHeader(byteCapacity: capacity, count: 0) },
                to: Storage.self
            )
            storage.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: capacity) }
            return storage
        }

        /// Calls `body` with the address of the first byte, valid only inside it.
        @inline(__always)
        func withBytes<R, E: Error>(_ body: (UnsafeMutableRawPointer) throws(E) -> R) throws(E) -> R {
            try withUnsafeMutablePointerToElements { (bytes) throws(E) -> R in try body(UnsafeMutableRawPointer(bytes))
            }
        }
        /// The bytes made (and wiped): what was asked for, not the allocator's rounding.
        var byteCapacity: Int { header.byteCapacity }
        var count: Int {
            get { header.count }
            set { header.count = newValue }
        }

        deinit {
            // ManagedBuffer deinitialises the header; the bytes (trivial) are wiped here.
            withUnsafeMutablePointers { header, bytes in secureZero(bytes, count: header.pointee.byteCapacity) }
        }
    }

    private var storage: Storage

    /// An empty buffer.
    public init() { storage = Storage.make(capacity: 0) }

    /// An empty buffer with room for `capacity` bytes: appends up to it move nothing (so no
    /// intermediate copy of what is appended is made, wiped and freed).
    package init(reservingCapacity capacity: Int) { storage = Storage.make(capacity: Swift.max(0, capacity)) }

    /// Copies `bytes` into a new wiping buffer.
    public init(_ bytes: some Collection<UInt8>) {
        storage = Storage.make(capacity: bytes.count)
        let capacity = storage.byteCapacity
        storage.count = storage.withBytes { base in
            var offset = 0
            for byte in bytes {
                // invariant: a Collection yields `count` elements; checked, since a write past the buffer
                // would be memory-unsafe.
                precondition(offset < capacity, "collection yielded more elements than its count")
                base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
            return offset
        }
    }

    /// Copies raw bytes into a new wiping buffer.
    public init(copying bytes: UnsafeRawBufferPointer) {
        storage = Storage.make(capacity: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            storage.withBytes { $0.copyMemory(from: source, byteCount: bytes.count) }
        }
        storage.count = bytes.count
    }

    /// A buffer of `count` bytes filled by `body`, which is given the uninitialized (zeroed) buffer.
    public init<E: Error>(
        count: Int,
        initializingWith body: (UnsafeMutableRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        // invariant: callers check counts from outside data (secureBytes(count:) does)
        precondition(count >= 0, "negative byte count")
        storage = Storage.make(capacity: count)
        storage.count = count
        try storage.withBytes { (base) throws(E) in try body(UnsafeMutableRawBufferPointer(start: base, count: count)) }
    }

    /// The number of bytes.
    public var count: Int { storage.count }
    /// Whether the buffer is empty.
    public var isEmpty: Bool { storage.count == 0 }

    /// Calls `body` with the bytes.
    ///
    /// - Warning: Do not escape the pointer from the closure.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let count = storage.count
        return try storage.withBytes { (base) throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: base, count: count))
        }
    }

    /// Calls `body` with the mutable bytes, copying the buffer first if it is shared.
    ///
    /// - Warning: Do not escape the pointer from the closure.
    public mutating func withUnsafeMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        makeUnique(reservingCapacity: storage.count)
        let count = storage.count
        return try storage.withBytes { (base) throws(E) -> R in
            try body(UnsafeMutableRawBufferPointer(start: base, count: count))
        }
    }

    /// Appends bytes, moving to a larger wiped buffer if needed.
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        let newCount = storage.count + bytes.count
        makeUnique(reservingCapacity: newCount)
        if let source = bytes.baseAddress, bytes.count > 0 {
            let end = storage.count
            storage.withBytes { ($0 + end).copyMemory(from: source, byteCount: bytes.count) }
        }
        storage.count = newCount
    }

    /// Appends bytes, moving to a larger wiped buffer if needed.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(contentsOf: UnsafeRawBufferPointer($0)) }
        guard appended == nil else { return }
        // Not contiguous (a String's UTF-8 view of a bridged string, a lazy map): byte by byte,
        // never through an unwiped temporary array.
        makeUnique(reservingCapacity: storage.count + bytes.count)
        let capacity = storage.byteCapacity
        let start = storage.count
        storage.count = storage.withBytes { base in
            var offset = start
            for byte in bytes {
                // invariant: a Collection yields `count` elements; checked, since a write past the buffer
                // would be memory-unsafe.
                precondition(offset < capacity, "collection yielded more elements than its count")
                base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
            return offset
        }
    }

    private mutating func makeUnique(reservingCapacity needed: Int) {
        if isKnownUniquelyReferenced(&storage) && storage.byteCapacity >= needed { return }
        let replacement = Storage.make(
            capacity: Swift.max(needed, storage.byteCapacity == 1 ? needed : storage.byteCapacity * 2)
        )
        let count = storage.count
        replacement.withBytes { target in storage.withBytes { target.copyMemory(from: $0, byteCount: count) } }
        replacement.count = count
        storage = replacement  // the old buffer wipes itself when its last reference goes
    }

    /// The first `count` bytes, in a new wiping buffer.
    package func prefix(_ count: Int) -> SecureBytes {
        withUnsafeBytes {
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(Swift.max(0, Swift.min(count, $0.count)))))
        }
    }

    /// The number of leading zero bytes, counted reading every byte and branching on none.
    package var leadingZeroByteCount: Int {
        withUnsafeBytes { bytes in bytes.baseAddress.map { c_authcore_ct_leading_zero_bytes($0, bytes.count) } ?? 0 }
    }

    /// The first non-zero byte (0 when every byte is zero), found reading every byte and branching on none.
    package var firstNonZeroByte: UInt8 {
        withUnsafeBytes { bytes in
            bytes.baseAddress.map { UInt8(truncatingIfNeeded: c_authcore_ct_first_nonzero_byte($0, bytes.count)) } ?? 0
        }
    }

    /// `body` of the bytes from a secret offset `start` (past a secret number's leading zero bytes,
    /// say) in work that does not depend on it: `body` runs on the suffix from every offset in
    /// `candidates` and its result for `start` is kept, chosen byte by byte under a mask. Only whether
    /// `start` lies outside `candidates` is public, and then `start` itself, as `body` runs on that
    /// one suffix. Every result of `body` must have one length.
    package func transformingSuffix(
        from start: Int,
        candidates: Range<Int>,
        _ body: (UnsafeRawBufferPointer) -> SecureBytes
    ) -> SecureBytes {
        precondition(
            !candidates.isEmpty && candidates.lowerBound >= 0 && candidates.upperBound <= count + 1,
            "candidate offsets within the bytes"
        )  // invariant: public, from the callers' widths
        return withUnsafeBytes { all in
            let inside = c_authcore_ct_in_range(start, candidates.lowerBound, candidates.upperBound)
            guard ConstantFlow.declassified(Int(inside)) == 1 else {
                let published = ConstantFlow.declassified(start)  // outside the candidates, the offset itself is public
                return body(UnsafeRawBufferPointer(rebasing: all[Swift.max(0, Swift.min(published, all.count))...]))
            }
            var chosen = SecureBytes()
            for offset in candidates {
                let result = body(UnsafeRawBufferPointer(rebasing: all[Swift.min(offset, all.count)...]))
                if offset == candidates.lowerBound { chosen = SecureBytes(count: result.count) { _ in } }
                chosen.withUnsafeMutableBytes { out in
                    result.withUnsafeBytes {
                        c_authcore_ct_xor_if_equal(
                            out.baseAddress,
                            $0.baseAddress,
                            Swift.min($0.count, out.count),
                            offset,
                            start
                        )
                    }
                }
            }
            return chosen
        }
    }

    public var description: String { "SecureBytes(\(count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count]) }

    /// Constant-time equality (lengths are not secret).
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in constantTimeEqual(l, r) } }
    }
}

/// ``SecureBytes``'s counts, the header of its one heap object.
private struct SecureBytesHeader {
    let byteCapacity: Int
    var count: Int
}
