public import AuthCore

/// The clients' log: one hook an app installs (the default drops everything), with swift-log's levels
/// and a message plus string metadata, so a swift-log or os_log adapter is a few lines (README,
/// "Observability"). Nothing here depends on a logging package.
///
/// What is logged, and never more: each service call's attempt (service, operation, method, host,
/// status, request id, attempt, duration), each retry and its reason, each clock skew learned, each
/// credentials refresh and its source (or its failure's code and reason), each JWKS fetch, and each
/// default-chain resolution (source, profile). Messages and metadata are built from values that are
/// public by design — names, counts, statuses, error codes and the errors' reasons, which never hold
/// a secret — never from bodies, credentials, tokens, signatures or header values; a test holds every
/// record of real flows against their secrets.
public enum AuthCoreLog {
    /// swift-log's levels.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }
    }

    /// One event.
    public struct Record: Sendable, CustomStringConvertible {
        /// Its level.
        public let level: Level
        /// Where it comes from: `authcore.http`, `authcore.credentials`, `authcore.jwks`.
        public let label: String
        /// What happened, in a few words.
        public let message: String
        /// The details, as strings.
        public let metadata: [String: String]
        /// When.
        public let time: Timestamp

        /// `time level label: message key=value …` (keys sorted): the line `--debug` prints.
        public var description: String {
            let details = metadata.keys.sorted().map { "\($0)=\(metadata[$0] ?? "")" }.joined(separator: " ")
            return "\(time.iso8601) \(level) \(label): \(message)" + (details.isEmpty ? "" : " " + details)
        }
    }

    /// What receives records.
    public typealias Handler = @Sendable (Record) -> Void

    private struct Installed: Sendable {
        var handler: Handler?
        var level: Level
    }

    private static let installed = Locked(Installed(handler: nil, level: .info))

    /// Installs `handler` for records at `level` or above (nil: drop everything, the default).
    public static func setHandler(_ handler: Handler?, level: Level = .info) {
        installed.withLock { $0 = Installed(handler: handler, level: level) }
    }

    /// Sends a record to the handler when one is installed for `level`; the message and metadata are
    /// built only then.
    package static func log(
        _ level: Level,
        _ label: String,
        _ message: @autoclosure () -> String,
        _ metadata: @autoclosure () -> [String: String] = [:]
    ) {
        let (handler, minimum) = installed.withLock { ($0.handler, $0.level) }
        guard let handler, level >= minimum else { return }
        handler(Record(level: level, label: label, message: message(), metadata: metadata(), time: SystemClock().now()))
    }
}

extension AuthCoreLog {
    /// Runs one attempt of a service call and logs it: `debug` with the status and request id when it
    /// succeeds, `notice` with the error's code (and the service's error type and request id) when it
    /// fails. Only names, numbers and codes: nothing of the request or the answer's body.
    static func serviceCall(
        service: String,
        operation: String,
        request: HTTPRequest,
        attempt: Int,
        _ send: () async throws(AuthCoreError) -> HTTPResponse
    ) async throws(AuthCoreError) -> HTTPResponse {
        let clock = ContinuousClock()
        let started = clock.now
        func common() -> [String: String] {
            let milliseconds = milliseconds(clock.now - started)
            return [
                "service": service, "operation": operation, "method": request.method, "host": request.url.host,
                "attempt": String(attempt),
                "durationMs": milliseconds,
            ]
        }
        do {
            let response = try await send()
            log(
                .debug,
                "authcore.http",
                "service call",
                common().merging(["status": String(response.status), "requestId": response.requestId ?? ""]) { a, _ in a
                }
            )
            return response
        } catch {
            log(
                .notice,
                "authcore.http",
                "service call failed",
                common().merging([
                    "error": "\(error.code)", "status": error.httpStatus.map(String.init) ?? "",
                    "serviceError": error.serviceErrorType.flatMap(ServiceErrorBody.loggableIdentifier) ?? "",
                    "requestId": error.requestId ?? "",
                ]) { a, _ in a }
            )
            throw error
        }
    }

    /// A duration in whole milliseconds, as log metadata gives it.
    static func milliseconds(_ duration: Duration) -> String {
        String(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// A service's refusal for a log or a list of reasons: its type (printable, at most 128 bytes),
    /// status and request id, never its message.
    static func serviceRefusal(_ error: AuthCoreError) -> String {
        let type = error.serviceErrorType.flatMap(ServiceErrorBody.loggableIdentifier) ?? "a service error"
        let status = error.httpStatus.map { " (HTTP \($0))" } ?? ""
        let request = error.requestId.map { ", request id \($0)" } ?? ""
        return "\(type)\(status)\(request)"
    }
}
