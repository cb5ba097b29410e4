public import AuthCore

/// The one endpoint resolver of the package's AWS clients (Cognito user pools, Cognito identity, STS).
///
/// `https://<service>.<region>.<dnsSuffix>/`, where the DNS suffix is the region's partition's:
/// `amazonaws.com.cn` for the China regions (`cn-north-1`, `cn-northwest-1`), `amazonaws.com` for
/// the commercial and GovCloud regions (AWS General Reference, "Service endpoints": e.g.
/// `cognito-idp.cn-north-1.amazonaws.com.cn`, `sts.cn-northwest-1.amazonaws.com.cn`).
public enum AWSEndpoint {
    /// The DNS suffix of the partition `region` belongs to.
    public static func dnsSuffix(forRegion region: String) -> String {
        region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
    }

    /// The default endpoint of `service` in `region`.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a region that is not 1–32
    ///   lowercase letters, digits and hyphens (a region goes into a host name: `us-east-1.evil.example/#`
    ///   must not choose the host).
    public static func defaultURL(service: String, region: String) throws(AuthCoreError) -> String {
        try validate(region: region)
        return "https://\(service).\(region).\(dnsSuffix(forRegion: region))/"
    }

    /// Checks the syntax of a region name.
    public static func validate(region: String) throws(AuthCoreError) {
        let allowed = region.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard (1...32).contains(region.utf8.count), allowed, region.first != "-", region.last != "-" else {
            throw AuthCoreError(
                .invalidParameter,
                "'\(region.prefix(40))' is not a region name (lowercase letters, digits and hyphens)"
            )
        }
    }
}

extension NetworkPolicy {
    /// The endpoint of an AWS service: the caller's URL, or ``AWSEndpoint/defaultURL(service:region:)``,
    /// checked against the policy.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a malformed region or URL, or
    ///   plain http to a host that is not loopback without `allowInsecureHTTP`.
    public static func endpoint(
        _ text: String?,
        service: String,
        region: String,
        allowInsecureHTTP: Bool
    ) throws(AuthCoreError)
        -> RequestURL
    {
        try AWSEndpoint.validate(region: region)
        return try endpoint(
            text,
            default: try AWSEndpoint.defaultURL(service: service, region: region),
            allowInsecureHTTP: allowInsecureHTTP
        )
    }
}
