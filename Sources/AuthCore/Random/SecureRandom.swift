internal import CAuthCoreLibCrypto

/// A source of cryptographically secure random bytes.
///
/// AuthCore never reaches for randomness on its own: every API that needs it takes a generator,
/// defaulting to ``SystemRandom``. Tests inject a deterministic one.
public protocol SecureRandomGenerator: Sendable {
    /// Fills `buffer` with random bytes.
    ///
    /// - Throws: ``AuthCoreError/Code/randomFailure`` when no randomness is available.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError)
}

extension SecureRandomGenerator {
    /// `count` random bytes in wiping storage.
    public func secureBytes(count: Int) throws(AuthCoreError) -> SecureBytes {
        guard count >= 0 else {
            throw AuthCoreError(.invalidParameter, "a random byte count must not be negative, got \(count)")
        }
        return try SecureBytes(count: count) { (buffer) throws(AuthCoreError) in try fill(buffer) }
    }
}

/// OpenSSL's default DRBG. The corresponding OpenSSL function is `RAND_bytes`.
public struct SystemRandom: SecureRandomGenerator {
    /// Creates a handle to the process-wide generator.
    public init() {}

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        guard var pointer = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let chunk = Swift.min(remaining, Int(Int32.max))
            guard c_authcore_rand_bytes(pointer, chunk) == 1 else {
                throw AuthCoreError(.randomFailure, "RAND_bytes failed")
            }
            pointer += chunk
            remaining -= chunk
        }
    }
}
