import AuthCore
import Foundation

extension HTTPRequest {
    /// A POST to an AWS JSON 1.1 API: `Content-Type: application/x-amz-json-1.1`,
    /// `X-Amz-Target: <target>` (`AWSCognitoIdentityService.GetId`, …), the body as JSON.
    /// Control-plane answers are capped at `NetworkPolicy.controlPlaneMaximumResponseBytes`.
    /// The body is encoded by ``ServiceJSON``.
    static func awsJSON(_ url: RequestURL, target: String, body: HTTPBody, allowsInsecureHTTP: Bool) -> HTTPRequest {
        HTTPRequest(
            method: "POST",
            url: url,
            headers: [HTTPHeader("Content-Type", "application/x-amz-json-1.1"), HTTPHeader("X-Amz-Target", target)],
            body: body,
            maximumResponseBytes: NetworkPolicy.controlPlaneMaximumResponseBytes,
            allowsInsecureHTTP: allowsInsecureHTTP
        )
    }

    /// A copy whose headers of the same names as `added` are replaced by `added`.
    func replacingHeaders(with added: [HTTPHeader]) -> HTTPRequest {
        var copy = self
        copy.headers = headers.removingFields(namedLike: added) + added
        return copy
    }
}

extension HTTPResponse {
    /// The service's refusal as `AuthCoreError.Code.serviceError`: the error type and
    /// message from the body (``ServiceErrorBody``), `HTTP<status>` when the body names none.
    ///
    /// A 3xx answer (never followed for a signed request) is `AuthCoreError.Code.redirectRefused`,
    /// naming where the service says to go: S3's `x-amz-bucket-region` header and `<Endpoint>`, and the
    /// `Location` origin.
    func serviceError() -> AuthCoreError {
        let body = ServiceErrorBody(response: self)
        if (300..<400).contains(status) { return redirectError(body) }
        return AuthCoreError(
            serviceErrorType: body.code ?? "HTTP\(status)",
            message: body.message ?? "",
            httpStatus: status,
            requestId: requestId
        )
    }

    /// The service's id for this call: `x-amzn-RequestId` (JSON APIs), `x-amz-request-id` (S3, STS
    /// query API), `x-oss-request-id` (OSS); nil when the answer names none or the value is not
    /// printable ASCII of at most 128 characters (it goes into logs).
    var requestId: String? {
        for name in ["x-amzn-RequestId", "x-amz-request-id", "x-oss-request-id"] {
            guard let value = headers.first(named: name) else { continue }
            return ServiceErrorBody.loggableIdentifier(value)
        }
        return nil
    }

    private func redirectError(_ body: ServiceErrorBody) -> AuthCoreError {
        var places: [String] = []
        if let region = headers.first(named: "x-amz-bucket-region") { places.append("region \(region)") }
        let document = try? XMLReader(
            parsing: Array(self.body.plainBytes.prefix(NetworkPolicy.controlPlaneMaximumResponseBytes)),
            context: "redirect"
        )
        if let endpoint = document?.first(named: "Endpoint")?.text { places.append("endpoint \(endpoint)") }
        if let location = headers.first(named: "Location"), let url = try? RequestURL(location) {
            places.append("location \(url.origin)")
        }
        let code = body.code.map { "\($0): " } ?? ""
        let target = places.isEmpty ? "" : "; the service names \(places.joined(separator: ", "))"
        return AuthCoreError(
            .redirectRefused,
            "HTTP \(status): \(code)redirect not followed (requests are not sent to another place)\(target)",
            httpStatus: status
        )
    }
}

extension SignedRequestSender {
    /// Sends `request` SigV4-signed by `signer` (with clock-skew correction), or unsigned when there
    /// is no signer, and returns a 2xx answer; throttled and failed attempts are retried by
    /// ``SignedRequestSender/retryPolicy`` (signed afresh each time).
    ///
    /// - Throws: the service's refusal (`HTTPResponse.serviceError`), or the transport's error.
    func sendExpectingSuccess(
        _ request: HTTPRequest,
        signer: SigV4Signer?,
        operation: String? = nil,
        repeatability: RetryPolicy.Repeatability = .idempotent
    ) async throws(AuthCoreError) -> HTTPResponse {
        // For the log: the service and operation by name (the signer's service, the X-Amz-Target).
        let target = request.headers.first(named: "X-Amz-Target")
        let service =
            signer?.service ?? target.map {
                String(decoding: $0.utf8.prefix { $0 != UInt8(ascii: ".") }, as: UTF8.self)
            } ?? request.url.host
        let name =
            operation ?? target.map {
                String(decoding: $0.utf8.drop { $0 != UInt8(ascii: ".") }.dropFirst(), as: UTF8.self)
            } ?? ""
        var attempt = 0
        return try await retryPolicy.run(repeatability, random: random) { () async throws(AuthCoreError) in
            attempt += 1
            return try await AuthCoreLog.serviceCall(
                service: service,
                operation: name,
                request: request,
                attempt: attempt
            ) {
                () async throws(AuthCoreError) in try await sendOnceExpectingSuccess(request, signer: signer)
            }
        }
    }

    private func sendOnceExpectingSuccess(
        _ request: HTTPRequest,
        signer: SigV4Signer?
    ) async throws(AuthCoreError) -> HTTPResponse {
        let response: HTTPResponse
        if let signer {
            response = try await send(request) { request, time throws(AuthCoreError) in
                request.adding(try signer.sign(request.sigV4Request(), at: time))
            }
        } else {
            response = try await transport.send(request)
        }
        guard response.isSuccess else { throw response.serviceError() }
        return response
    }
}
