internal import CAuthCoreLibCrypto

/// An OpenSSL digest context (`EVP_MD_CTX`), owned by one hasher value and copied on write.
final class DigestContext: @unchecked Sendable {
    // invariant: a DigestContext is mutated only through a uniquely referenced hasher (copy-on-write).
    let context: OpaquePointer

    init(algorithm: HashAlgorithm) {
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex2(ctx, algorithm.evpMD, nil) == 1 else {
            // invariant: allocation and init of a fetched default-provider digest cannot fail short of OOM.
            preconditionFailure("EVP_MD_CTX_new/EVP_DigestInit_ex2 failed")
        }
        context = ctx
    }

    init(copying other: DigestContext) {
        guard let ctx = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(ctx, other.context) == 1 else {
            // invariant: copying a live context cannot fail short of OOM.
            preconditionFailure("EVP_MD_CTX_copy_ex failed")
        }
        context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }  // EVP_MD_CTX_free cleanses the state

    func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let ok = c_authcore_digest_update(context, base, buffer.count)
        precondition(ok == 1, "EVP_DigestUpdate failed")  // invariant: cannot fail on an initialised context
    }

    /// Finalises into wiping storage (hashes of secrets: `x`, `K`), never through a `Digest` copy.
    func finalizeSecret(count: Int) -> SecureBytes {
        SecureBytes(count: count) { out in
            var length: UInt32 = 0
            let ok = c_authcore_digest_final(context, out.baseAddress!, &length)  // invariant: count > 0
            precondition(ok == 1 && Int(length) == count, "EVP_DigestFinal_ex failed")  // invariant: as below
        }
    }

    /// Finalises into a digest; the context must be re-initialised before further use.
    func finalize(count: Int) -> Digest {
        Digest(count: count) { out in
            var length: UInt32 = 0
            let ok = c_authcore_digest_final(context, out.baseAddress!, &length)  // invariant: count > 0
            precondition(ok == 1 && Int(length) == count, "EVP_DigestFinal_ex failed")  // invariant: as above
        }
    }
}

extension HashAlgorithm {
    /// One-shot hash with the fetched `EVP_MD`. The corresponding OpenSSL function is `EVP_Digest`.
    @usableFromInline
    func hash(_ buffer: UnsafeRawBufferPointer) -> Digest {
        let md = evpMD
        return Digest(count: byteCount) { out in
            // invariant: count > 0
            let ok = c_authcore_digest_oneshot(md, buffer.baseAddress, buffer.count, out.baseAddress!)
            precondition(ok == 1, "EVP_Digest failed")  // invariant: a fetched digest over valid memory cannot fail
        }
    }

    /// Hashes the concatenation of several buffers.
    func hash(parts: [UnsafeRawBufferPointer]) -> Digest {
        let context = DigestContext(algorithm: self)
        for part in parts { context.update(part) }
        return context.finalize(count: byteCount)
    }

    /// Hashes the concatenation of several buffers into wiping storage (for hashes of secrets).
    func secretHash(parts: [UnsafeRawBufferPointer]) -> SecureBytes {
        let context = DigestContext(algorithm: self)
        for part in parts { context.update(part) }
        return context.finalizeSecret(count: byteCount)
    }

    /// Starts an incremental hash chosen at run time.
    public func makeHasher() -> AnyHasher { AnyHasher(algorithm: self) }
}

/// An incremental hasher whose algorithm is chosen at run time.
public struct AnyHasher: Sendable {
    /// The algorithm.
    public let algorithm: HashAlgorithm
    private var context: DigestContext

    init(algorithm: HashAlgorithm) {
        self.algorithm = algorithm
        self.context = DigestContext(algorithm: algorithm)
    }

    /// Adds bytes.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        context.update(bufferPointer)
    }

    /// Adds bytes.
    public mutating func update(bytes: some Collection<UInt8>) {
        Array(bytes).withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// The digest of everything added so far (the hasher stays usable).
    public func finalize() -> Digest {
        DigestContext(copying: context).finalize(count: algorithm.byteCount)
    }
}

extension HashAlgorithm {
    /// Hashes bytes in one call.
    public func hash(bytes: some Collection<UInt8>) -> Digest {
        if let d = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) { return d }
        return Array(bytes).withUnsafeBytes { hash($0) }
    }
}
