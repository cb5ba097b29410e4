import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

@Suite("Identity pools: the Logins key comes from the token's issuer and is checked locally")
struct IdentityIssuerTests {
    @Test("the documented issuer table: seventeen global-issuer regions, cn-north-1, regional elsewhere")
    func issuerTable() {
        #expect(CognitoIdentityIssuer.globalIssuerRegions.count == 17)
        for region in ["us-east-1", "eu-west-3", "sa-east-1", "ap-northeast-3", "eu-north-1"] {
            #expect(CognitoIdentityIssuer.issuer(forRegion: region) == "cognito-identity.amazonaws.com")
        }
        #expect(CognitoIdentityIssuer.issuer(forRegion: "eu-south-2") == "cognito-identity.eu-south-2.amazonaws.com")
        #expect(
            CognitoIdentityIssuer.issuer(forRegion: "ap-southeast-3") == "cognito-identity.ap-southeast-3.amazonaws.com"
        )
        #expect(CognitoIdentityIssuer.issuer(forRegion: "cn-north-1") == "cognito-identity.cn-north-1.amazonaws.com.cn")
    }

    @Test(
        "a token whose issuer fits the pool's region is keyed by iss without https://",
        arguments: [
            ("us-east-1", "https://cognito-identity.amazonaws.com", "cognito-identity.amazonaws.com"),
            (
                "eu-south-2", "https://cognito-identity.eu-south-2.amazonaws.com",
                "cognito-identity.eu-south-2.amazonaws.com"
            ),
            (
                "cn-north-1", "https://cognito-identity.cn-north-1.amazonaws.com.cn",
                "cognito-identity.cn-north-1.amazonaws.com.cn"
            ),
            ("eu-south-2", "https://accounts.google.com", "accounts.google.com"),
            (
                "us-east-1", "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Xa1b2C3d4",
                "cognito-idp.us-east-1.amazonaws.com/us-east-1_Xa1b2C3d4"
            ),
        ]
    )
    func matchingIssuer(region: String, issuer: String, key: String) throws {
        let token = openIdTokenFixture(issuer: issuer)
        #expect(try JWTClaims(token: token).issuer == issuer)
        #expect(try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: nil, region: region) == key)
        #expect(try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: key, region: region) == key)
    }

    @Test(
        "a Cognito identity token from another region's issuer is refused, naming the expected issuer",
        arguments: [
            ("eu-south-2", "https://cognito-identity.amazonaws.com", "cognito-identity.eu-south-2.amazonaws.com"),
            ("us-east-1", "https://cognito-identity.eu-south-2.amazonaws.com", "cognito-identity.amazonaws.com"),
            ("cn-north-1", "https://cognito-identity.amazonaws.com", "cognito-identity.cn-north-1.amazonaws.com.cn"),
            ("eu-west-1", "https://cognito-identity.cn-north-1.amazonaws.com.cn", "cognito-identity.amazonaws.com"),
        ]
    )
    func regionMismatch(region: String, issuer: String, expected: String) {
        do {
            _ = try CognitoIdentityIssuer.loginsKey(
                for: openIdTokenFixture(issuer: issuer),
                explicitKey: nil,
                region: region
            )
            Issue.record("accepted a token of \(issuer) in \(region)")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(error.reason.contains("issue tokens as \(expected)"), "\(error.reason)")
        }
    }

    @Test("an explicit key that does not match the token is refused with the key to use")
    func keyMismatch() {
        let token = openIdTokenFixture(issuer: "https://cognito-identity.eu-south-2.amazonaws.com")
        do {
            _ = try CognitoIdentityIssuer.loginsKey(
                for: token,
                explicitKey: "cognito-identity.amazonaws.com",
                region: "eu-south-2"
            )
            Issue.record("accepted a mismatched key")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(
                error.reason
                    == "Logins key 'cognito-identity.amazonaws.com' does not match the token's issuer: use 'cognito-identity.eu-south-2.amazonaws.com'"
            )
        }
    }

    @Test(
        "a token that is not a JWT (moto's '<region>:<uuid>') needs an explicit key",
        arguments: [
            "us-east-1:6bd4a3e2-6d5d-4c2c-9a39-4f1f0b6b1f0e", "a.b", "a..c", "a.!!!.c", "a.W10.c" /* [] */,
            "a.bm90IGpzb24.c" /* not json */,
        ]
    )
    func notAJWT(token: String) throws {
        do {
            _ = try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: nil, region: "us-east-1")
            Issue.record("keyed a non-JWT without an explicit key")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(
                error.reason.contains("explicitKey") && !error.reason.contains("--"),
                "no CLI flag in library text: \(error.reason)"
            )
        }
        #expect(
            try CognitoIdentityIssuer.loginsKey(
                for: token,
                explicitKey: "cognito-identity.amazonaws.com",
                region: "us-east-1"
            ) == "cognito-identity.amazonaws.com"
        )
        #expect(throws: AuthCoreError(.malformedInput, "")) { try JWTClaims(token: token) }
    }

    @Test("a JWT without iss needs an explicit key too")
    func noIssuer() throws {
        let token = openIdTokenFixture(issuer: nil)
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: nil, region: "us-east-1")
        }
        #expect(
            try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: "login.authcore.test", region: "us-east-1")
                == "login.authcore.test"
        )
    }
}
