import AuthCore

/// The requests and answers of the Cognito identity-pool JSON API (Amazon Cognito Identity API
/// Reference), as `Codable` types: the one description of each call's fields (``ServiceJSON``).
enum CognitoIdentityAPI {
    struct GetIdRequest: Encodable {
        let identityPoolId: String
        let logins: [String: String]?
    }

    struct GetIdAnswer: Decodable {
        let identityId: String
    }

    struct GetOpenIdTokenRequest: Encodable {
        let identityId: String
        let logins: [String: String]?
    }

    struct TokenAnswer: Decodable {
        let token: String
    }

    struct GetCredentialsForIdentityRequest: Encodable {
        let identityId: String
        let logins: [String: String]?
        let customRoleArn: String?
    }

    struct CredentialsAnswer: Decodable {
        struct Credentials: Decodable {
            let accessKeyId: String
            let secretKey: RedactedSecret  // in CognitoIdentityClient.secretKeyPath
            let sessionToken: String
            let expiration: ServiceTimestamp
        }
        let identityId: String?
        let credentials: Credentials
    }

    struct DeveloperTokenRequest: Encodable {
        let identityPoolId: String
        let identityId: String?
        let logins: [String: String]
        let tokenDuration: Int
    }

    struct DeveloperTokenAnswer: Decodable {
        let identityId: String
        let token: String
    }

    struct LookupDeveloperIdentityRequest: Encodable {
        let identityPoolId: String
        let identityId: String?
        let developerUserIdentifier: String?
        let maxResults: Int
        let nextToken: String?
    }

    struct LookupDeveloperIdentityAnswer: Decodable {
        let identityId: String
        let developerUserIdentifierList: [String]?
        let nextToken: String?
    }

    struct UnlinkDeveloperIdentityRequest: Encodable {
        let identityId: String
        let identityPoolId: String
        let developerProviderName: String
        let developerUserIdentifier: String
    }

    struct DescribeIdentityRequest: Encodable {
        let identityId: String
    }

    struct DescribeIdentityAnswer: Decodable {
        let identityId: String
        let logins: [String]?
    }

    /// An answer whose fields are not used (`UnlinkDeveloperIdentity`: `{}`).
    struct EmptyAnswer: Decodable {}
}
