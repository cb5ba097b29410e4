import AuthCore
import AuthCoreClients

/// The transport a command sends through: `HTTP1Transport` (the environment's proxies, keep-alive),
/// trusting the system store — where OpenSSL reads `SSL_CERT_FILE` and `SSL_CERT_DIR` for a private
/// CA — or, for the commands that call AWS, only the PEM bundle `AWS_CA_BUNDLE` names when it is set
/// (the AWS CLI's and SDKs' variable; it replaces the system store, as there).
///
/// One transport per kind for the life of the process: its pool and TLS context are never freed,
/// so no transport thread frees OpenSSL objects while the process exits.
enum CLITransport {
    /// Whose trust settings apply.
    enum Service: Hashable {
        /// AWS (`sigv4`, `cognito`, `identity`): `AWS_CA_BUNDLE`, else the system store.
        case aws
        /// Any other (`oss`, `aliyun`, `srp`): the system store.
        case other
    }

    private struct Kind: Hashable {
        let service: Service
        let longTransfers: Bool
    }

    private static let made = Locked<[Kind: HTTP1Transport]>([:])

    /// The transport for `service`; with `longTransfers`, a total limit of 24 hours (every wait for
    /// the next bytes is still bounded by the idle limit).
    ///
    /// - Throws: `UsageError` naming `AWS_CA_BUNDLE` when its file cannot be loaded as PEM
    ///   certificates; `CommandFailure` when the transport cannot be made.
    static func make(for service: Service, longTransfers: Bool = false) throws -> HTTP1Transport {
        let kind = Kind(service: service, longTransfers: longTransfers)
        if let known = made.withLock({ $0[kind] }) { return known }
        var configuration = HTTP1Transport.Configuration()
        let bundle = service == .aws ? environment("AWS_CA_BUNDLE") : nil
        configuration.trustedCertificatesFile = bundle
        if longTransfers { configuration.totalTimeout = .seconds(24 * 3600) }
        let transport: HTTP1Transport
        do { transport = try HTTP1Transport(configuration: configuration) } catch {
            if bundle != nil, error.code == .invalidParameter { throw UsageError("AWS_CA_BUNDLE: \(error.reason)") }
            throw CommandFailure(error.reason)
        }
        return made.withLock { transports in
            if let raced = transports[kind] { return raced }
            transports[kind] = transport
            return transport
        }
    }
}
