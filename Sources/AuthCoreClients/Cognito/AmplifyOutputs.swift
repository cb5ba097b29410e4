public import AuthCore
import Foundation

/// The `auth` section of an Amplify Gen 2 `amplify_outputs.json` (the client configuration seed apps
/// configure Amplify with; format version 1.x, "About amplify_outputs.json" in the Amplify docs):
/// `aws_region`, `user_pool_id`, `user_pool_client_id`, `identity_pool_id` and the sign-in options.
public struct AmplifyAuthOutputs: Sendable, Equatable {
    /// `aws_region`.
    public let region: String
    /// `user_pool_id`.
    public let userPoolId: String
    /// `user_pool_client_id`.
    public let userPoolClientId: String
    /// `identity_pool_id`, when the backend has an identity pool.
    public let identityPoolId: String?
    /// `unauthenticated_identities_enabled` (guest access through the identity pool).
    public let unauthenticatedIdentitiesEnabled: Bool
    /// `mfa_configuration`: `NONE`, `OPTIONAL` or `REQUIRED`, when given.
    public let mfaConfiguration: String?
    /// `mfa_methods` (`SMS`, `TOTP`, `EMAIL`).
    public let mfaMethods: [String]
    /// `username_attributes` (`email`, `phone_number`).
    public let usernameAttributes: [String]

    /// The largest file read: 1 MiB.
    public static let maximumBytes = 1 << 20

    /// Parses the JSON of `amplify_outputs.json`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for a file that is not version 1.x or
    ///   lacks the `auth` section or one of its required fields; `AuthCoreError.Code.inputTooLarge`.
    public init(parsing bytes: [UInt8]) throws(AuthCoreError) {
        guard bytes.count <= Self.maximumBytes else { throw AuthCoreError(.inputTooLarge, "amplify_outputs.json is larger than 1 MiB") }
        self = try readingStoredInput { () throws(AuthCoreError) in
            let outputs = try JSONObject(parsing: bytes, context: "amplify_outputs.json")
            guard let version = try outputs.optionalString("version"), version == "1" || version.hasPrefix("1.") else {
                throw AuthCoreError(.malformedInput, "amplify_outputs.json: version is not 1.x")
            }
            guard let auth = try outputs.optionalObject("auth") else {
                throw AuthCoreError(.malformedInput, "amplify_outputs.json has no auth section")
            }
            return AmplifyAuthOutputs(
                region: try auth.string("aws_region"), userPoolId: try auth.string("user_pool_id"),
                userPoolClientId: try auth.string("user_pool_client_id"), identityPoolId: try auth.optionalString("identity_pool_id"),
                unauthenticatedIdentitiesEnabled: try auth.optionalBool("unauthenticated_identities_enabled") ?? false,
                mfaConfiguration: try auth.optionalString("mfa_configuration"), mfaMethods: try auth.stringArray("mfa_methods"),
                usernameAttributes: try auth.stringArray("username_attributes"))
        }
    }

    /// Reads and parses the file at `path` (a regular file of at most ``maximumBytes``; the read is
    /// bounded, so a device or a growing file cannot make it endless).
    public init(contentsOfFile path: String) throws(AuthCoreError) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular, let handle = FileHandle(forReadingAtPath: path) else {
            throw AuthCoreError(.malformedInput, "\(path): cannot read (not a regular file)")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maximumBytes + 1) else { throw AuthCoreError(.malformedInput, "\(path): cannot read") }
        try self.init(parsing: [UInt8](data))
    }

    private init(
        region: String, userPoolId: String, userPoolClientId: String, identityPoolId: String?, unauthenticatedIdentitiesEnabled: Bool,
        mfaConfiguration: String?, mfaMethods: [String], usernameAttributes: [String]
    ) {
        self.region = region
        self.userPoolId = userPoolId
        self.userPoolClientId = userPoolClientId
        self.identityPoolId = identityPoolId
        self.unauthenticatedIdentitiesEnabled = unauthenticatedIdentitiesEnabled
        self.mfaConfiguration = mfaConfiguration
        self.mfaMethods = mfaMethods
        self.usernameAttributes = usernameAttributes
    }

    /// The user-pool configuration these outputs describe.
    public func userPoolConfiguration(
        clientSecret: SecureBytes? = nil, endpoint: String? = nil, allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) -> CognitoUserPoolConfiguration {
        try CognitoUserPoolConfiguration(
            region: region, userPoolId: userPoolId, clientId: userPoolClientId, clientSecret: clientSecret, endpoint: endpoint,
            allowInsecureHTTP: allowInsecureHTTP)
    }
}
