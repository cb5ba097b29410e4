import AuthCore

/// A begun login as it travels through a ``HandshakeStore``: `(username, expiry, device, A,
/// b-state)` sealed by ``StoreSeal`` under the handshake key of one login id, the login id as
/// associated data (so a state cannot be replayed under another id).
///
/// Plaintext layout (all lengths fixed by the configuration except the username's):
/// `version (1) ‖ username length (2, big-endian) ‖ username ‖ expiry ms since 1970 (8) ‖ the
/// device token's sign-out generation (8; 0 without one) ‖ device id (16; all zero without a
/// device token) ‖ A (N width) ‖ SRPServerEphemeral.exportedState()`.
///
/// In the store the sealed state follows its clear header (``LoginStateHeader``).
package struct SealedHandshake {
    static let version: UInt8 = 4
    static let noDevice = [UInt8](repeating: 0, count: DeviceTokens.deviceIdByteCount)

    package let username: String
    let clientPublicValue: [UInt8]
    let expiresAtMilliseconds: Int64
    /// The sign-out generation sealed in the device token the client showed at begin (0 without
    /// one): `finish` trusts the device while it is at least the user's current generation.
    let deviceGeneration: UInt64
    /// The device id of the token the client showed at begin (valid for this user), or nil.
    let deviceId: [UInt8]?
    let ephemeralState: SecureBytes

    /// `nonce ‖ ciphertext ‖ tag`.
    func sealed(key: SecureBytes, loginId: String) throws(AuthCoreError) -> [UInt8] {
        // The record's exact length: one wiping buffer, never moved (it takes the ephemeral state).
        let capacity =
            3 + username.utf8.count + 16 + (deviceId ?? Self.noDevice).count + clientPublicValue.count
            + ephemeralState.count
        var plaintext = RecordWriter(capacity: capacity)
        plaintext.byte(Self.version)
        plaintext.lengthPrefixed(username.utf8)
        plaintext.uint64(UInt64(bitPattern: expiresAtMilliseconds))
        plaintext.uint64(deviceGeneration)
        plaintext.raw(deviceId ?? Self.noDevice)
        plaintext.raw(clientPublicValue)
        ephemeralState.withUnsafeBytes { plaintext.raw($0) }
        assert(plaintext.bytes.count == capacity, "the login state's layout and its capacity disagree")
        return try StoreSeal.seal(plaintext.bytes, key: key, associatedData: Array(loginId.utf8))
    }

    /// Opens what ``sealed(key:loginId:)`` made for `loginId` under a configuration whose `A`
    /// is `publicValueByteCount` bytes and whose exported state is `stateByteCount` bytes.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` for anything not sealed by this key for this
    ///   id; `.malformedInput` for a layout this version does not write.
    static func open(
        _ stored: [UInt8],
        key: SecureBytes,
        loginId: String,
        publicValueByteCount: Int,
        stateByteCount: Int
    ) throws(AuthCoreError) -> SealedHandshake {
        let plaintext = try StoreSeal.open(stored, key: key, associatedData: Array(loginId.utf8))
        return try plaintext.withUnsafeBytes { (bytes) throws(AuthCoreError) -> SealedHandshake in
            func malformed() -> AuthCoreError {
                AuthCoreError(.malformedInput, "sealed login state has an unknown layout")
            }
            guard bytes.count >= 3, bytes[0] == version else { throw malformed() }
            let nameCount = Int(bytes[1]) << 8 | Int(bytes[2])
            let deviceCount = DeviceTokens.deviceIdByteCount
            let (fixed, overflow) = (3 + nameCount + 16 + deviceCount).addingReportingOverflow(
                publicValueByteCount + stateByteCount
            )
            guard !overflow, bytes.count == fixed else { throw malformed() }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[3..<(3 + nameCount)]), as: UTF8.self)
            var expiry: UInt64 = 0
            for index in (3 + nameCount)..<(3 + nameCount + 8) { expiry = expiry << 8 | UInt64(bytes[index]) }
            var generation: UInt64 = 0
            for index in (3 + nameCount + 8)..<(3 + nameCount + 16) {
                generation = generation << 8 | UInt64(bytes[index])
            }
            let deviceStart = 3 + nameCount + 16
            let device = Array(bytes[deviceStart..<(deviceStart + deviceCount)])
            let aStart = deviceStart + deviceCount
            let stateStart = aStart + publicValueByteCount
            return SealedHandshake(
                username: name,
                clientPublicValue: Array(bytes[aStart..<stateStart]),
                expiresAtMilliseconds: Int64(bitPattern: expiry),
                deviceGeneration: generation,
                deviceId: device == noDevice ? nil : device,
                ephemeralState: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[stateStart...]))
            )
        }
    }
}
