import AuthCore
public import AuthCoreClients
public import Foundation
import Testing

// Adapters that let the AWS SDKs for Swift take their credentials from any AuthCore provider (an
// identity pool, STS, token vending, the refreshing cache). Neither SDK can be fetched here, so the
// adapters are compiled, and run, against stand-ins of the same shape as the SDKs' protocols (below,
// after the adapters). The README shows the same adapter code with the SDKs' imports;
// scripts/check_readme_tour.py checks that it matches this file line for line.

// MARK: - Adapter: aws-sdk-swift (AWSSDKIdentity, Smithy)

// BEGIN ADAPTER aws-sdk-swift
/// aws-sdk-swift's credential resolver over any AuthCore credentials provider.
public struct AuthCoreCredentialIdentityResolver: AWSCredentialIdentityResolver {
    let provider: any CredentialsProvider

    public init(_ provider: any CredentialsProvider) { self.provider = provider }

    public func getIdentity(identityProperties: Attributes? = nil) async throws -> AWSCredentialIdentity {
        let credentials = try await provider.credentials()
        return AWSCredentialIdentity(
            accessKey: credentials.accessKeyId,
            secret: credentials.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
            expiration: credentials.expiration.map { Date($0) },
            sessionToken: credentials.sessionToken
        )
    }
}
// END ADAPTER aws-sdk-swift

// MARK: - Adapter: Soto (SotoCore, Logging)

// BEGIN ADAPTER soto
/// Soto's credential provider over any AuthCore credentials provider.
public struct AuthCoreSotoCredentialProvider: CredentialProvider {
    let provider: any CredentialsProvider

    public init(_ provider: any CredentialsProvider) { self.provider = provider }

    public var description: String { "AuthCoreSotoCredentialProvider" }

    public func getCredential(logger: Logger) async throws -> any Credential {
        let credentials = try await provider.credentials()
        return StaticCredential(
            accessKeyId: credentials.accessKeyId,
            secretAccessKey: credentials.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
            sessionToken: credentials.sessionToken
        )
    }
}
// END ADAPTER soto

// MARK: - Adapter: swift-log (Logging)

// BEGIN ADAPTER swift-log
/// AuthCore's log into a swift-log `Logger` (its levels are swift-log's, by name).
public func routeAuthCoreLog(to logger: Logger, level: AuthCoreLog.Level = .info) {
    AuthCoreLog.setHandler(
        { record in
            let mapped: Logger.Level =
                switch record.level {
                case .trace: .trace
                case .debug: .debug
                case .info: .info
                case .notice: .notice
                case .warning: .warning
                case .error: .error
                case .critical: .critical
                }
            logger.log(
                level: mapped,
                "\(record.message)",
                metadata: record.metadata.mapValues { .string($0) },
                source: record.label
            )
        },
        level: level
    )
}
// END ADAPTER swift-log

// MARK: - Adapter: swift-metrics (Metrics)

// BEGIN ADAPTER swift-metrics
/// AuthCore's log into swift-metrics: every service call counted by service, operation and status
/// class (or error code) and timed; every credentials refresh counted by outcome. `next`, when given, gets
/// every record too (the swift-log route, say): AuthCore has one log handler.
public func routeAuthCoreMetrics(then next: AuthCoreLog.Handler? = nil, level: AuthCoreLog.Level = .debug) {
    AuthCoreLog.setHandler(
        { record in
            let metadata = record.metadata
            switch record.message {
            case "service call", "service call failed":
                let service = metadata["service"] ?? "", operation = metadata["operation"] ?? ""
                // The status by class (2xx…5xx: a server cannot multiply the series), else the error's code.
                let status = metadata["status"].flatMap { Int($0) }.map { "\($0 / 100)xx" } ?? metadata["error"] ?? ""
                Counter(
                    label: "authcore_service_calls_total",
                    dimensions: [("service", service), ("operation", operation), ("status", status)]
                ).increment()
                if let milliseconds = Int(metadata["durationMs"] ?? "") {
                    Timer(
                        label: "authcore_service_call_duration",
                        dimensions: [("service", service), ("operation", operation)]
                    ).recordMilliseconds(milliseconds)
                }
            case "credentials refreshed", "credentials refresh failed":
                let outcome = record.message == "credentials refreshed" ? "refreshed" : "failed"
                Counter(label: "authcore_credentials_refreshes_total", dimensions: [("outcome", outcome)]).increment()
            default:
                break
            }
            next?(record)
        },
        level: level
    )
}
// END ADAPTER swift-metrics

// MARK: - Stand-ins of the SDKs' shapes (SmithyIdentity 0.x / aws-sdk-swift 1.x; SotoCore 7.x)

public struct Attributes: Sendable {}
public protocol Identity: Sendable { var expiration: Date? { get } }
public protocol IdentityResolver: Sendable {
    associatedtype IdentityT: Identity
    func getIdentity(identityProperties: Attributes?) async throws -> IdentityT
}
public struct AWSCredentialIdentity: Identity {
    public let accessKey: String
    public let secret: String
    public let accountID: String?
    public let expiration: Date?
    public let sessionToken: String?
    public init(
        accessKey: String,
        secret: String,
        accountID: String? = nil,
        expiration: Date? = nil,
        sessionToken: String? = nil
    ) {
        (self.accessKey, self.secret, self.accountID, self.expiration, self.sessionToken) = (
            accessKey, secret, accountID, expiration, sessionToken
        )
    }
}
public protocol AWSCredentialIdentityResolver: IdentityResolver where IdentityT == AWSCredentialIdentity {}

/// swift-log 1.x's `Logger`, as far as the adapters use it; this one keeps what it is given.
public struct Logger: Sendable {
    public enum Level: String, Sendable { case trace, debug, info, notice, warning, error, critical }
    public enum MetadataValue: Sendable, Equatable { case string(String) }
    public struct Message: Sendable, ExpressibleByStringInterpolation {
        public let text: String
        public init(stringLiteral value: String) { text = value }
    }
    let sink: LoggedLines?
    public init(label: String) { sink = nil }
    init(sink: LoggedLines) { self.sink = sink }
    public func log(
        level: Level,
        _ message: @autoclosure () -> Message,
        metadata: @autoclosure () -> [String: MetadataValue]? = nil,
        source: @autoclosure () -> String? = nil
    ) {
        sink?.add(
            "\(level.rawValue) \(source() ?? "-"): \(message().text) \((metadata() ?? [:]).keys.sorted().map { key in "\(key)=\(metadata()?[key] ?? .string(""))" })"
        )
    }
}
public final class LoggedLines: @unchecked Sendable {
    // invariant: lines is touched only under lock.
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
/// swift-metrics 2.x's `Counter` and `Timer`, as far as the adapter uses them; these record into
/// `RecordedMetrics.shared`.
public final class Counter: Sendable {
    let key: String
    public init(label: String, dimensions: [(String, String)] = []) { key = RecordedMetrics.key(label, dimensions) }
    public func increment<DataType: BinaryInteger>(by amount: DataType) {
        RecordedMetrics.shared.add(key, Int64(amount))
    }
    public func increment() { increment(by: 1 as Int64) }
}
public final class Timer: Sendable {
    let key: String
    public init(label: String, dimensions: [(String, String)] = []) { key = RecordedMetrics.key(label, dimensions) }
    public func recordMilliseconds<DataType: BinaryInteger>(_ duration: DataType) {
        RecordedMetrics.shared.add(key, Int64(duration))
    }
}
public final class RecordedMetrics: @unchecked Sendable {
    // invariant: values is touched only under lock.
    static let shared = RecordedMetrics()
    private let lock = NSLock()
    private var values: [String: [Int64]] = [:]
    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
    func add(_ key: String, _ value: Int64) { lock.withLock { values[key, default: []].append(value) } }
    func values(_ key: String) -> [Int64] { lock.withLock { values[key] ?? [] } }
}
public protocol Credential: Sendable {
    var accessKeyId: String { get }
    var secretAccessKey: String { get }
    var sessionToken: String? { get }
}
public struct StaticCredential: Credential {
    public let accessKeyId: String
    public let secretAccessKey: String
    public let sessionToken: String?
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        (self.accessKeyId, self.secretAccessKey, self.sessionToken) = (accessKeyId, secretAccessKey, sessionToken)
    }
}
public protocol CredentialProvider: Sendable, CustomStringConvertible {
    func getCredential(logger: Logger) async throws -> any Credential
    func shutdown() async throws
}
extension CredentialProvider { public func shutdown() async throws {} }

// MARK: - Tests

@Suite(
    "SDK adapters: aws-sdk-swift and Soto take their credentials from AuthCore providers; swift-log and swift-metrics take its log (stand-in protocols)",
    .serialized
)
struct SDKAdapterTests {
    static let credentials = try! Credentials(  // test fixture: a literal that always parses
        accessKeyId: "ASIAEXAMPLE",
        secretAccessKey: SecureBytes(Array("wJalrXUtnFEMI/K7MDENG".utf8)),
        sessionToken: "token",
        expiration: Timestamp(secondsSince1970: 1_800_000_000)
    )

    @Test("aws-sdk-swift: the identity carries the key, secret, session token and expiry")
    func awsSDK() async throws {
        let resolver = AuthCoreCredentialIdentityResolver(StaticCredentialsProvider(Self.credentials))
        let identity = try await resolver.getIdentity()
        #expect(
            identity.accessKey == "ASIAEXAMPLE" && identity.secret == "wJalrXUtnFEMI/K7MDENG"
                && identity.sessionToken == "token"
        )
        #expect(identity.expiration == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test(
        "swift-metrics: a service call is counted by service, operation and status and timed; a failed one by its code; refreshes by outcome; the next handler gets every record"
    )
    func swiftMetrics() {
        let lines = LoggedLines()
        let logger = Logger(sink: lines)
        routeAuthCoreMetrics(then: { record in logger.log(level: .info, "\(record.message)", source: record.label) })
        defer { AuthCoreLog.setHandler(nil) }
        let operation = "Op\(UInt32.random(in: 0...UInt32.max))"  // this test's own series (others may log meanwhile)
        AuthCoreLog.log(
            .debug,
            "authcore.http",
            "service call",
            ["service": "sts", "operation": operation, "status": "200", "durationMs": "42"]
        )
        AuthCoreLog.log(
            .notice,
            "authcore.http",
            "service call failed",
            ["service": "sts", "operation": operation, "status": "", "error": "transportFailure", "durationMs": "7"]
        )
        AuthCoreLog.log(.info, "authcore.credentials", "credentials refreshed", ["source": "x"])
        #expect(
            RecordedMetrics.shared.values("authcore_service_calls_total service=sts operation=\(operation) status=2xx")
                == [1]
        )
        #expect(
            RecordedMetrics.shared.values(
                "authcore_service_calls_total service=sts operation=\(operation) status=transportFailure"
            ) == [1]
        )
        #expect(
            RecordedMetrics.shared.values("authcore_service_call_duration service=sts operation=\(operation)") == [
                42, 7,
            ]
        )
        #expect(RecordedMetrics.shared.values("authcore_credentials_refreshes_total outcome=refreshed").count >= 1)
        #expect(lines.all.filter { $0.contains("service call") }.count >= 2, "\(lines.all)")
    }

    @Test(
        "swift-log: AuthCore's records reach the Logger with their level, label, message and metadata; below the level, nothing"
    )
    func swiftLog() {
        let lines = LoggedLines()
        routeAuthCoreLog(to: Logger(sink: lines), level: .info)
        defer { AuthCoreLog.setHandler(nil) }
        AuthCoreLog.log(.debug, "authcore.test", "dropped", [:])
        AuthCoreLog.log(.notice, "authcore.test", "kept", ["attempt": "2"])
        // Only this test's label (other tests running at the same time may log too).
        #expect(
            lines.all.filter { $0.contains("authcore.test") } == [
                #"notice authcore.test: kept ["attempt=string(\"2\")"]"#
            ],
            "\(lines.all)"
        )
    }

    @Test("Soto: the credential carries the key, secret and session token; errors pass through typed")
    func soto() async throws {
        let provider = AuthCoreSotoCredentialProvider(StaticCredentialsProvider(Self.credentials))
        let credential = try await provider.getCredential(logger: Logger(label: "test"))
        #expect(credential.accessKeyId == "ASIAEXAMPLE" && credential.secretAccessKey == "wJalrXUtnFEMI/K7MDENG")
        #expect(credential.sessionToken == "token")
        let failing = AuthCoreSotoCredentialProvider(
            ClosureCredentialsProvider { throw AuthCoreError(.credentialsUnavailable, "no") }
        )
        await #expect(throws: AuthCoreError(.credentialsUnavailable, "")) {
            try await failing.getCredential(logger: Logger(label: "t"))
        }
    }
}
