internal import CAuthCoreLibCrypto

/// A hash algorithm chosen at run time (from a vector file, a CLI flag, an SRP configuration).
///
/// A closed set that may grow: ``sha1``, ``sha224``, ``sha256``, ``sha384``, ``sha512``. Each value
/// maps to an OpenSSL `EVP_MD` fetched once per process. For compile-time choice use the
/// ``HashFunction`` types (``SHA256``, ``Insecure/SHA1``, ...).
///
/// The value is a one-byte identifier (no reference counting when it is passed around on hot paths).
public struct HashAlgorithm: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let id: UInt8

    @usableFromInline init(id: UInt8) { self.id = id }

    /// SHA-1 (FIPS 180-4). Only for protocols that require it (RFC 5054 vectors, OSS V1).
    public static let sha1 = HashAlgorithm(id: 0)
    /// SHA-224 (FIPS 180-4).
    public static let sha224 = HashAlgorithm(id: 1)
    /// SHA-256 (FIPS 180-4).
    public static let sha256 = HashAlgorithm(id: 2)
    /// SHA-384 (FIPS 180-4).
    public static let sha384 = HashAlgorithm(id: 3)
    /// SHA-512 (FIPS 180-4).
    public static let sha512 = HashAlgorithm(id: 4)

    /// Every supported algorithm.
    public static let all: [HashAlgorithm] = [.sha1, .sha224, .sha256, .sha384, .sha512]

    private static let names = ["sha1", "sha224", "sha256", "sha384", "sha512"]

    /// The lower-case name used in vector files and on the command line (`sha256`).
    public var name: String { Self.names[Int(id)] }
    public var description: String { name }

    /// The digest length in bytes.
    @inlinable
    public var byteCount: Int {
        switch id {
        case 0: 20
        case 1: 28
        case 2: 32
        case 3: 48
        default: 64
        }
    }

    /// The internal block length in bytes (HMAC pads keys to it).
    @inlinable
    public var blockByteCount: Int { id >= 3 ? 128 : 64 }

    /// OpenSSL's name of the digest (for `EVP_MD_fetch` and the HMAC `digest` parameter).
    var openSSLName: StaticString {
        switch id {
        case 0: "SHA1"
        case 1: "SHA224"
        case 2: "SHA256"
        case 3: "SHA384"
        default: "SHA512"
        }
    }

    /// Looks an algorithm up by name (`sha256`, case-insensitive; `sha-256` also accepted).
    ///
    /// - Throws: ``AuthCoreError/Code/unsupported`` for an unknown name.
    public init(named name: String) throws(AuthCoreError) {
        let key = String(name.lowercased().filter { $0 != "-" })
        guard let index = Self.names.firstIndex(of: key) else {
            throw AuthCoreError(
                .unsupported,
                "unknown hash algorithm '\(name)' (expected sha1, sha224, sha256, sha384 or sha512)"
            )
        }
        self.init(id: UInt8(index))
    }

    var evpMD: OpaquePointer { EVPHandles.shared.digests[Int(id)] }
}
