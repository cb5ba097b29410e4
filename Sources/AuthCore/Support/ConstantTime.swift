internal import CAuthCoreLibCrypto

/// Compares two byte buffers in time that depends only on their lengths.
///
/// Use this for MACs, SRP proofs and signatures, never `==` on `[UInt8]`. Buffers of different
/// lengths compare unequal (the length is not secret). Only the verdict is public: it is the one
/// value the constant-flow gate lets the caller branch on.
///
/// The corresponding OpenSSL function is `CRYPTO_memcmp`.
public func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard lhs.count > 0 else { return true }
    // invariant: count > 0 so both base addresses exist
    let difference = c_authcore_memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count)
    return ConstantFlow.declassified(difference) == 0  // the verdict is public
}

/// Compares two byte collections in constant time; see ``constantTimeEqual(_:_:)-(UnsafeRawBufferPointer,_)``.
///
/// Contiguous collections are compared in place; others are first copied into wiping storage.
public func constantTimeEqual<L: Collection<UInt8>, R: Collection<UInt8>>(_ lhs: L, _ rhs: R) -> Bool {
    withContiguousSecretBytes(lhs) { l in withContiguousSecretBytes(rhs) { r in constantTimeEqual(l, r) } }
}

/// Calls `body` with the bytes of `bytes`, in place when they are contiguous, else from a wiped copy.
func withContiguousSecretBytes<C: Collection<UInt8>, R>(_ bytes: C, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
    return SecureBytes(bytes).withUnsafeBytes(body)
}

/// 1 when `lhs` is below `rhs` in lexicographic byte order, else 0, reading every byte and branching
/// on none (buffers of one length; a longer one is compared as far as the shorter goes).
///
/// Each byte pair's verdict replaces the running one unless the bytes are equal, from the last
/// byte to the first, so the first differing byte decides: with `d = l − r` in `-255…255`,
/// `d >> 8` is −1 exactly when `l < r`, and `((l ^ r) − 1) >> 8` is −1 exactly when `l == r`.
package func constantTimeLessThan(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    var verdict = 0
    for index in stride(from: Swift.min(lhs.count, rhs.count) - 1, through: 0, by: -1) {
        let l = Int(lhs[index])
        let r = Int(rhs[index])
        let less = ((l - r) >> 8) & 1
        let equal = ((l ^ r) - 1) >> 8
        verdict = (verdict & equal) | (less & ~equal)
    }
    return verdict
}
