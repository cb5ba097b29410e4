internal import CAuthCoreLibCrypto

/// A chain of HMACs where each result keys the next: `k₀ = seed`, `kᵢ = HMAC(kᵢ₋₁, partᵢ)` — the
/// scoped signing-key derivation of every ``SigningScheme`` (AWS SigV4, OSS V4).
///
/// One OpenSSL context is created for the chain and re-keyed for each step (`EVP_MAC_init` with a
/// new key and no parameters keeps the digest: no fetch), where a context per step would fetch the
/// digest and allocate each time. Intermediate keys live in wiping storage.
enum HMACKeyChain {
    /// The last key of the chain, in wiping storage.
    static func derive(_ algorithm: HashAlgorithm, seed: SecureBytes, parts: [String]) -> SecureBytes {
        let handle = MACHandle(owning: seed.withUnsafeBytes { MACHandle.makeContext(algorithm: algorithm, key: $0) }, algorithm: algorithm)
        var key = seed
        for (index, part) in parts.enumerated() {
            if index > 0 {
                let ok = key.withUnsafeBytes { c_authcore_hmac_ctx_rekey(handle.context, $0.baseAddress, $0.count) }
                precondition(ok == 1, "EVP_MAC_init (re-key) failed")  // invariant: any key length is valid for HMAC
            }
            var text = part
            text.withUTF8 { handle.update(UnsafeRawBufferPointer($0)) }
            key = handle.finalizeSecret()
        }
        return key
    }
}
