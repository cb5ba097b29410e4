public import AuthCore
import Foundation

/// AWS STS: `AssumeRole` (signed with the caller's credentials) and `AssumeRoleWithWebIdentity`
/// (the basic flow of identity pools; unsigned unless a signer is given).
public struct STSClient: Sendable {
    /// The endpoint (default from ``AWSEndpoint``: `https://sts.<region>.amazonaws.com/`, `.amazonaws.com.cn` in China).
    public let endpoint: RequestURL
    /// The signing region.
    public let region: String
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let sender: SignedRequestSender

    /// The shortest `DurationSeconds` STS accepts.
    public static let minimumDuration = 900
    /// The longest role session.
    public static let maximumDuration = 43_200

    /// A client.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed endpoint, or a
    ///   plain-http one that is not loopback without `allowInsecureHTTP`.
    public init(
        region: String,
        endpoint: String? = nil,
        sender: SignedRequestSender = SignedRequestSender(),
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        self.region = region
        self.endpoint = try NetworkPolicy.endpoint(
            endpoint,
            service: "sts",
            region: region,
            allowInsecureHTTP: allowInsecureHTTP
        )
        self.allowInsecureHTTP = allowInsecureHTTP
        self.sender = sender
    }

    /// `AssumeRole`: temporary credentials for `roleArn`, signed with `credentials` (with the role's
    /// `externalId` when its trust policy asks for one).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a duration outside 900...43200 s;
    ///   `AuthCoreError.Code.serviceError` with STS's error.
    public func assumeRole(
        roleArn: String,
        sessionName: String,
        durationSeconds: Int = 3600,
        externalId: String? = nil,
        credentials: Credentials
    ) async throws(AuthCoreError) -> Credentials {
        let signer = try SigV4Signer(credentials: credentials, region: region, service: "sts")
        var parameters = [
            "Action": "AssumeRole", "RoleArn": roleArn, "RoleSessionName": sessionName,
            "DurationSeconds": try duration(durationSeconds),
        ]
        if let externalId { parameters["ExternalId"] = externalId }
        return try await call(parameters, result: "AssumeRoleResult", signer: signer)
    }

    /// `AssumeRoleWithWebIdentity`: credentials for `roleArn` from an OpenID Connect token (the basic
    /// flow of Cognito identity pools). Unsigned, as AWS expects; pass `signingCredentials` for a
    /// server that wants every call signed.
    public func assumeRoleWithWebIdentity(
        roleArn: String,
        sessionName: String,
        webIdentityToken: String,
        durationSeconds: Int = 3600,
        signingCredentials: Credentials? = nil
    ) async throws(AuthCoreError) -> Credentials {
        let signer = try signingCredentials.map { c throws(AuthCoreError) in
            try SigV4Signer(credentials: c, region: region, service: "sts")
        }
        return try await call(
            [
                "Action": "AssumeRoleWithWebIdentity", "RoleArn": roleArn, "RoleSessionName": sessionName,
                "WebIdentityToken": webIdentityToken,
                "DurationSeconds": try duration(durationSeconds),
            ],
            result: "AssumeRoleWithWebIdentityResult",
            signer: signer
        )
    }

    private func duration(_ seconds: Int) throws(AuthCoreError) -> String {
        guard (Self.minimumDuration...Self.maximumDuration).contains(seconds) else {
            throw AuthCoreError(
                .invalidParameter,
                "DurationSeconds \(seconds) is outside \(Self.minimumDuration)...\(Self.maximumDuration)"
            )
        }
        return String(seconds)
    }

    private func call(
        _ parameters: [String: String],
        result: String,
        signer: SigV4Signer?
    ) async throws(AuthCoreError) -> Credentials {
        // The form body: the toolkit's query builder (each side RFC 3986-encoded, sorted), as the
        // Alibaba STS client writes its own.
        let body = CanonicalQuery.fromPairs(
            parameters.merging(["Version": "2011-06-15"]) { a, _ in a }.map { (key: $0.key, value: $0.value) },
            emptyValue: .keyEquals
        )
        let request = HTTPRequest(
            method: "POST",
            url: endpoint,
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
            body: body,
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes,
            allowsInsecureHTTP: allowInsecureHTTP
        )
        let response = try await sender.sendExpectingSuccess(request, signer: signer, operation: parameters["Action"])
        return try Self.parseCredentials(response.body.plainBytes, result: result)
    }

    /// Reads `<Credentials>` out of an STS XML answer (`<…Response><…Result><Credentials>`).
    static func parseCredentials(_ body: [UInt8], result: String) throws(AuthCoreError) -> Credentials {
        let document = try XMLReader(parsing: body, context: result)
        guard
            let credentials = document.first(named: result)?.child("Credentials")
                ?? document.first(named: "Credentials")
        else {
            throw AuthCoreError(.malformedResponse, "\(result): missing Credentials")
        }
        func field(_ name: String) throws(AuthCoreError) -> String {
            guard let value = credentials.child(name)?.text, !value.isEmpty else {
                throw AuthCoreError(.malformedResponse, "\(result): missing Credentials.\(name)")
            }
            return value
        }
        let expiration: Timestamp
        do { expiration = try Timestamp(iso8601: try field("Expiration")) } catch {
            throw AuthCoreError(.malformedResponse, "\(result): Credentials.Expiration: \(error.reason)")
        }
        return try Credentials(
            accessKeyId: field("AccessKeyId"),
            secretAccessKey: field("SecretAccessKey"),
            sessionToken: field("SessionToken"),
            expiration: expiration
        )
    }
}
