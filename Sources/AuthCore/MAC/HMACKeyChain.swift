/// A chain of HMAC-SHA256s where each result keys the next: `k₀ = seed`, `kᵢ = HMAC(kᵢ₋₁, partᵢ)` —
/// the scoped signing-key derivation of every ``SigningScheme`` (AWS SigV4, OSS V4).
///
/// Each step keys a stack `SHA256_CTX` pair (``HMACSHA256Schedule``'s one-shot form): no OpenSSL
/// context, no allocation but the result's. Intermediate keys live in a wiped stack block.
enum HMACKeyChain {
    /// The last key of the chain, in wiping storage.
    static func derive(seed: SecureBytes, parts: [String]) -> SecureBytes {
        SecureBytes(count: LowLevelSHA256.byteCount) { result in
            seed.withUnsafeBytes { derive(seed: $0, parts: parts, into: result) }
        }
    }

    /// The last key of the chain, written to `result` (32 bytes); the intermediate keys alternate
    /// between the halves of a stack block that is wiped before returning, and the last step writes
    /// straight into `result`.
    static func derive(seed: UnsafeRawBufferPointer, parts: [String], into result: UnsafeMutableRawBufferPointer) {
        derive(seed: seed, stepCount: parts.count, into: result) { index, step in
            var text = parts[index]
            text.withUTF8 { step(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The chain of `stepCount` steps whose part `i` `withPart(i, step)` lends to `step`: the
    /// scopes' four parts without an array of them (a signer made per request allocates none).
    static func derive(
        seed: UnsafeRawBufferPointer,
        stepCount: Int,
        into result: UnsafeMutableRawBufferPointer,
        withPart: (Int, (UnsafeRawBufferPointer) -> Void) -> Void
    ) {
        precondition(stepCount > 0, "a key chain has at least one step")  // invariant: the schemes have four
        let size = LowLevelSHA256.byteCount
        precondition(result.count == size, "a key chain's result is 32 bytes")
        withUnsafeTemporaryAllocation(byteCount: 2 * size, alignment: 8) { keys in
            for index in 0..<stepCount {
                let key =
                    index == 0 ? seed : UnsafeRawBufferPointer(rebasing: keys[((index - 1) % 2 * size)...].prefix(size))
                let target =
                    index == stepCount - 1
                    ? result : UnsafeMutableRawBufferPointer(rebasing: keys[(index % 2 * size)...].prefix(size))
                var steps = 0
                withPart(index) {
                    HMACSHA256Schedule.authenticationCode(key: key, message: $0, into: target)
                    steps &+= 1
                }
                // invariant: every caller lends each part once (the schemes' four, the array form's).
                precondition(steps == 1, "a key chain's part was not lent exactly once")
            }
            secureZero(keys)
        }
    }
}
