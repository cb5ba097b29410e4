// MARK: - SHA-2 (FIPS 180-4)

/// SHA-224 (FIPS 180-4 §6.3). The corresponding OpenSSL digest is `SHA224`.
public struct SHA224: HashFunction {
    public static let algorithm = HashAlgorithm.sha224
    private var state: AnyHasher
    public init() { state = AnyHasher(algorithm: Self.algorithm) }
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { state.update(bufferPointer: bufferPointer) }
    public func finalize() -> Digest { state.finalize() }
}

/// SHA-256 (FIPS 180-4 §6.2). The corresponding OpenSSL digest is `SHA256`.
public struct SHA256: HashFunction {
    public static let algorithm = HashAlgorithm.sha256
    private var state: AnyHasher
    public init() { state = AnyHasher(algorithm: Self.algorithm) }
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { state.update(bufferPointer: bufferPointer) }
    public func finalize() -> Digest { state.finalize() }
}

/// SHA-384 (FIPS 180-4 §6.5). The corresponding OpenSSL digest is `SHA384`.
public struct SHA384: HashFunction {
    public static let algorithm = HashAlgorithm.sha384
    private var state: AnyHasher
    public init() { state = AnyHasher(algorithm: Self.algorithm) }
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { state.update(bufferPointer: bufferPointer) }
    public func finalize() -> Digest { state.finalize() }
}

/// SHA-512 (FIPS 180-4 §6.4). The corresponding OpenSSL digest is `SHA512`.
public struct SHA512: HashFunction {
    public static let algorithm = HashAlgorithm.sha512
    private var state: AnyHasher
    public init() { state = AnyHasher(algorithm: Self.algorithm) }
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { state.update(bufferPointer: bufferPointer) }
    public func finalize() -> Digest { state.finalize() }
}

// MARK: - Insecure

/// Algorithms kept only for protocols that require them.
public enum Insecure {
    /// SHA-1 (FIPS 180-4 §6.1): collision attacks are practical. AuthCore uses it only where a
    /// protocol fixes it (RFC 5054 test vectors and SRP-SHA1 peers, OSS V1 signatures).
    public struct SHA1: HashFunction {
        public static let algorithm = HashAlgorithm.sha1
        private var state: AnyHasher
        public init() { state = AnyHasher(algorithm: Self.algorithm) }
        public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
            state.update(bufferPointer: bufferPointer)
        }
        public func finalize() -> Digest { state.finalize() }
    }
}
