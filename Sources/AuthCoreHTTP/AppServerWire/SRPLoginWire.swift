/// The requests and answers of the app server's login endpoints, one definition for both ends: the
/// server (`AuthCoreServer`'s `AppServer`) decodes the requests and encodes the answers,
/// `SRPLoginClient` the other way round (`ServiceJSON`, member names as declared). Byte strings
/// travel as lower-case hex. The other endpoints' bodies are ``AppServerWire``'s.
///
/// | endpoint | request | answer |
/// |---|---|---|
/// | `POST /srp/begin` | `{"username":…,"A":hex[,"deviceToken":…]}` |
/// `{"B":hex,"group":bits,"hash":name,"loginId":…,"salt":hex}` |
/// | `POST /srp/finish` | `{"loginId":…,"M1":hex}` | `{"M2":hex,"deviceToken":…,"expiresAt":ISO
/// 8601,"sessionToken":…,"username":…}` |
package enum SRPLoginWire {
    /// `/srp/begin`'s request: who logs in, the client's public value `A`, and the device token of
    /// this user's last login on this device, if the app kept it.
    package struct BeginRequest: Codable, Sendable, CustomStringConvertible, CustomReflectable {
        package var username: String
        package var clientPublicValue: String
        package var deviceToken: String?

        enum CodingKeys: String, CodingKey {
            case username, deviceToken
            case clientPublicValue = "A"
        }

        package init(username: String, clientPublicValue: String, deviceToken: String? = nil) {
            self.username = username
            self.clientPublicValue = clientPublicValue
            self.deviceToken = deviceToken
        }

        /// The user only: the device token is a credential.
        package var description: String {
            "BeginRequest(username: \(username)\(deviceToken == nil ? "" : ", deviceToken: <redacted>"))"
        }
        package var customMirror: Mirror { Mirror(self, children: ["username": username], displayStyle: .struct) }
    }

    /// `/srp/finish`'s request: the login's handle and the client's proof `M1`.
    package struct FinishRequest: Codable, Sendable {
        package var loginId: String
        package var clientProof: String

        enum CodingKeys: String, CodingKey {
            case loginId
            case clientProof = "M1"
        }

        package init(loginId: String, clientProof: String) {
            self.loginId = loginId
            self.clientProof = clientProof
        }
    }

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

        enum CodingKeys: String, CodingKey {
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
    package struct FinishAnswer: Codable, Sendable, CustomStringConvertible, CustomReflectable {
        package var serverProof: String
        package var username: String?
        package var sessionToken: String?
        package var expiresAt: String?
        /// The device token for the next logins (servers before it was added send none).
        package var deviceToken: String?

        enum CodingKeys: String, CodingKey {
            case username, sessionToken, expiresAt, deviceToken
            case serverProof = "M2"
        }

        package init(
            serverProof: String,
            username: String?,
            sessionToken: String?,
            expiresAt: String?,
            deviceToken: String? = nil
        ) {
            self.serverProof = serverProof
            self.username = username
            self.sessionToken = sessionToken
            self.expiresAt = expiresAt
            self.deviceToken = deviceToken
        }

        /// The user and expiry only: the session and device tokens are credentials.
        package var description: String { "FinishAnswer(username: \(username ?? "-"), expiresAt: \(expiresAt ?? "-"))" }
        package var customMirror: Mirror {
            Mirror(self, children: ["username": username as Any, "expiresAt": expiresAt as Any], displayStyle: .struct)
        }
    }
}

// The two login answers are the app server's most frequent: written without JSONEncoder, in its
// byte order of member names (JSONObjectWritable; the differential test compares them).

extension SRPLoginWire.BeginAnswer: JSONObjectWritable {
    package func writeMembers(to writer: inout JSONObjectWriter) {
        writer.member("B", serverPublicValue)
        writer.member("group", group)
        writer.member("hash", hash)
        writer.member("loginId", loginId)
        writer.member("salt", salt)
    }
}

extension SRPLoginWire.FinishAnswer: JSONObjectWritable {
    package func writeMembers(to writer: inout JSONObjectWriter) {
        writer.member("M2", serverProof)
        writer.member("deviceToken", deviceToken)
        writer.member("expiresAt", expiresAt)
        writer.member("sessionToken", sessionToken)
        writer.member("username", username)
    }
}

// The two login requests are read from the byte scan when they are plain (JSONStringObjectReadable;
// the differential test compares them with JSONDecoder's reading).

extension SRPLoginWire.BeginRequest: JSONStringObjectReadable {
    package init?(stringMembers object: JSONStringObject) {
        guard let username = object.string("username"), let clientPublicValue = object.string("A") else { return nil }
        self.init(username: username, clientPublicValue: clientPublicValue, deviceToken: object.string("deviceToken"))
    }
}

extension SRPLoginWire.FinishRequest: JSONStringObjectReadable {
    package init?(stringMembers object: JSONStringObject) {
        guard let loginId = object.string("loginId"), let clientProof = object.string("M1") else { return nil }
        self.init(loginId: loginId, clientProof: clientProof)
    }
}
