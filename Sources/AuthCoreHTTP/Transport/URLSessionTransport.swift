public import AuthCore

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// ``HTTPTransport`` over Foundation's `URLSession` (the alternative to the default
/// ``HTTP1Transport``), with the package's ``NetworkPolicy``:
///
/// - plain `http` only to loopback hosts unless the request allows it;
/// - redirects refused (the 3xx answer is returned) unless the request opts in to same-origin ones;
/// - the body capped while it is received: a `Content-Length` over the request's cap is refused before
///   the body is read, and a body that grows past it is dropped and the task cancelled, so the buffer
///   this transport keeps never exceeds the cap.
///
/// Known limit (FoundationNetworking on Linux): chunks are queued for the delegate without
/// back-pressure, and a cancel waits for the transfer loop, so a peer that streams a body without
/// `Content-Length` faster than it is consumed (loopback) can make the process hold more than the cap
/// in Foundation's queue before the transfer stops (measured: 130–255 MB of RSS under a 64 MiB cap).
/// Bodies that announce their length are refused before any is read. ``HTTP1Transport`` has no such
/// limit: it owns its read loop.
///
/// The default transport shares one process-wide session; ``init(configuration:)`` makes a session of
/// its own (keep that transport, since a session lives as long as the process).
public struct URLSessionTransport: HTTPTransport {

    /// The default cap on a response body (``NetworkPolicy/defaultMaximumResponseBytes``).
    public static let maximumResponseBytes = NetworkPolicy.defaultMaximumResponseBytes
    let driver: URLSessionDriver

    /// The shared transport: an ephemeral session with a 60 s request timeout, no cookies, no cache.
    public init() { driver = .shared }

    /// A transport with a session of its own over `configuration`.
    public init(configuration: URLSessionConfiguration) { driver = URLSessionDriver(configuration: configuration) }

    /// Releases the session of a transport made with ``init(configuration:)`` once its tasks finish
    /// (the shared transport's session lives as long as the process and is left alone).
    public func invalidate() {
        guard driver !== URLSessionDriver.shared else { return }
        driver.invalidate()
    }

    public func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        guard !request.body.isStream, request.responseSink == nil else {
            throw AuthCoreError(.unsupported, "URLSessionTransport does not stream bodies (use HTTP1Transport)")
        }
        try NetworkPolicy.requireSecureTransport(request.url, allowInsecureHTTP: request.allowsInsecureHTTP)
        guard let url = URL(string: request.url.absoluteString) else {
            throw AuthCoreError(.malformedRequest, "URL cannot be represented: \(request.url.origin)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers where !header.hasName("host") {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !request.body.isEmpty || ["PUT", "POST", "PATCH"].contains(request.method) {
            // a Foundation copy: not wiped (HTTP1Transport sends from the buffer)
            urlRequest.httpBody = request.body.withInMemoryBytes { Data($0) }
        }
        return try await driver.perform(urlRequest, for: request)
    }
}

/// Runs data tasks on a session whose delegate enforces the redirect policy and the size cap per task.
final class URLSessionDriver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // invariant: `session` is assigned once in `init` and never changed; all per-task state lives in
    // `exchanges`, behind its lock (the delegate queue and the callers touch nothing else).
    private var session: URLSession?
    private let exchanges = Locked<[Int: Exchange]>([:])

    /// What one task has received so far, and where it reports.
    private struct Exchange {
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        let request: HTTPRequest
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        var failure: AuthCoreError?
        var redirectsFollowed = 0
    }

    static let shared: URLSessionDriver = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSessionDriver(configuration: configuration)
    }()

    init(configuration: URLSessionConfiguration) {
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    func perform(_ urlRequest: URLRequest, for request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        guard let session else { throw AuthCoreError(.transportFailure, "no URL session") }
        let task = session.dataTask(with: urlRequest)
        let identifier = task.taskIdentifier
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                    exchanges.withLock { $0[identifier] = Exchange(continuation: continuation, request: request) }
                    // A cancel that came before the exchange was registered found nothing to finish
                    // (its completion may already have been delivered): finish it here. The flag is
                    // set before `onCancel` runs, so one of the two always sees it.
                    if Task.isCancelled, let exchange = exchanges.withLock({ $0.removeValue(forKey: identifier) }) {
                        task.cancel()
                        exchange.continuation.resume(throwing: Self.cancelled(request))
                    } else {
                        task.resume()
                    }
                }
            } onCancel: {
                task.cancel()
            }
        } catch let error as AuthCoreError {
            throw error
        } catch {
            throw AuthCoreError(
                .transportFailure,
                "\(request.method) \(request.url.origin): \(error.localizedDescription)"
            )
        }
    }

    static func cancelled(_ request: HTTPRequest) -> AuthCoreError {
        AuthCoreError(.cancelled, "\(request.method) \(request.url.origin): cancelled")
    }

    /// Lets the session finish its tasks and release itself (and this driver).
    func invalidate() { session?.finishTasksAndInvalidate() }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let id = dataTask.taskIdentifier
        let allow = exchanges.withLock { table -> Bool in
            guard let request = table[id]?.request else { return false }
            let limit = Swift.max(0, request.maximumResponseBytes)
            if response.expectedContentLength > Int64(limit) {
                table[id]?.failure = AuthCoreError(
                    .inputTooLarge,
                    "response from \(request.url.origin) announces \(response.expectedContentLength) bytes, more than the \(limit)-byte limit"
                )
                return false
            }
            table[id]?.response = response as? HTTPURLResponse
            if response.expectedContentLength > 0 {
                table[id]?.body.reserveCapacity(Int(response.expectedContentLength))
            }  // ≤ limit
            return true
        }
        completionHandler(allow ? .allow : .cancel)
        // FoundationNetworking discards the rest of the body after `.cancel` but does not end the
        // task until the peer closes; cancelling at once instead makes it buffer what is in flight.
        // So the task is cancelled a moment later, when the discarded transfer has had its chance.
        if !allow {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { dataTask.cancel() }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let overflow = exchanges.withLock { table -> Bool in
            // Mutated in place through the dictionary (no copy of the body per chunk).
            guard let request = table[id]?.request, table[id]?.failure == nil, let received = table[id]?.body.count
            else { return false }
            let limit = Swift.max(0, request.maximumResponseBytes)
            // Checked before appending, so the buffer never holds more than the limit.
            guard data.count <= limit - received else {
                table[id]?.failure = AuthCoreError(
                    .inputTooLarge,
                    "response from \(request.url.origin) exceeds the \(limit)-byte limit"
                )
                table[id]?.body = []
                return true
            }
            data.withUnsafeBytes { raw in table[id]?.body.append(contentsOf: raw.assumingMemoryBound(to: UInt8.self)) }
            return false
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let follow = exchanges.withLock { table -> Bool in
            guard var exchange = table[task.taskIdentifier],
                case .followSameOrigin(let maximum) = exchange.request.redirects,
                exchange.redirectsFollowed < maximum,
                let target = newRequest.url.flatMap({ try? RequestURL($0.absoluteString) }),
                NetworkPolicy.sameOrigin(target, exchange.request.url)
            else { return false }
            exchange.redirectsFollowed += 1
            exchange.body = []
            table[task.taskIdentifier] = exchange
            return true
        }
        // Refused: the 3xx answer itself completes the task.
        completionHandler(follow ? newRequest : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard var exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = exchange.failure {
            exchange.continuation.resume(throwing: failure)
        } else if let error, (error as? URLError)?.code == .cancelled {
            exchange.continuation.resume(throwing: Self.cancelled(exchange.request))
        } else if let error {
            exchange.continuation.resume(
                throwing: AuthCoreError(
                    .transportFailure,
                    "\(exchange.request.method) \(exchange.request.url.origin): \(error.localizedDescription)"
                )
            )
        } else if let http = exchange.response ?? task.response as? HTTPURLResponse {
            var headers: [HTTPHeader] = []
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers.append(HTTPHeader(name, value)) }
            }
            if exchange.request.answerCarriesSecrets && (200..<300).contains(http.statusCode) {
                var received = exchange.body
                exchange.body = []
                let secret = received.withUnsafeBytes { SecureBytes(copying: $0) }
                received.withUnsafeMutableBytes { wipeSecretMemory($0) }  // the last reference: wiped in place
                exchange.continuation.resume(
                    returning: HTTPResponse(status: http.statusCode, headers: headers, body: .secret(secret))
                )
            } else {
                exchange.continuation.resume(
                    returning: HTTPResponse(status: http.statusCode, headers: headers, body: exchange.body)
                )
            }
        } else {
            exchange.continuation.resume(
                throwing: AuthCoreError(.transportFailure, "not an HTTP response from \(exchange.request.url.origin)")
            )
        }
    }
}
