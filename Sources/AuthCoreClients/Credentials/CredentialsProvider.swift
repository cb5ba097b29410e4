public import AuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of credentials. Every provider (static, environment, federation, STS, Cognito identity,
/// and the refreshing cache around any of them) has this one async shape.
public protocol CredentialsProvider: Sendable {
    /// Credentials that are valid now.
    ///
    /// - Throws: `AuthCoreError.Code.credentialsUnavailable`,
    ///   `AuthCoreError.Code.expired`, or the source's own error.
    func credentials() async throws(AuthCoreError) -> Credentials
}

/// Fixed credentials.
public struct StaticCredentialsProvider: CredentialsProvider {
    let value: Credentials
    /// A provider that always returns `credentials`.
    public init(_ credentials: Credentials) { value = credentials }
    public func credentials() async throws(AuthCoreError) -> Credentials { value }
}

/// Credentials from the process environment (an empty variable counts as unset).
public struct EnvironmentCredentialsProvider: CredentialsProvider {
    /// Which variables to read.
    public enum Kind: Sendable {
        /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
        case aws
        /// `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET`, `OSS_SECURITY_TOKEN`.
        case oss
        /// `ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`,
        /// `ALIBABA_CLOUD_SECURITY_TOKEN` (the Alibaba Cloud SDKs' names).
        case alibabaCloud
    }

    let kind: Kind
    let lookup: @Sendable (String) -> String?

    /// A provider for `kind`; `lookup` reads a variable (default: `getenv`).
    public init(
        _ kind: Kind,
        lookup: @escaping @Sendable (String) -> String? = EnvironmentCredentialsProvider.processEnvironment
    ) {
        self.kind = kind
        self.lookup = lookup
    }

    /// Reads the process environment.
    public static let processEnvironment: @Sendable (String) -> String? = { name in
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        let (id, secret, token) =
            switch kind {
            case .aws: ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
            case .oss: ("OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_SECURITY_TOKEN")
            case .alibabaCloud:
                ("ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_SECURITY_TOKEN")
            }
        func read(_ name: String) -> String? { lookup(name).flatMap { $0.isEmpty ? nil : $0 } }
        guard let accessKey = read(id), let secretKey = read(secret) else {
            throw AuthCoreError(.credentialsUnavailable, "\(id) and \(secret) are not both set")
        }
        return try Credentials(accessKeyId: accessKey, secretAccessKey: secretKey, sessionToken: read(token))
    }
}

/// Credentials from a closure the app supplies (the federation pattern of the OSS STS documents:
/// the app asks its own server however it likes).
public struct ClosureCredentialsProvider: CredentialsProvider {
    let fetch: @Sendable () async throws -> Credentials

    /// A provider that calls `fetch`.
    public init(_ fetch: @escaping @Sendable () async throws -> Credentials) { self.fetch = fetch }

    public func credentials() async throws(AuthCoreError) -> Credentials {
        do { return try await fetch() } catch let error as AuthCoreError {
            throw error
        } catch {
            throw AuthCoreError(.credentialsUnavailable, "the credentials closure failed with \(type(of: error))")
                .causedBy(error)
        }
    }
}
