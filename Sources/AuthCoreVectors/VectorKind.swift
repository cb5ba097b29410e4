/// One kind of vector file (`hash`, `hmac`, …): how to check one case.
public protocol VectorKind: Sendable {
    /// The `kind` string of the files this checker reads.
    var name: String { get }
    /// Checks one case; throws the first difference or structural problem.
    func check(_ vectorCase: VectorCase) throws(CaseFailure)
}

/// The kinds this build of AuthCore checks.
public enum VectorKinds {
    /// Every supported kind, by name.
    public static let all: [String: any VectorKind] = {
        var kinds: [String: any VectorKind] = [:]
        for kind: any VectorKind in [
            HashVectorKind(), HMACVectorKind(), HKDFVectorKind(), SRPVectorKind(), SigV4VectorKind(),
            SigV4AVectorKind(), OSSVectorKind(),
            CognitoSRPVectorKind(name: "cognito-srp", device: false),
            CognitoSRPVectorKind(name: "cognito-device-srp", device: true),
            CognitoDeviceVerifierVectorKind(), CognitoSecretHashVectorKind(), OAuthPKCEVectorKind(),
            AliyunRPCVectorKind(), AliyunACS3VectorKind(), AEADVectorKind(),
        ] {
            kinds[kind.name] = kind
        }
        return kinds
    }()
}
