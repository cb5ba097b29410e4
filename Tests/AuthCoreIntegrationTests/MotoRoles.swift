import AuthCoreTestSupport
import Foundation
import Testing

/// `text` form-encoded (RFC 3986 unreserved characters, ASCII only, kept as they are).
func formEncoded(_ text: String) -> String {
    text.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        )
    )
        ?? text
}

/// Makes the IAM role `name` in the signature-checking moto (through `authcore sigv4 send`, signed
/// with `environment`'s credentials): trusted for AssumeRole by anyone and for web identities of
/// Cognito identity pools, with an allow-all policy (moto needs the role before its credentials
/// sign anything). An existing role is reused. Returns the role's ARN.
func createAllowAllRole(_ name: String, endpoint: String, environment: [String: String?]) throws -> String {
    func iam(_ body: String) throws -> ProcessResult {
        try authcore(
            [
                "sigv4", "send", "--region", "us-east-1", "--service", "iam", "-H",
                "Content-Type: application/x-www-form-urlencoded", "-d", body,
                endpoint + "/",
            ],
            environment: environment
        )
    }
    let trust =
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity"},{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}"#
    let allowAll = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
    let role = try iam(
        "Action=CreateRole&Version=2010-05-08&RoleName=\(name)&AssumeRolePolicyDocument=\(formEncoded(trust))"
    )
    #expect(role.status == 0 || role.stderr.contains("EntityAlreadyExists"), "\(role.stderr)")
    let policy = try iam(
        "Action=PutRolePolicy&Version=2010-05-08&RoleName=\(name)&PolicyName=all&PolicyDocument=\(formEncoded(allowAll))"
    )
    #expect(policy.status == 0, "\(policy.stderr)")
    return "arn:aws:iam::123456789012:role/\(name)"
}
