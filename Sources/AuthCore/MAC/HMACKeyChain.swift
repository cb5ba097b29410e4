/// A chain of HMAC-SHA256s where each result keys the next: `k₀ = seed`, `kᵢ = HMAC(kᵢ₋₁, partᵢ)` —
/// the scoped signing-key derivation of every ``SigningScheme`` (AWS SigV4, OSS V4).
///
/// Each step keys a stack `SHA256_CTX` pair (``HMACSHA256Schedule``'s one-shot form): no OpenSSL
/// context, no allocation but the result's. Intermediate keys live in a wiped stack block.
enum HMACKeyChain {
    /// The last key of the chain, in wiping storage.
    static func derive(seed: SecureBytes, parts: [String]) -> SecureBytes {
        precondition(!parts.isEmpty, "a key chain has at least one step")  // invariant: the schemes have four
        let size = LowLevelSHA256.byteCount
        return SecureBytes(count: size) { result in
            withUnsafeTemporaryAllocation(byteCount: 2 * size, alignment: 8) { keys in
                // Steps alternate between the two halves; the last writes straight into the result.
                for (index, part) in parts.enumerated() {
                    let key = index == 0 ? nil : UnsafeRawBufferPointer(rebasing: keys[((index - 1) % 2 * size)...].prefix(size))
                    let target = index == parts.count - 1 ? result : UnsafeMutableRawBufferPointer(rebasing: keys[(index % 2 * size)...].prefix(size))
                    var text = part
                    text.withUTF8 { message in
                        if let key {
                            HMACSHA256Schedule.authenticationCode(key: key, message: UnsafeRawBufferPointer(message), into: target)
                        } else {
                            seed.withUnsafeBytes { HMACSHA256Schedule.authenticationCode(key: $0, message: UnsafeRawBufferPointer(message), into: target) }
                        }
                    }
                }
                secureZero(keys)
            }
        }
    }
}
