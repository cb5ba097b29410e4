public import AuthCore

/// The OSS STS federation sample's `distribute-token.json`, the answer
/// `TokenVendingCredentialsProvider` (`AuthCoreClients`) reads: written by the app server (`authcore serve`) and by
/// `authcore aliyun sts assume-role`.
public enum DistributeToken {
    /// `{"StatusCode":200,"AccessKeyId":…,"AccessKeySecret":…,"SecurityToken":…,"Expiration":…}`;
    /// without `showingSecrets`, the secret and the token are left out (for display).
    public static func json(_ credentials: Credentials, showingSecrets: Bool = true) -> JSONValue {
        // bytes-lint: an answer written with fixed ASCII member names; nothing is looked up by a name from the wire.
        var object: [String: JSONValue] = [
            "StatusCode": 200, "AccessKeyId": .string(credentials.accessKeyId),
            "Expiration": JSONValue(credentials.expiration?.iso8601),
        ]
        if showingSecrets {
            object["AccessKeySecret"] = .string(
                credentials.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            )
            object["SecurityToken"] = JSONValue(credentials.sessionToken)
        }
        return .object(object)
    }

    /// ``json(_:showingSecrets:)`` with the secrets, the secret key as a placeholder of `secrets`
    /// (spliced in after encoding: no `String` copy of it is made).
    package static func json(_ credentials: Credentials, secrets: inout SecretJSONValues) -> JSONValue {
        // bytes-lint: an answer written with fixed ASCII member names; nothing is looked up by a name from the wire.
        var object: [String: JSONValue] = [
            "StatusCode": 200, "AccessKeyId": .string(credentials.accessKeyId),
            "Expiration": JSONValue(credentials.expiration?.iso8601),
        ]
        object["AccessKeySecret"] = .string(secrets.placeholder(for: credentials.secretAccessKey))
        object["SecurityToken"] = JSONValue(credentials.sessionToken)
        return .object(object)
    }

    /// The sample's error shape: `{"StatusCode":…,"ErrorCode":…,"ErrorMessage":…}`.
    public static func error(status: Int, code: String, message: String) -> JSONValue {
        ["StatusCode": .integer(status), "ErrorCode": .string(code), "ErrorMessage": .string(message)]
    }
}
