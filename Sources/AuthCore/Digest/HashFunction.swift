/// A cryptographic hash function with an incremental API, in the shape of swift-crypto's.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(bytes: header)
/// hasher.update(bytes: body)
/// let digest = hasher.finalize()
/// let same = SHA256.hash(bytes: header + body)
/// ```
public protocol HashFunction: Sendable {
    /// The run-time description of this function.
    static var algorithm: HashAlgorithm { get }
    /// Starts a new computation.
    init()
    /// Adds bytes to the computation.
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    /// Returns the digest of everything added so far; the hasher can go on being updated.
    func finalize() -> Digest
}

extension HashFunction {
    /// The digest length in bytes.
    @inlinable public static var byteCount: Int { algorithm.byteCount }
    /// The block length in bytes.
    @inlinable public static var blockByteCount: Int { algorithm.blockByteCount }

    /// Adds the bytes of a collection.
    @inlinable
    public mutating func update(bytes: some Collection<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(bufferPointer: UnsafeRawBufferPointer($0)) }
        ) {
            return done
        }
        Array(bytes).withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// Adds the UTF-8 bytes of a string.
    @inlinable
    public mutating func update(string: String) {
        var string = string
        string.withUTF8 { update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// Hashes a buffer in one call.
    @inlinable
    public static func hash(bufferPointer: UnsafeRawBufferPointer) -> Digest {
        algorithm.hash(bufferPointer)
    }

    /// Hashes the bytes of a collection in one call.
    @inlinable
    public static func hash(bytes: some Collection<UInt8>) -> Digest {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(bufferPointer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash(bufferPointer: $0) }
    }

    /// Hashes the UTF-8 bytes of a string in one call.
    @inlinable
    public static func hash(string: String) -> Digest {
        var string = string
        return string.withUTF8 { hash(bufferPointer: UnsafeRawBufferPointer($0)) }
    }
}
