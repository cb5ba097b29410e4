/// The app server's requests and answers past the login (``SRPLoginWire``), one definition for both
/// ends: the server (`AuthCoreServer`'s `AppServer`) decodes the requests and encodes the answers,
/// the clients (`OSSSignerURLProvider`, scripts) the other way round (`ServiceJSON`, member names
/// as declared).
///
/// | endpoint | request | answer |
/// |---|---|---|
/// | `POST /oss/sign` | `OSSSignatureRequest` | ``OSSSignatureAnswer``: `{"accessKeyId":…,"signature":…}` |
/// | `POST /cognito/developer-identity` | ``DeveloperIdentityRequest``: empty, `{}` or `{"identityId":…}` |
/// ``DeveloperIdentityAnswer`` |
/// | `POST /session/revoke` | ``RevokeRequest``: empty, `{}` or `{"all":true}` | ``RevokeAnswer``:
/// `{"revoked":"session"}` or `{"revoked":"all"}` |
/// | `GET /healthz`, `GET /readyz` | — | ``HealthAnswer``: `{"status":"alive"}`, `{"status":"ready"}` |
/// | any refusal | — | ``ErrorAnswer``: `{"code":…,"message":…}` |
package enum AppServerWire {
    /// `GET /healthz`'s and `GET /readyz`'s answer.
    package struct HealthAnswer: Codable, Sendable, Equatable {
        package var status: String

        package init(status: String) { self.status = status }
    }

    /// A request whose JSON object may hold only the members named here (a member the server would
    /// not read is refused, not ignored).
    package protocol ClosedMembers {
        /// The members the request may have.
        static var members: [String] { get }
        /// The refusal's message when it has another.
        static var shape: String { get }
    }

    /// `POST /oss/sign`'s answer.
    package struct OSSSignatureAnswer: Codable, Sendable, Equatable {
        package var accessKeyId: String
        package var signature: String

        package init(accessKeyId: String, signature: String) {
            self.accessKeyId = accessKeyId
            self.signature = signature
        }
    }

    /// `POST /cognito/developer-identity`'s request: the identity to keep (one the server gave this
    /// user before), or none for the user's own.
    package struct DeveloperIdentityRequest: Codable, Sendable, ClosedMembers {
        package var identityId: String?
        package static let members = ["identityId"]
        package static let shape = #"the body must be empty, {} or {"identityId":…}"#

        package init(identityId: String? = nil) { self.identityId = identityId }
    }

    /// `POST /cognito/developer-identity`'s answer: what `GetCredentialsForIdentity` needs.
    package struct DeveloperIdentityAnswer: Codable, Sendable, CustomStringConvertible, CustomReflectable {
        package var identityId: String
        package var token: String
        /// The token's lifetime in seconds.
        package var tokenDuration: Int
        /// The key of the token in the `Logins` map (the issuer without `https://`).
        package var loginsKey: String

        package init(identityId: String, token: String, tokenDuration: Int, loginsKey: String) {
            self.identityId = identityId
            self.token = token
            self.tokenDuration = tokenDuration
            self.loginsKey = loginsKey
        }

        /// The identity and key only: the token is a credential.
        package var description: String {
            "DeveloperIdentityAnswer(identityId: \(identityId), loginsKey: \(loginsKey))"
        }
        package var customMirror: Mirror {
            Mirror(self, children: ["identityId": identityId, "loginsKey": loginsKey], displayStyle: .struct)
        }
    }

    /// `POST /session/revoke`'s request: this session, or (`all`) every session of its user.
    package struct RevokeRequest: Codable, Sendable, ClosedMembers {
        package var all: Bool?
        package static let members = ["all"]
        package static let shape = #"the body must be empty, {} or {"all":true}"#

        package init(all: Bool? = nil) { self.all = all }
    }

    /// `POST /session/revoke`'s answer.
    package struct RevokeAnswer: Codable, Sendable {
        /// `session` or `all`.
        package var revoked: String

        package init(revoked: String) { self.revoked = revoked }
    }

    /// Every refusal's body (but `distribute-token.json`'s, which has the OSS sample's shape).
    package struct ErrorAnswer: Codable, Sendable, Equatable {
        package var code: String
        package var message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
}
