public import AuthCore

/// Credentials from an app server's token-vending endpoint (the OSS STS federation pattern): an
/// HTTP GET answered with
/// `{"StatusCode":200,"AccessKeyId":…,"AccessKeySecret":…,"SecurityToken":…,"Expiration":…}`.
///
/// Anything else (another HTTP status, another `StatusCode`, a missing or mistyped field, a body that
/// is not JSON, an unparseable or past `Expiration`) is an error that names the field.
public struct TokenVendingCredentialsProvider: CredentialsProvider {
    /// The endpoint (of the plain GET form; for a built request, its first URL is checked per call).
    public let url: RequestURL?
    /// Redirects: none are followed unless the app opts in, and then only to the same origin.
    public let redirects: RedirectPolicy
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let transport: any HTTPTransport
    let clock: any SigningClock
    let makeRequest: @Sendable () async throws(AuthCoreError) -> HTTPRequest

    /// A provider for `url`: `GET url` with `Accept: application/json`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a plain-http URL to a host that is
    ///   not loopback without `allowInsecureHTTP`.
    public init(
        url: RequestURL,
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        redirects: RedirectPolicy = .refuse,
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        try NetworkPolicy.requireSecureTransport(url, allowInsecureHTTP: allowInsecureHTTP)
        self.url = url
        self.transport = transport
        self.clock = clock
        self.redirects = redirects
        self.allowInsecureHTTP = allowInsecureHTTP
        makeRequest = {
            HTTPRequest(
                method: "GET",
                url: url,
                headers: [HTTPHeader("Accept", "application/json")],
                redirects: redirects
            )
        }
    }

    /// A provider whose request the app builds for each fetch: method, URL with its query, headers
    /// (its own session token, say) and body. The network policy still holds: the URL must be https
    /// (or loopback, or `allowInsecureHTTP`), the answer is capped at 1 MiB, and redirects follow
    /// the built request's `HTTPRequest.redirects` (never across origins).
    public init(
        transport: any HTTPTransport = HTTP1Transport(),
        clock: any SigningClock = SystemClock(),
        allowInsecureHTTP: Bool = false,
        request: @escaping @Sendable () async throws(AuthCoreError) -> HTTPRequest
    ) {
        self.url = nil
        self.transport = transport
        self.clock = clock
        self.redirects = .refuse
        self.allowInsecureHTTP = allowInsecureHTTP
        makeRequest = request
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        var request = try await makeRequest()
        try NetworkPolicy.requireSecureTransport(request.url, allowInsecureHTTP: allowInsecureHTTP)
        request.allowsInsecureHTTP = allowInsecureHTTP
        request.maximumResponseBytes = Swift.min(
            request.maximumResponseBytes,
            NetworkPolicy.controlPlaneMaximumResponseBytes
        )
        request.answerCarriesSecrets = true
        let response = try await transport.send(request)
        if (300..<400).contains(response.status) { throw response.serviceError() }
        let context = "token vending response"
        guard response.isSuccess else {
            let status = try? ServiceJSON.decode(
                TokenVendingAnswer.Status.self,
                from: response.body.plainBytes,
                context: context
            )
            throw AuthCoreError(
                serviceErrorType: status?.errorCode ?? "HTTP\(response.status)",
                message: status?.errorMessage ?? "token vending endpoint answered \(response.status)",
                httpStatus: response.status
            )
        }
        // The secret is taken out first: the decoders read a document without it.
        let members = try SecretJSONMembers(
            parsing: response.body.inWipingStorage,
            paths: [["AccessKeySecret"]],
            context: context
        )
        let status = try ServiceJSON.decode(TokenVendingAnswer.Status.self, from: members.redacted, context: context)
        guard let code = status.statusCode?.value else {
            throw AuthCoreError(.malformedResponse, "\(context): missing StatusCode")
        }
        guard code == 200 else {
            throw AuthCoreError(
                .malformedResponse,
                "\(context): StatusCode is \(code), not 200 (\(status.errorCode ?? "StatusCode \(code)"))"
            )
        }
        let answer = try ServiceJSON.decode(
            TokenVendingAnswer.Credentials.self,
            from: members.redacted,
            context: context
        )
        guard let secret = members.values[0] else {
            throw AuthCoreError(.malformedResponse, "\(context): missing AccessKeySecret")
        }
        let expiration = answer.expiration.value
        guard expiration > clock.now() else {
            throw AuthCoreError(.expired, "\(context): Expiration \(expiration.iso8601) is in the past")
        }
        return try Credentials(
            accessKeyId: answer.accessKeyId,
            secretAccessKey: secret,
            sessionToken: answer.securityToken,
            expiration: expiration
        )
    }
}

/// The token-vending answer (the OSS STS federation sample's JSON), read in two steps: the status,
/// then, for a 200, the credentials.
enum TokenVendingAnswer {
    struct Status: Decodable {
        let statusCode: BoundedInteger<StatusCodeBounds>?
        let errorCode: String?
        let errorMessage: String?
    }

    struct Credentials: Decodable {
        let accessKeyId: String
        let accessKeySecret: RedactedSecret
        let securityToken: String
        let expiration: ServiceTimestamp
    }
}
