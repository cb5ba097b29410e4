internal import CAuthCoreLibCrypto

/// Compares two byte buffers in time that depends only on their lengths.
///
/// Use this for MACs, SRP proofs and signatures, never `==` on `[UInt8]`. Buffers of different
/// lengths compare unequal (the length is not secret).
///
/// The corresponding OpenSSL function is `CRYPTO_memcmp`.
public func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard lhs.count > 0 else { return true }
    return c_authcore_memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0  // invariant: count > 0 so both base addresses exist
}

/// Compares two byte collections in constant time; see ``constantTimeEqual(_:_:)-(UnsafeRawBufferPointer,_)``.
public func constantTimeEqual<L: Collection<UInt8>, R: Collection<UInt8>>(_ lhs: L, _ rhs: R) -> Bool {
    let left = Array(lhs)
    let right = Array(rhs)
    return left.withUnsafeBytes { l in right.withUnsafeBytes { r in constantTimeEqual(l, r) } }
}
