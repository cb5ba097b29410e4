import Foundation

/// A token in the documented shape of a Cognito identity OpenID token: a Base64url (no padding)
/// header and claims, and a signature segment that is never checked client-side.
public func openIdTokenFixture(
    issuer: String?,
    subject: String = "us-east-1:0f5e3c2a-1b4d-4e6f-8a9b-0c1d2e3f4a5b"
) -> String {
    func segment(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/",
            with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
    let iss = issuer.map { #""iss":"\#($0)","# } ?? ""
    let header = segment(#"{"kid":"us-east-11","typ":"JWS","alg":"RS512"}"#)
    let claims = segment(
        #"{\#(iss)"sub":"\#(subject)","aud":"us-east-1:pool","amr":["authenticated","login.authcore.test"],"exp":1796000000}"#
    )
    return "\(header).\(claims).c2lnbmF0dXJl"
}

/// A JWT with `claims` (a JSON object's text) and an unchecked signature segment.
public func jwtFixture(claims: String) -> String {
    func segment(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/",
            with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
    return "\(segment(#"{"kid":"k1","alg":"RS256"}"#)).\(segment(claims)).c2lnbmF0dXJl"
}
