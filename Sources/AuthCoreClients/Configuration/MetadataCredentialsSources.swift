import AuthCore
import Foundation

/// Credentials from the ECS container credentials endpoint (the AWS SDKs' "container credential
/// provider"): `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (appended to `http://169.254.170.2`) or
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, with the `Authorization` header from
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read at each fetch) or `AWS_CONTAINER_AUTHORIZATION_TOKEN`.
///
/// A full URI over plain `http` must name a host the SDKs allow: loopback, `169.254.170.2`,
/// `169.254.170.23` or `fd00:ec2::23`; any host over `https`.
struct ContainerCredentialsSource: Sendable, CustomStringConvertible, CustomReflectable {
    let url: RequestURL
    let tokenFile: String?
    let token: String?

    /// The endpoint's origin, never the token.
    var description: String { "ContainerCredentialsSource(\(url.origin))" }
    var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }

    /// The source the environment describes; nil when it names none.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed URI or a host not allowed.
    static func from(_ environment: ConfigurationEnvironment) throws(AuthCoreError) -> ContainerCredentialsSource? {
        // Set, even to "", the variable is the source (botocore: `in os.environ`).
        let text: String
        if let relative = environment.present("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            text = "http://169.254.170.2" + relative
        } else if let full = environment.present("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            text = full
        } else {
            return nil
        }
        let url: RequestURL
        do { url = try RequestURL(text) } catch {
            throw AuthCoreError(.invalidParameter, "container credentials URI: \(error.reason)")
        }
        if url.scheme == "http" {
            let allowed = ["169.254.170.2", "169.254.170.23", "[fd00:ec2::23]"]
            guard NetworkPolicy.isLoopback(host: url.host) || allowed.contains(url.host.lowercased()) else {
                throw AuthCoreError(
                    .invalidParameter,
                    "container credentials URI \(url.origin): plain http is allowed only to loopback, 169.254.170.2, 169.254.170.23 or fd00:ec2::23"
                )
            }
        }
        return ContainerCredentialsSource(
            url: url,
            tokenFile: environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"],
            token: environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"]
        )
    }

    func credentials(transport: any HTTPTransport) async throws(AuthCoreError) -> Credentials {
        var headers: [HTTPHeader] = [HTTPHeader("Accept", "application/json")]
        if let authorization = try authorization() { headers.append(HTTPHeader("Authorization", authorization)) }
        let request = HTTPRequest(
            method: "GET",
            url: url,
            headers: headers,
            maximumResponseBytes: 64 << 10,
            allowsInsecureHTTP: url.scheme == "http"
        )
        let response: HTTPResponse
        do { response = try await transport.send(request) } catch {
            throw AuthCoreError(
                .credentialsUnavailable,
                "container credentials endpoint \(url.origin): \(error.reason)"
            )
        }
        guard response.isSuccess else {
            throw AuthCoreError(
                .credentialsUnavailable,
                "container credentials endpoint \(url.origin) answered \(response.status)"
            )
        }
        return try MetadataCredentialsJSON.parse(
            response.body.plainBytes,
            context: "container credentials",
            tokenKey: "Token"
        )
    }

    /// The token file's contents (re-read each time: the agent rotates it) or the token variable.
    private func authorization() throws(AuthCoreError) -> String? {
        var value = token
        if let tokenFile {
            guard let bytes = try BoundedFile.read(tokenFile, maximumBytes: 16 << 10) else {
                throw AuthCoreError(
                    .credentialsUnavailable,
                    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(tokenFile) cannot be read"
                )
            }
            value = String(decoding: bytes, as: UTF8.self)
        }
        guard let value else { return nil }
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
            throw AuthCoreError(.malformedInput, "the container authorization token contains a line break")
        }
        return value
    }
}

/// Credentials of the EC2 instance's role through the instance metadata service, version 2: a
/// session token from `PUT /latest/api/token`, then the role's name and its credentials under
/// `/latest/meta-data/iam/security-credentials/`. The endpoint is `AWS_EC2_METADATA_SERVICE_ENDPOINT`
/// (or the profile's `ec2_metadata_service_endpoint`), else `http://169.254.169.254`
/// (`http://[fd00:ec2::254]` when `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE` is `IPv6`). Off when
/// `AWS_EC2_METADATA_DISABLED` is `true`. A service that refuses the token request with 403, 404 or
/// 405 is asked without a token (version 1), as the SDKs do, unless `AWS_EC2_METADATA_V1_DISABLED`
/// is `true`.
struct InstanceMetadataCredentialsSource: Sendable {
    let endpoint: RequestURL
    let allowsVersion1: Bool

    static func from(
        _ environment: ConfigurationEnvironment,
        profile: AWSProfile?
    ) throws(AuthCoreError) -> InstanceMetadataCredentialsSource? {
        if environment.isTrue("AWS_EC2_METADATA_DISABLED") { return nil }
        let mode =
            (environment["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"] ?? profile?["ec2_metadata_service_endpoint_mode"])?
            .lowercased()
        guard mode == nil || mode == "ipv4" || mode == "ipv6" else {
            throw AuthCoreError(.invalidParameter, "the instance metadata endpoint mode must be IPv4 or IPv6")
        }
        let ipv6 = mode == "ipv6"
        let text =
            environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] ?? profile?["ec2_metadata_service_endpoint"]
            ?? (ipv6 ? "http://[fd00:ec2::254]" : "http://169.254.169.254")
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url: RequestURL
        do { url = try RequestURL(trimmed + "/") } catch {
            throw AuthCoreError(.invalidParameter, "instance metadata endpoint: \(error.reason)")
        }
        let v1Disabled =
            environment.isTrue("AWS_EC2_METADATA_V1_DISABLED")
            || profile?["ec2_metadata_v1_disabled"]?.lowercased() == "true"
        return InstanceMetadataCredentialsSource(endpoint: url, allowsVersion1: !v1Disabled)
    }

    /// The endpoint with `path` appended to its own path (a custom endpoint may have a prefix).
    private func url(_ path: String) throws(AuthCoreError) -> RequestURL {
        var prefix = endpoint.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        do { return try RequestURL(endpoint.origin + prefix + path) } catch {
            throw AuthCoreError(.invalidParameter, "instance metadata path: \(error.reason)")
        }
    }

    /// The role's credentials; nil when the service has none or cannot be reached (the chain moves on,
    /// as botocore's does).
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable` only when no token can be had and version 1
    ///   is disabled (then an unreachable service is an error, as in botocore).
    func credentialsIfAvailable(transport: any HTTPTransport) async throws(AuthCoreError) -> Credentials? {
        var headers: [HTTPHeader] = []
        let tokenRequest = HTTPRequest(
            method: "PUT",
            url: try url("/latest/api/token"),
            headers: [HTTPHeader("x-aws-ec2-metadata-token-ttl-seconds", "21600")],
            maximumResponseBytes: 4096,
            allowsInsecureHTTP: true
        )
        let tokenResponse = try? await transport.send(tokenRequest)
        if let tokenResponse, tokenResponse.isSuccess {
            headers.append(
                HTTPHeader("x-aws-ec2-metadata-token", String(decoding: tokenResponse.body.plainBytes, as: UTF8.self))
            )
        } else if tokenResponse?.status == 400 {
            return nil  // a bad request: no fallback
        } else if !allowsVersion1 {
            throw AuthCoreError(.credentialsUnavailable, "instance metadata: no IMDSv2 token, and IMDSv1 is disabled")
        }
        let base = "/latest/meta-data/iam/security-credentials/"
        guard
            let roles = try? await transport.send(
                HTTPRequest(
                    method: "GET",
                    url: try url(base),
                    headers: headers,
                    maximumResponseBytes: 4096,
                    allowsInsecureHTTP: true
                )
            ),
            roles.isSuccess
        else { return nil }
        let role = String(decoding: roles.body.plainBytes, as: UTF8.self)
        guard MetadataTransport.isPlainRoleName(role)
        else { return nil }
        guard
            let answer = try? await transport.send(
                HTTPRequest(
                    method: "GET",
                    url: try url(base + role),
                    headers: headers,
                    maximumResponseBytes: 64 << 10,
                    allowsInsecureHTTP: true
                )
            ),
            answer.isSuccess
        else { return nil }
        return try? MetadataCredentialsJSON.parse(
            answer.body.plainBytes,
            context: "instance metadata credentials",
            tokenKey: "Token"
        )
    }
}

/// The JSON both metadata services answer, each member required (as botocore requires them):
/// `AccessKeyId`, `SecretAccessKey`, `Token`, `Expiration`.
enum MetadataCredentialsJSON {
    static func parse(_ body: [UInt8], context: String, tokenKey: String) throws(AuthCoreError) -> Credentials {
        let object = try JSONObject(parsing: body, context: context)
        let expiration: Timestamp
        do { expiration = try Timestamp(iso8601: try object.string("Expiration")) } catch {
            throw AuthCoreError(.malformedResponse, "\(context): Expiration: \(error.reason)")
        }
        return try Credentials(
            accessKeyId: try object.string("AccessKeyId"),
            secretAccessKey: try object.string("SecretAccessKey"),
            sessionToken: try object.string(tokenKey),
            expiration: expiration
        )
    }
}

/// The transport of the credential services on the instance or the container: one second to connect
/// and between bytes, `totalTimeout` in all, no kept connections.
enum MetadataTransport {
    /// Whether a role name a metadata service listed can go into a path as it is: printable ASCII
    /// without `/`, `?` or `#`, not empty.
    static func isPlainRoleName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
            }
    }

    static func make(totalTimeout: Duration, proxies: ProxyConfiguration) throws(AuthCoreError) -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.connectTimeout = .seconds(1)
        configuration.idleTimeout = .seconds(1)
        configuration.totalTimeout = totalTimeout
        configuration.maximumIdleConnectionsPerHost = 0
        configuration.proxies = .configured(proxies)
        return try HTTP1Transport(configuration: configuration)
    }
}
