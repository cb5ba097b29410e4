/// A session token's UTF-8 bytes at a stable address, owned by a signer: its canonical request's
/// token line (`x-amz-security-token`) is copied from here, so the signing path lends the token
/// with no closure and no reference count (``SignerHeaderValues/securityToken``; ``SecureBytes``
/// lends its bytes only inside a closure, which stops the signer's canonical request being inlined). Two allocations
/// per signer that signs with a token (this object and its bytes); none without one.
///
/// Memory safety: the bytes are allocated and written once in `init`, only read afterwards, and
/// wiped and freed in `deinit`. A borrower may read ``bytes`` only while the owner is alive: a
/// signer's storage holds this object in a `let`, and the storage is a `let` of the signer, which
/// a signing method borrows for the whole call, so the bytes outlive every canonical request built
/// in it. Concurrent readers never meet a writer.
final class SessionTokenBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    private let count: Int

    /// A copy of `token`'s bytes, or nil without a token (a factory: a failable class initialiser
    /// would allocate the object before it fails, one allocation per signer without a token).
    static func copying(_ token: String?) -> SessionTokenBytes? {
        guard let token else { return nil }
        return SessionTokenBytes(token)
    }

    private init(_ token: String) {
        count = token.utf8.count
        base = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1), alignment: 1)
        UnsafeMutableRawBufferPointer(start: base, count: count).copyBytes(from: token.utf8)
    }

    deinit {
        secureZero(base, count: count)
        base.deallocate()
    }

    /// The bytes, valid while this object is alive.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
