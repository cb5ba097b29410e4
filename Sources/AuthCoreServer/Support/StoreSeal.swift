import AuthCore

/// Sealing what the server keeps in the shared store (or hands out, as device tokens) and reads
/// back: AES-256-GCM (``AES256GCM``) with a fresh random 96-bit nonce from the system generator in
/// front, `nonce ‖ ciphertext ‖ tag`, and associated data that names the record's place (its store
/// key), so a record moved to another place does not open.
enum StoreSeal {
    /// `nonce ‖ ciphertext ‖ tag` of `plaintext`.
    ///
    /// - Throws: `AuthCoreError.Code.randomFailure`, `.libcryptoFailure`.
    static func seal(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        associatedData: [UInt8]
    ) throws(AuthCoreError) -> [UInt8] {
        let nonce = try SystemRandom().secureBytes(count: AES256GCM.nonceByteCount).withUnsafeBytes { Array($0) }
        return nonce + (try AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData))
    }

    /// The plaintext of what ``seal(_:key:associatedData:)`` made with this key and associated data.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` for anything else (forged, changed, moved,
    ///   sealed under another secret, too short).
    static func open(_ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8]) throws(AuthCoreError) -> SecureBytes
    {
        guard sealed.count >= AES256GCM.nonceByteCount + AES256GCM.tagByteCount else {
            throw AuthCoreError(.signatureMismatch, "sealed record failed authentication")
        }
        let nonce = Array(sealed.prefix(AES256GCM.nonceByteCount))
        do {
            return try AES256GCM.open(
                Array(sealed.dropFirst(AES256GCM.nonceByteCount)),
                key: key,
                nonce: nonce,
                associatedData: associatedData
            )
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

    mutating func byte() throws(AuthCoreError) -> UInt8 { try take(1)[0] }

    mutating func uint64() throws(AuthCoreError) -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    mutating func take(_ count: Int) throws(AuthCoreError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else {
            throw AuthCoreError(.malformedInput, "sealed record has an unknown layout")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}

/// Writing what ``RecordReader`` reads.
///
/// Sized up front by its callers (`capacity`: the record's length, or more), so the wiping buffer
/// is allocated once and never moved; numbers are appended from their big-endian bytes in place
/// (no array per field).
struct RecordWriter {
    private(set) var bytes: SecureBytes

    init(capacity: Int) { bytes = SecureBytes(reservingCapacity: capacity) }

    mutating func byte(_ value: UInt8) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }

    mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

    /// A 2-byte length, then the bytes (at most 65,535: callers bound what they write).
    mutating func lengthPrefixed(_ value: some Collection<UInt8>) {
        // invariant: every caller writes a username (the service caps them at 65,535 bytes) or a fixed-size id.
        precondition(value.count <= 0xFFFF, "a length-prefixed field is at most 65535 bytes")
        withUnsafeBytes(of: UInt16(truncatingIfNeeded: value.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: value)
    }

    mutating func raw(_ value: some Collection<UInt8>) { bytes.append(contentsOf: value) }
}
