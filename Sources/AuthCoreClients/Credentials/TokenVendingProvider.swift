public import AuthCore

/// Credentials from an app server's token-vending endpoint (the OSS STS federation pattern): an
/// HTTP GET answered with
/// `{"StatusCode":200,"AccessKeyId":…,"AccessKeySecret":…,"SecurityToken":…,"Expiration":…}`.
///
/// Anything else (another HTTP status, another `StatusCode`, a missing or mistyped field, a body that
/// is not JSON, an unparseable or past `Expiration`) is an error that names the field.
public struct TokenVendingCredentialsProvider: CredentialsProvider {
    /// The endpoint.
    public let url: RequestURL
    /// Redirects: none are followed unless the app opts in, and then only to the same origin.
    public let redirects: RedirectPolicy
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let transport: any HTTPTransport
    let clock: any SigningClock

    /// A provider for `url`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a plain-http URL to a host that is
    ///   not loopback without `allowInsecureHTTP`.
    public init(
        url: RequestURL, transport: any HTTPTransport = URLSessionTransport(), clock: any SigningClock = SystemClock(),
        redirects: RedirectPolicy = .refuse, allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        try NetworkPolicy.requireSecureTransport(url, allowInsecureHTTP: allowInsecureHTTP)
        self.url = url
        self.transport = transport
        self.clock = clock
        self.redirects = redirects
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        let request = HTTPRequest(
            method: "GET", url: url, headers: [HTTPHeader("Accept", "application/json")], redirects: redirects,
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes, allowsInsecureHTTP: allowInsecureHTTP)
        let response = try await transport.send(request)
        if (300..<400).contains(response.status) { throw response.serviceError() }
        let body = try? JSONObject(parsing: response.body, context: "token vending response")
        guard response.isSuccess else {
            let code = (try? body?.optionalString("ErrorCode")) ?? nil
            let message = (try? body?.optionalString("ErrorMessage")) ?? nil
            throw AuthCoreError(
                serviceErrorType: code ?? "HTTP\(response.status)", message: message ?? "token vending endpoint answered \(response.status)",
                httpStatus: response.status)
        }
        guard let body else { throw AuthCoreError(.malformedResponse, "token vending response: not a JSON object") }
        let status = try body.integer("StatusCode", in: 0...999)
        guard status == 200 else {
            let code = try body.optionalString("ErrorCode") ?? "StatusCode \(status)"
            throw AuthCoreError(
                .malformedResponse, "token vending response: StatusCode is \(status), not 200 (\(code))")
        }
        let expiration = try parseExpiration(body, "Expiration")
        guard expiration > clock.now() else {
            throw AuthCoreError(.expired, "token vending response: Expiration \(expiration.iso8601) is in the past")
        }
        return try Credentials(
            accessKeyId: body.string("AccessKeyId"), secretAccessKey: body.string("AccessKeySecret"),
            sessionToken: body.string("SecurityToken"), expiration: expiration)
    }
}

/// Reads an expiration given as ISO 8601 (with or without fractional seconds) or as epoch seconds.
func parseExpiration(_ object: JSONObject, _ key: String) throws(AuthCoreError) -> Timestamp {
    if let text = try? object.string(key) {
        do { return try Timestamp(iso8601: text) } catch {
            throw AuthCoreError(.malformedResponse, "\(object.context): \(key) is not an ISO 8601 date-time")
        }
    }
    guard let time = Timestamp(checkedEpochSeconds: try object.number(key)) else {
        throw AuthCoreError(.malformedResponse, "\(object.context): \(key) is outside the years 0001-9999")
    }
    return time
}
