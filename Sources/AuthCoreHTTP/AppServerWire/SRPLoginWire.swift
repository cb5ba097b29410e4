/// The answers of the app server's login endpoints, one definition for both ends: the server
/// (`AuthCoreServer`'s `AppServer`) encodes them, `SRPLoginClient` decodes them
/// (``ServiceJSON``, member names as declared). Byte strings travel as lower-case hex.
///
/// | endpoint | answer |
/// |---|---|
/// | `POST /srp/begin` | `{"B":hex,"group":bits,"hash":name,"loginId":…,"salt":hex}` |
/// | `POST /srp/finish` | `{"M2":hex,"deviceToken":…,"expiresAt":ISO 8601,"sessionToken":…,"username":…}` |
package enum SRPLoginWire {
    /// `/srp/begin`'s answer: the login's handle, the user's salt, the server's public value and
    /// the SRP parameters the server uses (the client refuses others).
    package struct BeginAnswer: Codable, Sendable {
        package var loginId: String
        package var salt: String
        package var serverPublicValue: String
        /// The group's size in bits (`3072`).
        package var group: Int
        /// The hash's name (`sha256`).
        package var hash: String

        package enum CodingKeys: String, CodingKey {
            case loginId, salt, group, hash
            case serverPublicValue = "B"
        }

        package init(loginId: String, salt: String, serverPublicValue: String, group: Int, hash: String) {
            self.loginId = loginId
            self.salt = salt
            self.serverPublicValue = serverPublicValue
            self.group = group
            self.hash = hash
        }
    }

    /// `/srp/finish`'s answer: the server's proof and, behind it, the session (optional in the
    /// type so that the client checks the proof before it asks for them; the server always sends
    /// both).
    package struct FinishAnswer: Codable, Sendable {
        package var serverProof: String
        package var username: String?
        package var sessionToken: String?
        package var expiresAt: String?
        /// The device token for the next logins (servers before it was added send none).
        package var deviceToken: String?

        package enum CodingKeys: String, CodingKey {
            case username, sessionToken, expiresAt, deviceToken
            case serverProof = "M2"
        }

        package init(serverProof: String, username: String?, sessionToken: String?, expiresAt: String?, deviceToken: String? = nil) {
            self.serverProof = serverProof
            self.username = username
            self.sessionToken = sessionToken
            self.expiresAt = expiresAt
            self.deviceToken = deviceToken
        }
    }
}
