public import AuthCore

#if canImport(FoundationNetworking)
public import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

extension URLRequest {
    /// Signs the request in place with SigV4 (adds `X-Amz-Date`, the session token, the content hash
    /// when the options ask for it, and `Authorization`).
    ///
    /// The URL's path and query are signed exactly as written in `url.absoluteString`.
    /// - Throws: `AuthCoreError.Code.malformedRequest` for a request without an absolute
    ///   http(s) URL.
    public mutating func sign(
        with signer: SigV4Signer,
        at time: Timestamp = .now(),
        payload: SigV4Payload? = nil
    )
        throws(AuthCoreError)
    {
        guard let url, let parsed = try? RequestURL(url.absoluteString) else {
            throw AuthCoreError(.malformedRequest, "the request needs an absolute http(s) URL")
        }
        var headers = [HTTPHeader("Host", parsed.hostHeader)]
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key })
        where !HTTPHeader(name, value).hasName("host") {
            headers.append(HTTPHeader(name, value))
        }
        let request = SigV4Request(
            method: httpMethod ?? "GET",
            target: parsed.requestTarget,
            headers: headers,
            payload: payload ?? .bytes(httpBody.map { [UInt8]($0) } ?? [])
        )
        let signature = try signer.sign(request, at: time)
        for header in signature.headers { setValue(header.value, forHTTPHeaderField: header.name) }
    }
}

extension SigV4Signer {
    /// A presigned URL for `url` (query-string authentication).
    ///
    /// - Throws: as `SigV4Signer.presign(_:at:expires:policy:)`; `AuthCoreError.Code.malformedRequest`
    ///   for a URL that is not absolute http(s).
    public func presignedURL(
        for url: URL,
        method: String = "GET",
        expires: Int,
        at time: Timestamp = .now(),
        headers: [HTTPHeader] = [],
        payload: SigV4Payload = .unsigned
    ) throws(AuthCoreError) -> URL {
        guard let parsed = try? RequestURL(url.absoluteString) else {
            throw AuthCoreError(.malformedRequest, "presigning needs an absolute http(s) URL")
        }
        let request = SigV4Request(
            method: method,
            target: parsed.requestTarget,
            headers: [HTTPHeader("Host", parsed.hostHeader)] + headers,
            payload: payload
        )
        let signature = try presign(request, at: time, expires: expires)
        guard let signed = URL(string: parsed.origin + (signature.signedURI ?? "")) else {
            throw AuthCoreError(.malformedRequest, "the presigned URL cannot be represented")
        }
        return signed
    }
}
