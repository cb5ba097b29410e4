import AuthCore
import Foundation

/// A JWT-shaped token with `claims` and no real signature (`alg: none`, signature `sig`): for the
/// scripted tests of code that reads claims (`username`, `exp`, `iat`) but does not verify tokens.
public func unsignedJWT(_ claims: [String: Any]) -> String {
    func part(_ object: [String: Any]) -> String {
        Base64.encode([UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data()), alphabet: .urlSafe)
    }
    return part(["alg": "none"]) + "." + part(claims) + ".sig"
}
