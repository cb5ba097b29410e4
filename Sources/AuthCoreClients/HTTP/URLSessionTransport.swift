public import AuthCore
#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// ``HTTPTransport`` over Foundation's `URLSession`.
public struct URLSessionTransport: HTTPTransport {
    /// The most response bytes accepted.
    public static let maximumResponseBytes = 64 << 20
    let session: URLSession

    /// A transport over `session` (default: an ephemeral session with a 60 s timeout).
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 60
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            self.session = URLSession(configuration: configuration)
        }
    }

    public func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        guard let url = URL(string: request.url.description) else {
            throw AuthCoreError(.malformedRequest, "URL cannot be represented: \(request.url.origin)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers where header.name.lowercased() != "host" {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !request.body.isEmpty || ["PUT", "POST", "PATCH"].contains(request.method) { urlRequest.httpBody = Data(request.body) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw AuthCoreError(.transportFailure, "\(request.method) \(request.url.origin): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw AuthCoreError(.transportFailure, "not an HTTP response from \(request.url.origin)")
        }
        guard data.count <= Self.maximumResponseBytes else {
            throw AuthCoreError(.inputTooLarge, "response from \(request.url.origin) exceeds \(Self.maximumResponseBytes) bytes")
        }
        var headers: [HTTPHeader] = []
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.append(HTTPHeader(name, value)) }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    }
}
