internal import CAuthCoreLibCrypto

/// Overwrites memory with zeros in a way the optimizer cannot remove.
///
/// The corresponding OpenSSL function is `OPENSSL_cleanse`.
@inline(never)
func secureZero(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    c_authcore_cleanse(base, buffer.count)
}

@inline(never)
func secureZero(_ pointer: UnsafeMutableRawPointer, count: Int) {
    guard count > 0 else { return }
    c_authcore_cleanse(pointer, count)
}

/// Overwrites memory the caller owns with `OPENSSL_cleanse` (for the CLI and the clients, which
/// read secrets into buffers of their own).
package func wipeSecretMemory(_ buffer: UnsafeMutableRawBufferPointer) {
    secureZero(buffer)
}

extension Array where Element == UInt8 {
    /// Wipes the array's bytes in place (its count stays the same).
    package mutating func secureZeroize() {
        withUnsafeMutableBytes { secureZero($0) }
    }
}
