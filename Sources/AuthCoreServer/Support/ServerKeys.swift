public import AuthCore

/// The keys one server secret (`AUTHCORE_SERVER_SECRET`, the same on every instance) gives, one per
/// purpose: HKDF-SHA256 (RFC 5869) with one extract and a distinct `info` per key (§3.1), so no
/// key can be computed from another and a purpose added later changes none of them.
///
/// | key (`info`) | seals or derives |
/// |---|---|
/// | `handshake sealing key` | begun logins in the shared store (``SRPLoginService``) |
/// | `unknown-user decoy key` | unknown users' salts and verifiers |
/// | `session sealing key` | app sessions in the shared store (``AppSessions``) |
/// | `device token key` | the device tokens of ``SRPLoginService`` (known devices keep logging in while a user is guessed at) |
/// | `server record key` | other records of the server in the shared store (the identities it linked) |
public struct ServerKeys: Sendable {
    let handshakeSealing: SecureBytes
    let decoy: SecureBytes
    let sessionSealing: SecureBytes
    let deviceTokens: SecureBytes
    let records: SecureBytes

    /// The keys of `serverSecret` (at least 32 bytes).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a secret shorter than 32 bytes.
    public init(serverSecret: SecureBytes) throws(AuthCoreError) {
        guard serverSecret.count >= 32 else { throw AuthCoreError(.invalidParameter, "the server secret must be at least 32 bytes") }
        // The salt and the first two infos are the ones the login service has always used: states
        // sealed before an upgrade still open after it.
        let prk = serverSecret.withUnsafeBytes { secret in
            Array("AuthCore SRP login service".utf8).withUnsafeBytes { salt in HashAlgorithm.sha256.hkdfExtract(inputKeyMaterial: secret, salt: salt) }
        }
        func expand(_ info: String) throws(AuthCoreError) -> SecureBytes {
            try prk.withUnsafeBytes { (key) throws(AuthCoreError) -> SecureBytes in
                try Array(info.utf8).withUnsafeBytesTyped { (info) throws(AuthCoreError) -> SecureBytes in
                    try HashAlgorithm.sha256.hkdfExpand(pseudoRandomKey: key, info: info, outputByteCount: 32)
                }
            }
        }
        handshakeSealing = try expand("handshake sealing key")
        decoy = try expand("unknown-user decoy key")
        sessionSealing = try expand("session sealing key")
        deviceTokens = try expand("device token key")
        records = try expand("server record key")
    }

    /// Only the count of keys: they are secret.
    public var description: String { "ServerKeys(5 keys)" }
}

extension ServerKeys: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Sealing what the server keeps in the shared store (or hands out, as device tokens) and reads
/// back: AES-256-GCM (``AES256GCM``) with a fresh random 96-bit nonce from the system generator in
/// front, `nonce ‖ ciphertext ‖ tag`, and associated data that names the record's place (its store
/// key), so a record moved to another place does not open.
enum StoreSeal {
    /// `nonce ‖ ciphertext ‖ tag` of `plaintext`.
    ///
    /// - Throws: `AuthCoreError.Code.randomFailure`, `.libcryptoFailure`.
    static func seal(_ plaintext: SecureBytes, key: SecureBytes, associatedData: [UInt8]) throws(AuthCoreError) -> [UInt8] {
        let nonce = try SystemRandom().secureBytes(count: AES256GCM.nonceByteCount).withUnsafeBytes { Array($0) }
        return nonce + (try AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData))
    }

    /// The plaintext of what ``seal(_:key:associatedData:)`` made with this key and associated data.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` for anything else (forged, changed, moved,
    ///   sealed under another secret, too short).
    static func open(_ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8]) throws(AuthCoreError) -> SecureBytes {
        guard sealed.count >= AES256GCM.nonceByteCount + AES256GCM.tagByteCount else {
            throw AuthCoreError(.signatureMismatch, "sealed record failed authentication")
        }
        let nonce = Array(sealed.prefix(AES256GCM.nonceByteCount))
        do {
            return try AES256GCM.open(Array(sealed.dropFirst(AES256GCM.nonceByteCount)), key: key, nonce: nonce, associatedData: associatedData)
        } catch {
            throw AuthCoreError(.signatureMismatch, "sealed record failed authentication")
        }
    }
}

/// Reading a sealed record's plaintext: fixed-width big-endian integers and length-prefixed bytes,
/// every read checked against what is left.
struct RecordReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(AuthCoreError) -> UInt8 { try take(1)[0] }

    mutating func uint64() throws(AuthCoreError) -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }

    /// A 2-byte length, then that many bytes.
    mutating func lengthPrefixed() throws(AuthCoreError) -> [UInt8] {
        let length = try take(2).reduce(0) { $0 << 8 | Int($1) }
        return Array(try take(length))
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    mutating func take(_ count: Int) throws(AuthCoreError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw AuthCoreError(.malformedInput, "sealed record has an unknown layout") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}

/// Writing what ``RecordReader`` reads.
struct RecordWriter {
    private(set) var bytes = SecureBytes()

    mutating func byte(_ value: UInt8) { bytes.append(contentsOf: [value]) }

    mutating func uint64(_ value: UInt64) { bytes.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }) }

    /// A 2-byte length, then the bytes (at most 65,535: callers bound what they write).
    mutating func lengthPrefixed(_ value: some Collection<UInt8>) {
        // invariant: every caller writes a username (the service caps them at 65,535 bytes) or a fixed-size id.
        precondition(value.count <= 0xFFFF, "a length-prefixed field is at most 65535 bytes")
        bytes.append(contentsOf: [UInt8(truncatingIfNeeded: value.count >> 8), UInt8(truncatingIfNeeded: value.count)])
        bytes.append(contentsOf: value)
    }

    mutating func raw(_ value: some Collection<UInt8>) { bytes.append(contentsOf: value) }
}
