import AuthCore

/// A begun login as it travels through a ``HandshakeStore``: `(username, A, expiry, b-state)` sealed
/// with AES-256-GCM under the service's sealing key, the login id as associated data (so a state
/// cannot be replayed under another id), a fresh random 96-bit nonce in front.
///
/// Plaintext layout (all lengths fixed by the configuration except the username's):
/// `version (1) ‖ username length (2, big-endian) ‖ username ‖ expiry ms since 1970 (8) ‖ A (N width)
/// ‖ SRPServerEphemeral.exportedState()`.
struct SealedHandshake {
    static let version: UInt8 = 1

    let username: String
    let clientPublicValue: [UInt8]
    let expiresAtMilliseconds: Int64
    let ephemeralState: SecureBytes

    /// `nonce ‖ ciphertext ‖ tag`.
    func sealed(key: SecureBytes, loginId: String, random: some SecureRandomGenerator) throws(AuthCoreError) -> [UInt8] {
        let name = Array(username.utf8)
        var plaintext = SecureBytes()
        plaintext.append(contentsOf: [Self.version, UInt8(truncatingIfNeeded: name.count >> 8), UInt8(truncatingIfNeeded: name.count)])  // ≤ 65535: the service caps usernames
        plaintext.append(contentsOf: name)
        plaintext.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: expiresAtMilliseconds) >> (56 - 8 * $0)) })
        plaintext.append(contentsOf: clientPublicValue)
        ephemeralState.withUnsafeBytes { plaintext.append(contentsOf: $0) }
        let nonce = try random.secureBytes(count: AES256GCM.nonceByteCount).withUnsafeBytes { Array($0) }
        return nonce + (try AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: Array(loginId.utf8)))
    }

    /// Opens what ``sealed(key:loginId:random:)`` made for `loginId` under a configuration whose `A`
    /// is `publicValueByteCount` bytes and whose exported state is `stateByteCount` bytes.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` for anything not sealed by this key for this
    ///   id; `.malformedInput` for a layout this version does not write.
    static func open(
        _ stored: [UInt8], key: SecureBytes, loginId: String, publicValueByteCount: Int, stateByteCount: Int
    ) throws(AuthCoreError) -> SealedHandshake {
        guard stored.count >= AES256GCM.nonceByteCount + AES256GCM.tagByteCount else {
            throw AuthCoreError(.signatureMismatch, "sealed login state failed authentication")
        }
        let nonce = Array(stored.prefix(AES256GCM.nonceByteCount))
        let plaintext = try AES256GCM.open(Array(stored.dropFirst(AES256GCM.nonceByteCount)), key: key, nonce: nonce, associatedData: Array(loginId.utf8))
        return try plaintext.withUnsafeBytes { (bytes) throws(AuthCoreError) -> SealedHandshake in
            func malformed() -> AuthCoreError { AuthCoreError(.malformedInput, "sealed login state has an unknown layout") }
            guard bytes.count >= 3, bytes[0] == version else { throw malformed() }
            let nameCount = Int(bytes[1]) << 8 | Int(bytes[2])
            let (fixed, overflow) = (3 + nameCount + 8).addingReportingOverflow(publicValueByteCount + stateByteCount)
            guard !overflow, bytes.count == fixed else { throw malformed() }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[3..<(3 + nameCount)]), as: UTF8.self)
            var expiry: UInt64 = 0
            for index in (3 + nameCount)..<(3 + nameCount + 8) { expiry = expiry << 8 | UInt64(bytes[index]) }
            let aStart = 3 + nameCount + 8
            let stateStart = aStart + publicValueByteCount
            return SealedHandshake(
                username: name, clientPublicValue: Array(bytes[aStart..<stateStart]), expiresAtMilliseconds: Int64(bitPattern: expiry),
                ephemeralState: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[stateStart...])))
        }
    }
}
