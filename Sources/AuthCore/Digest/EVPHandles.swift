internal import CAuthCoreLibCrypto

/// OpenSSL algorithm handles, fetched once per process.
///
/// Per-call `EVP_sha256()`/`EVP_MD_fetch` costs about as much as hashing 64 bytes, so AuthCore
/// fetches each `EVP_MD` and the HMAC `EVP_MAC` once and reuses them.
final class EVPHandles: @unchecked Sendable {
    // invariant: EVP_MD and EVP_MAC objects are immutable after fetch and safe to share between threads
    // (OpenSSL 3 "Algorithm fetching": fetched objects are reference counted and read-only).
    static let shared = EVPHandles()

    /// Indexed by ``HashAlgorithm``'s identifier.
    let digests: [OpaquePointer]
    let hmac: OpaquePointer

    private init() {
        digests = HashAlgorithm.all.map { algorithm in
            let md = algorithm.openSSLName.withUTF8Buffer { name in
                // invariant: static name
                EVP_MD_fetch(nil, UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self), nil)
            }
            guard let md else {
                // invariant: the default provider always has SHA-1/SHA-2; without it nothing can work.
                preconditionFailure("OpenSSL default provider has no \(algorithm.name) digest")
            }
            return md
        }
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            // invariant: the default provider always has HMAC.
            preconditionFailure("OpenSSL default provider has no HMAC")
        }
        hmac = mac
    }
}
