internal import CAuthCoreLibCrypto

/// An owned, keyed OpenSSL HMAC context (`EVP_MAC_CTX`), freed — and its keyed state cleansed — when
/// its one owner goes. Noncopyable, so a one-shot MAC or a ``KeyedHMAC`` keeps it inline with no
/// heap object of its own.
struct MACHandle: ~Copyable, @unchecked Sendable {
    // invariant (Sendable): a noncopyable value has one owner at a time, so the context is never shared.
    let context: OpaquePointer
    let algorithm: HashAlgorithm

    init(algorithm: HashAlgorithm, key: UnsafeRawBufferPointer) {
        self.init(owning: Self.makeContext(algorithm: algorithm, key: key), algorithm: algorithm)
    }

    /// Takes ownership of a context made by ``makeContext(algorithm:key:)``.
    init(owning context: OpaquePointer, algorithm: HashAlgorithm) {
        self.context = context
        self.algorithm = algorithm
    }

    /// A new context keyed with `key` (closures over key bytes return this, since they cannot
    /// return a noncopyable value).
    static func makeContext(algorithm: HashAlgorithm, key: UnsafeRawBufferPointer) -> OpaquePointer {
        guard
            let ctx = algorithm.openSSLName.withUTF8Buffer({ name in
                c_authcore_hmac_ctx_new(
                    EVPHandles.shared.hmac,
                    UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self),
                    key.baseAddress,
                    key.count
                )
            })
        else {
            // invariant: keying HMAC with a fetched digest cannot fail short of OOM (any key length is valid).
            preconditionFailure("EVP_MAC_init failed")
        }
        return ctx
    }

    init(copying other: borrowing MACHandle) {
        guard let ctx = EVP_MAC_CTX_dup(other.context) else {
            // invariant: duplicating a live context cannot fail short of OOM.
            preconditionFailure("EVP_MAC_CTX_dup failed")
        }
        self.context = ctx
        self.algorithm = other.algorithm
    }

    deinit { EVP_MAC_CTX_free(context) }  // frees and cleanses the keyed state

    func update(_ buffer: UnsafeRawBufferPointer) { Self.update(context, buffer) }

    /// Feeds `buffer` to a live context (also for closures, which cannot capture the noncopyable owner).
    static func update(_ context: OpaquePointer, _ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let ok = c_authcore_mac_update(context, base, buffer.count)
        precondition(ok == 1, "EVP_MAC_update failed")  // invariant: cannot fail on a keyed context
    }

    /// The MAC written straight into wiping storage (a key in a derivation chain: no `Digest` copy).
    func finalizeSecret() -> SecureBytes {
        let count = algorithm.byteCount
        return SecureBytes(count: count) { out in
            var length = 0
            let ok = c_authcore_mac_final(context, out.baseAddress!, &length, count)  // invariant: count > 0
            precondition(ok == 1 && length == count, "EVP_MAC_final failed")  // invariant: a keyed context
        }
    }

    /// The MAC written into `out` (exactly the algorithm's byte count), caller-owned storage.
    func finalize(into out: UnsafeMutableRawBufferPointer) {
        // invariant: sized by callers
        precondition(out.count == algorithm.byteCount, "MAC output buffer of the wrong size")
        var length = 0
        let ok = c_authcore_mac_final(context, out.baseAddress!, &length, out.count)  // invariant: count > 0
        precondition(ok == 1 && length == out.count, "EVP_MAC_final failed")  // invariant: a keyed context
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

/// A ``MACHandle`` behind a reference, for the copyable ``HMAC`` value (copied on write).
final class MACContext: @unchecked Sendable {
    // invariant: mutated only through a uniquely referenced owner (copy-on-write).
    let handle: MACHandle

    init(algorithm: HashAlgorithm, key: UnsafeRawBufferPointer) { handle = MACHandle(algorithm: algorithm, key: key) }
    init(copying other: MACContext) { handle = MACHandle(copying: other.handle) }

    var algorithm: HashAlgorithm { handle.algorithm }
    func update(_ buffer: UnsafeRawBufferPointer) { handle.update(buffer) }
    func finalize() -> Digest { handle.finalize() }
}
