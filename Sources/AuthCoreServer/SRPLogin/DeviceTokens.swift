import AuthCore

/// The device tokens of ``SRPLoginService``: after each successful login the client gets one, and
/// shows it at its next logins to be counted apart from guessers (the "device cookie" of OWASP's
/// guidance against online guessing). Stateless: `version (2) ‖ expiry ms (8) ‖ the user's sign-out
/// generation (8) ‖ device id (16) ‖ username`, sealed with AES-256-GCM under the server's
/// device-token key (``ServerKeys``), URL-safe Base64. A token opens only for the user it names,
/// until it expires, and counts only while the user has not signed out everywhere since
/// (``UserGeneration``); a device keeps its id across logins, so its failure count follows it.
enum DeviceTokens {
    static let version: UInt8 = 2
    static let deviceIdByteCount = 16
    static let associatedData = Array("authcore device token".utf8)

    /// A token for `username`'s device `deviceId`, valid until `expiresAtMilliseconds`.
    static func issue(
        username: [UInt8],
        deviceId: [UInt8],
        generation: UInt64,
        expiresAtMilliseconds: Int64,
        key: SecureBytes
    ) throws(AuthCoreError)
        -> String
    {
        // version, expiry, generation, id, name
        var record = RecordWriter(capacity: 17 + deviceId.count + username.count)
        record.byte(version)
        record.uint64(UInt64(bitPattern: expiresAtMilliseconds))
        record.uint64(generation)
        record.raw(deviceId)
        record.raw(username)
        return Base64.encode(
            try StoreSeal.seal(record.bytes, key: key, associatedData: associatedData),
            alphabet: .urlSafe,
            padding: false
        )
    }

    /// The device id and sign-out generation of `token` when it is a live token of `username`; nil
    /// for anything else (no error: a client with a bad token is simply a client without one).
    static func open(
        _ token: String,
        username: [UInt8],
        nowMilliseconds: Int64,
        key: SecureBytes
    ) -> (deviceId: [UInt8], generation: UInt64)? {
        guard token.utf8.count <= 1024, let sealed = try? Base64.decode(token, alphabet: .urlSafe),
            let plaintext = try? StoreSeal.open(sealed, key: key, associatedData: associatedData)
        else { return nil }
        var record = RecordReader(plaintext.withUnsafeBytes { Array($0) })
        guard (try? record.byte()) == version, let expiry = try? record.uint64(),
            nowMilliseconds < Int64(bitPattern: expiry),
            let generation = try? record.uint64(), let deviceId = try? record.take(deviceIdByteCount),
            record.rest() == username
        else { return nil }
        return (Array(deviceId), generation)
    }
}
