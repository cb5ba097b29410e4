import AuthCore
import AuthCoreClients

/// The transport a command sends through: `HTTP1Transport` (the environment's proxies, keep-alive),
/// trusting the system store — where OpenSSL reads `SSL_CERT_FILE` and `SSL_CERT_DIR` for a private
/// CA — or, for the commands that call AWS, only the PEM bundle `AWS_CA_BUNDLE` names when it is set
/// (the AWS CLI's and SDKs' variable; it replaces the system store, as there).
enum CLITransport {
    /// Whose trust settings apply.
    enum Service {
        /// AWS (`sigv4`, `cognito`, `identity`): `AWS_CA_BUNDLE`, else the system store.
        case aws
        /// Any other (`oss`, `aliyun`, `srp`): the system store.
        case other
    }

    /// The transport for `service`; `configure` sets the rest of its configuration.
    ///
    /// - Throws: `UsageError` naming `AWS_CA_BUNDLE` when its file cannot be loaded as PEM
    ///   certificates; `CommandFailure` when the transport cannot be made.
    static func make(for service: Service, _ configure: (inout HTTP1Transport.Configuration) -> Void = { _ in }) throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        let bundle = service == .aws ? environment("AWS_CA_BUNDLE") : nil
        configuration.trustedCertificatesFile = bundle
        configure(&configuration)
        do { return try HTTP1Transport(configuration: configuration) } catch {
            if bundle != nil, error.code == .invalidParameter { throw UsageError("AWS_CA_BUNDLE: \(error.reason)") }
            throw CommandFailure(error.reason)
        }
    }
}
