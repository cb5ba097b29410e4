public import AuthCore

/// Alibaba Cloud STS (`AssumeRole`, API version 2015-04-01): what an app server calls to vend OSS
/// credentials (`distribute-token.json`). Requests are RPC calls signed with
/// `AliyunRPCSigner` (signature 1.0), POSTed as a form; answers are JSON.
///
/// The endpoint is `https://sts.aliyuncs.com/`, or `https://sts.<region>.aliyuncs.com/` for a
/// region, or one the caller gives (checked by `NetworkPolicy`: https, or http to loopback).
public struct AliyunSTSClient: Sendable {
    /// How calls are signed.
    public enum SignatureStyle: Sendable, Equatable {
        /// RPC signature 1.0 (`AliyunRPCSigner`): the parameters, the common ones and `Signature`
        /// in the form body. What every Alibaba SDK has sent to STS.
        case rpc
        /// `ACS3-HMAC-SHA256` (`AliyunACS3Signer`): the call named by `x-acs-action` and
        /// `x-acs-version`, the API's parameters in the form body (covered by `x-acs-content-sha256`).
        case acs3
    }

    /// The endpoint.
    public let endpoint: RequestURL
    /// How calls are signed.
    public let signatureStyle: SignatureStyle
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let sender: SignedRequestSender
    let random: any SecureRandomGenerator

    /// The shortest `DurationSeconds` STS accepts.
    public static let minimumDuration = 900
    /// The longest (the role's own maximum may be lower; STS then refuses).
    public static let maximumDuration = 43_200
    /// The API version of the calls.
    public static let apiVersion = "2015-04-01"

    /// STS's rule for `RoleSessionName`: 2–64 characters from `A-Za-z0-9.@-_`.
    public static func isValidRoleSessionName(_ name: String) -> Bool {
        (2...64).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                    || [0x2E, 0x40, 0x2D, 0x5F].contains($0)
            }
    }

    /// A client for `region` (nil: the central endpoint) or an explicit `endpoint`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed endpoint or region, or a
    ///   plain-http endpoint that is not loopback without `allowInsecureHTTP`.
    public init(
        region: String? = nil,
        endpoint: String? = nil,
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        random: any SecureRandomGenerator = SystemRandom(),
        signatureStyle: SignatureStyle = .rpc,
        skew: ClockSkewTracker? = .shared,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        if let region {
            guard !region.isEmpty, region.utf8.count <= 64,
                region.utf8.allSatisfy({
                    ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-")
                })
            else { throw AuthCoreError(.invalidParameter, "region must be lower-case letters, digits and '-'") }
        }
        let defaultURL = region.map { "https://sts.\($0).aliyuncs.com/" } ?? "https://sts.aliyuncs.com/"
        self.endpoint = try NetworkPolicy.endpoint(endpoint, default: defaultURL, allowInsecureHTTP: allowInsecureHTTP)
        self.allowInsecureHTTP = allowInsecureHTTP
        self.signatureStyle = signatureStyle
        self.sender = SignedRequestSender(transport: transport, clock: clock, skew: skew)
        self.random = random
    }

    /// `AssumeRole`: temporary credentials for `roleArn`, signed with the long-term `credentials`.
    ///
    /// - Parameters:
    ///   - roleArn: the role (`acs:ram::<account>:role/<name>`).
    ///   - roleSessionName: 2–64 characters from `A-Za-z0-9.@-_` (STS's rule, checked here first).
    ///   - durationSeconds: the credentials' lifetime, 900...43200 (the role's maximum may be lower).
    ///   - policy: a policy that narrows the role's (JSON text, at most 2048 bytes as STS allows).
    ///   - externalId: the role's external id, when its trust policy asks for one.
    ///   - credentials: the long-term key that signs the call.
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a duration outside 900...43200 s or a
    ///   bad session name or policy; `AuthCoreError.Code.serviceError` with STS's `Code`, `Message`
    ///   and `RequestId`; `AuthCoreError.Code.malformedResponse` for an answer without credentials.
    public func assumeRole(
        roleArn: String,
        roleSessionName: String,
        durationSeconds: Int = 3600,
        policy: String? = nil,
        externalId: String? = nil,
        credentials: Credentials
    ) async throws(AuthCoreError) -> AliyunAssumedRole {
        guard (Self.minimumDuration...Self.maximumDuration).contains(durationSeconds) else {
            throw AuthCoreError(
                .invalidParameter,
                "DurationSeconds \(durationSeconds) is outside \(Self.minimumDuration)...\(Self.maximumDuration)"
            )
        }
        guard Self.isValidRoleSessionName(roleSessionName) else {
            throw AuthCoreError(.invalidParameter, "RoleSessionName must be 2-64 characters from A-Z a-z 0-9 . @ - _")
        }
        guard !roleArn.isEmpty, roleArn.utf8.count <= 1024 else {
            throw AuthCoreError(.invalidParameter, "RoleArn must be 1-1024 characters")
        }
        if let policy, policy.isEmpty || policy.utf8.count > 2048 {
            throw AuthCoreError(.invalidParameter, "Policy must be 1-2048 bytes")
        }
        var parameters: [(key: String, value: String)] = [
            ("RoleArn", roleArn), ("RoleSessionName", roleSessionName), ("DurationSeconds", String(durationSeconds)),
        ]
        if let policy { parameters.append(("Policy", policy)) }
        if let externalId { parameters.append(("ExternalId", externalId)) }
        let response = try await call(
            action: "AssumeRole",
            parameters: parameters,
            credentials: credentials,
            answerCarriesSecrets: true
        )
        let context = "AssumeRole response"
        let (answer, secrets) = try ServiceJSON.decode(
            AssumeRoleAnswer.self,
            from: response.body.inWipingStorage,
            secretMembers: [["Credentials", "AccessKeySecret"]],
            context: context
        )
        guard let secret = secrets[0] else {
            throw AuthCoreError(.malformedResponse, "\(context): missing Credentials.AccessKeySecret")
        }
        let c = answer.credentials
        return AliyunAssumedRole(
            credentials: try Credentials(
                accessKeyId: c.accessKeyId,
                secretAccessKey: secret,
                sessionToken: c.securityToken,
                expiration: c.expiration.value
            ),
            assumedRoleArn: answer.assumedRoleUser?.arn,
            assumedRoleId: answer.assumedRoleUser?.assumedRoleId,
            requestId: answer.requestId
        )
    }

    /// One signed call; its 2xx answer. An `InvalidTimeStamp.Expired` answer whose `Date`
    /// shows the local clock off is signed again, once, at the corrected time (``ClockSkewTracker``),
    /// with a fresh nonce.
    /// With `answerCarriesSecrets` the answer's body is an `HTTPBody.secret`, in wiping storage.
    func call(
        action: String,
        parameters: [(key: String, value: String)],
        credentials: Credentials,
        answerCarriesSecrets: Bool
    ) async throws(AuthCoreError) -> HTTPResponse {
        var unsigned = HTTPRequest(
            method: "POST",
            url: endpoint,
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes,
            allowsInsecureHTTP: allowInsecureHTTP
        )
        unsigned.answerCarriesSecrets = answerCarriesSecrets
        let response = try await sender.send(unsigned) { request, now throws(AuthCoreError) in
            try signed(request, action: action, parameters: parameters, credentials: credentials, at: now)
        }
        guard response.isSuccess else { throw Self.serviceError(response) }
        return response
    }

    /// `request` with the signed call as its headers and form body.
    func signed(
        _ request: HTTPRequest,
        action: String,
        parameters: [(key: String, value: String)],
        credentials: Credentials,
        at now: Timestamp
    )
        throws(AuthCoreError) -> HTTPRequest
    {
        // fresh per request: STS refuses a repeat
        let nonce = try random.secureBytes(count: 16).withUnsafeBytes { Hex.encode($0) }
        let form = HTTPHeader("Content-Type", "application/x-www-form-urlencoded")
        let accept = HTTPHeader("Accept", "application/json")
        var request = request
        switch signatureStyle {
        case .rpc:
            let signed = try AliyunRPCSigner(credentials: credentials).sign(
                action: action,
                version: Self.apiVersion,
                parameters: parameters,
                at: now,
                nonce: nonce
            )
            request.headers = [form, accept]
            request.body = .bytes(Array(signed.query.utf8))
        case .acs3:
            let formBody = CanonicalQuery.fromPairs(parameters, emptyValue: .keyEquals)
            request.body = .bytes(formBody)
            let own = [
                HTTPHeader("Host", endpoint.hostHeader), HTTPHeader("x-acs-action", action),
                HTTPHeader("x-acs-version", Self.apiVersion), form,
            ]
            let signed = try AliyunACS3Signer(credentials: credentials).sign(
                SigV4Request(method: "POST", target: endpoint.requestTarget, headers: own, payload: .bytes(formBody)),
                at: now,
                nonce: nonce
            )
            request.headers = own + [accept] + signed.headers
        }
        return request
    }

    /// Alibaba's JSON error (`Code`, `Message`, `RequestId`, read by ``ServiceErrorBody``), or the
    /// status when the body has none; a 3xx (never followed: the request is signed) names its status.
    static func serviceError(_ response: HTTPResponse) -> AuthCoreError {
        let error = ServiceErrorBody(response: response)
        return AuthCoreError(
            serviceErrorType: error.code ?? "HTTP\(response.status)",
            message: error.message ?? "Alibaba Cloud STS answered \(response.status)",
            httpStatus: response.status,
            requestId: error.requestId
        )
    }

    struct AssumeRoleAnswer: Decodable {
        struct AnswerCredentials: Decodable {
            let accessKeyId: String
            let accessKeySecret: RedactedSecret
            let securityToken: String
            let expiration: ServiceTimestamp
        }
        struct AssumedRoleUser: Decodable {
            let arn: String?
            let assumedRoleId: String?
        }
        let requestId: String?
        let credentials: AnswerCredentials
        let assumedRoleUser: AssumedRoleUser?
    }
}

/// The result of `AssumeRole`.
public struct AliyunAssumedRole: Sendable {
    /// The temporary credentials (with their security token and expiration).
    public let credentials: Credentials
    /// The assumed role's ARN (`acs:ram::…:role/name/session`), when STS names it.
    public let assumedRoleArn: String?
    /// The assumed role's id, when STS names it.
    public let assumedRoleId: String?
    /// STS's id for the call.
    public let requestId: String?
}

/// Credentials from Alibaba Cloud STS `AssumeRole`, with the long-term key from another provider:
/// wrap it in ``RefreshingCredentialsProvider`` so that callers share one call per lifetime and
/// refresh five minutes before expiry.
public struct AliyunAssumeRoleCredentialsProvider: CredentialsProvider {
    let client: AliyunSTSClient
    let source: any CredentialsProvider
    let roleArn: String
    let roleSessionName: String
    let durationSeconds: Int
    let policy: String?
    let externalId: String?

    /// A provider assuming `roleArn` with the credentials `source` gives.
    public init(
        client: AliyunSTSClient,
        source: any CredentialsProvider,
        roleArn: String,
        roleSessionName: String,
        durationSeconds: Int = 3600,
        policy: String? = nil,
        externalId: String? = nil
    ) {
        self.client = client
        self.source = source
        self.roleArn = roleArn
        self.roleSessionName = roleSessionName
        self.durationSeconds = durationSeconds
        self.policy = policy
        self.externalId = externalId
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        try await client.assumeRole(
            roleArn: roleArn,
            roleSessionName: roleSessionName,
            durationSeconds: durationSeconds,
            policy: policy,
            externalId: externalId,
            credentials: source.credentials()
        ).credentials
    }
}
