/// Cloud credentials: an access key id, a secret, an optional session token and expiration.
///
/// The secret lives in ``SecureBytes`` (wiped when freed). `description` shows the access key id and
/// expiration only: the secret and the session token are redacted. The type is deliberately not
/// `Codable`.
public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key id (`AKIA…`, `ASIA…`, `LTAI…`, `STS.…`): not secret.
    public let accessKeyId: String
    /// The secret access key.
    public let secretAccessKey: SecureBytes
    /// The session token of temporary credentials (STS), or nil.
    public let sessionToken: String?
    /// When temporary credentials stop working, or nil for long-term keys.
    public let expiration: Timestamp?

    /// Credentials from their parts.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for an empty access key id or secret, or one
    ///   containing control characters or whitespace.
    public init(
        accessKeyId: String,
        secretAccessKey: SecureBytes,
        sessionToken: String? = nil,
        expiration: Timestamp? = nil
    )
        throws(AuthCoreError)
    {
        guard !accessKeyId.isEmpty, accessKeyId.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw AuthCoreError(
                .invalidParameter,
                "access key id is empty or contains whitespace or control characters"
            )
        }
        guard !secretAccessKey.isEmpty else { throw AuthCoreError(.invalidParameter, "secret access key is empty") }
        if let sessionToken {
            guard !sessionToken.isEmpty, sessionToken.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                throw AuthCoreError(.invalidParameter, "session token is empty or contains control characters")
            }
        }
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// Credentials with the secret given as a string (copied once into wiping storage).
    public init(
        accessKeyId: String,
        secretAccessKey: String,
        sessionToken: String? = nil,
        expiration: Timestamp? = nil
    )
        throws(AuthCoreError)
    {
        try self.init(
            accessKeyId: accessKeyId,
            secretAccessKey: SecureBytes(secretAccessKey.utf8),
            sessionToken: sessionToken,
            expiration: expiration
        )
    }

    /// Whether the credentials are expired at `time` (never, for credentials without an expiration).
    public func isExpired(at time: Timestamp) -> Bool {
        guard let expiration else { return false }
        return time >= expiration
    }

    /// A SHA-256 fingerprint of the secret (for cache keys: never key anything by the secret itself).
    ///
    /// The fingerprint is treated as public (the constant-flow gate declassifies it): a cache indexed
    /// by it reveals at most bits of a one-way hash of a high-entropy key, never the key.
    public var secretFingerprint: Digest {
        secretAccessKey.withUnsafeBytes { SHA256.hash(bufferPointer: $0) }.published
    }

    public var description: String {
        var text = "Credentials(accessKeyId: \(accessKeyId), secretAccessKey: <redacted>"
        if sessionToken != nil { text += ", sessionToken: <redacted>" }
        if let expiration { text += ", expiration: \(expiration.iso8601)" }
        return text + ")"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["accessKeyId": accessKeyId, "expiration": expiration as Any])
    }
}
