internal import CAuthCoreLibCrypto

/// A keyed OpenSSL HMAC context (`EVP_MAC_CTX`), owned by one value and copied on write.
final class MACContext: @unchecked Sendable {
    // invariant: mutated only through a uniquely referenced owner (copy-on-write) or a ~Copyable owner.
    let context: OpaquePointer
    let algorithm: HashAlgorithm

    init(algorithm: HashAlgorithm, key: UnsafeRawBufferPointer) {
        guard
            let ctx = algorithm.openSSLName.withUTF8Buffer({ name in
                c_authcore_hmac_ctx_new(EVPHandles.shared.hmac, UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self), key.baseAddress, key.count)
            })
        else {
            // invariant: keying HMAC with a fetched digest cannot fail short of OOM (any key length is valid).
            preconditionFailure("EVP_MAC_init failed")
        }
        self.context = ctx
        self.algorithm = algorithm
    }

    init(copying other: MACContext) {
        guard let ctx = EVP_MAC_CTX_dup(other.context) else {
            // invariant: duplicating a live context cannot fail short of OOM.
            preconditionFailure("EVP_MAC_CTX_dup failed")
        }
        self.context = ctx
        self.algorithm = other.algorithm
    }

    deinit { EVP_MAC_CTX_free(context) }  // frees and cleanses the keyed state

    func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let ok = c_authcore_mac_update(context, base, buffer.count)
        precondition(ok == 1, "EVP_MAC_update failed")  // invariant: cannot fail on a keyed context
    }

    func finalize() -> Digest {
        let count = algorithm.byteCount
        return Digest(count: count) { out in
            var length = 0
            let ok = c_authcore_mac_final(context, out.baseAddress!, &length, count)  // invariant: count > 0
            precondition(ok == 1 && length == count, "EVP_MAC_final failed")  // invariant: as above
        }
    }

    /// Back to the freshly keyed state, without re-keying (OpenSSL 3: `EVP_MAC_init` with a NULL key).
    func reset() {
        let ok = c_authcore_hmac_ctx_reset(context)
        precondition(ok == 1, "EVP_MAC_init(NULL key) failed")  // invariant: a keyed HMAC context can always be reset
    }
}
