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
    let transport: any HTTPTransport
    let clock: any SigningClock

    /// A provider for `url`.
    public init(url: RequestURL, transport: any HTTPTransport = URLSessionTransport(), clock: any SigningClock = SystemClock()) {
        self.url = url
        self.transport = transport
        self.clock = clock
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        let response = try await transport.send(HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Accept", "application/json")]))
        let body = try? JSONObject(parsing: response.body, context: "token vending response")
        guard response.isSuccess else {
            let code = (try? body?.optionalString("ErrorCode")) ?? nil
            let message = (try? body?.optionalString("ErrorMessage")) ?? nil
            throw AuthCoreError(
                serviceErrorType: code ?? "HTTP\(response.status)", message: message ?? "token vending endpoint answered \(response.status)",
                httpStatus: response.status)
        }
        guard let body else { throw AuthCoreError(.malformedResponse, "token vending response: not a JSON object") }
        let status = try body.number("StatusCode")
        guard status == 200 else {
            let code = try body.optionalString("ErrorCode") ?? "StatusCode \(Int(status))"
            throw AuthCoreError(
                .malformedResponse, "token vending response: StatusCode is \(Int(status)), not 200 (\(code))")
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
    let seconds = try object.number(key)
    guard seconds.isFinite, abs(seconds) < 1e11 else { throw AuthCoreError(.malformedResponse, "\(object.context): \(key) is out of range") }
    let whole = seconds.rounded(.down)
    return Timestamp(secondsSince1970: Int64(whole), nanoseconds: Int32((seconds - whole) * 1e9))
}
