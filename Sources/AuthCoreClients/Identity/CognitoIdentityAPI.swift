import AuthCore

/// The requests and answers of the Cognito identity-pool JSON API (Amazon Cognito Identity API
/// Reference), as `Codable` types: the one description of each call's fields (``ServiceJSON``).
enum CognitoIdentityAPI {
    struct GetIdRequest: Encodable {
        let identityPoolId: String
        let logins: [String: String]?
        enum CodingKeys: String, CodingKey { case identityPoolId = "IdentityPoolId", logins = "Logins" }
    }

    struct GetIdAnswer: Decodable {
        let identityId: String
        enum CodingKeys: String, CodingKey { case identityId = "IdentityId" }
    }

    struct GetOpenIdTokenRequest: Encodable {
        let identityId: String
        let logins: [String: String]?
        enum CodingKeys: String, CodingKey { case identityId = "IdentityId", logins = "Logins" }
    }

    struct TokenAnswer: Decodable {
        let token: String
        enum CodingKeys: String, CodingKey { case token = "Token" }
    }

    struct GetCredentialsForIdentityRequest: Encodable {
        let identityId: String
        let logins: [String: String]?
        let customRoleArn: String?
        enum CodingKeys: String, CodingKey { case identityId = "IdentityId", logins = "Logins", customRoleArn = "CustomRoleArn" }
    }

    struct CredentialsAnswer: Decodable {
        struct Credentials: Decodable {
            let accessKeyId: String
            let secretKey: String
            let sessionToken: String
            let expiration: ServiceTimestamp
            enum CodingKeys: String, CodingKey {
                case accessKeyId = "AccessKeyId", secretKey = "SecretKey", sessionToken = "SessionToken", expiration = "Expiration"
            }
        }
        let identityId: String?
        let credentials: Credentials
        enum CodingKeys: String, CodingKey { case identityId = "IdentityId", credentials = "Credentials" }
    }

    struct DeveloperTokenRequest: Encodable {
        let identityPoolId: String
        let identityId: String?
        let logins: [String: String]
        let tokenDuration: Int
        enum CodingKeys: String, CodingKey {
            case identityPoolId = "IdentityPoolId", identityId = "IdentityId", logins = "Logins", tokenDuration = "TokenDuration"
        }
    }

    struct DeveloperTokenAnswer: Decodable {
        let identityId: String
        let token: String
        enum CodingKeys: String, CodingKey { case identityId = "IdentityId", token = "Token" }
    }

    struct LookupDeveloperIdentityRequest: Encodable {
        let identityPoolId: String
        let identityId: String?
        let developerUserIdentifier: String?
        let maxResults: Int
        let nextToken: String?
        enum CodingKeys: String, CodingKey {
            case identityPoolId = "IdentityPoolId", identityId = "IdentityId", developerUserIdentifier = "DeveloperUserIdentifier"
            case maxResults = "MaxResults", nextToken = "NextToken"
        }
    }

    struct LookupDeveloperIdentityAnswer: Decodable {
        let identityId: String
        let developerUserIdentifierList: [String]?
        let nextToken: String?
        enum CodingKeys: String, CodingKey {
            case identityId = "IdentityId", developerUserIdentifierList = "DeveloperUserIdentifierList", nextToken = "NextToken"
        }
    }

    struct UnlinkDeveloperIdentityRequest: Encodable {
        let identityId: String
        let identityPoolId: String
        let developerProviderName: String
        let developerUserIdentifier: String
        enum CodingKeys: String, CodingKey {
            case identityId = "IdentityId", identityPoolId = "IdentityPoolId", developerProviderName = "DeveloperProviderName"
            case developerUserIdentifier = "DeveloperUserIdentifier"
        }
    }

    /// An answer whose fields are not used (`UnlinkDeveloperIdentity`: `{}`).
    struct EmptyAnswer: Decodable {}
}
