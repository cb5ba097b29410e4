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
/// | `device token key` | the device tokens of ``SRPLoginService`` (known devices keep logging in while a user is
/// guessed at) |
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
        guard serverSecret.count >= 32 else {
            throw AuthCoreError(.invalidParameter, "the server secret must be at least 32 bytes")
        }
        // The salt and the first two infos are the ones the login service has always used: states
        // sealed before an upgrade still open after it.
        let prk = serverSecret.withUnsafeBytes { secret in
            Array("AuthCore SRP login service".utf8).withUnsafeBytes { salt in
                HashAlgorithm.sha256.hkdfExtract(inputKeyMaterial: secret, salt: salt)
            }
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
