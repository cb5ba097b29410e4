internal import CAuthCoreLibCrypto

/// OpenSSL algorithm handles, fetched once per process.
///
/// Per-call `EVP_sha256()`/`EVP_MD_fetch` costs about as much as hashing 64 bytes, so AuthCore
/// fetches each `EVP_MD`, the HMAC `EVP_MAC` and the AES-256-GCM `EVP_CIPHER` once and reuses them.
/// (A legacy handle such as `EVP_aes_256_gcm()` is fetched again inside every `EVP_CipherInit_ex2`:
/// with OpenSSL 3.0, 1.2–1.4 µs per 500-byte seal against 0.73–0.79 µs with the fetched one.)
final class EVPHandles: @unchecked Sendable {
    // invariant: EVP_MD, EVP_MAC and EVP_CIPHER objects are immutable after fetch and safe to share between threads
    // (OpenSSL 3 "Algorithm fetching": fetched objects are reference counted and read-only).
    static let shared = EVPHandles()

    /// Indexed by ``HashAlgorithm``'s identifier.
    let digests: [OpaquePointer]
    let hmac: OpaquePointer
    /// AES-256-GCM (``AES256GCM``); nil when the provider has none, which fails only the seal or
    /// open that needs it (a thrown `libcryptoFailure`), not the digests.
    let aes256GCM: OpaquePointer?

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
        aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
    }
}
