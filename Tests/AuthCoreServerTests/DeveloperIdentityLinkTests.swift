import AuthCore
import AuthCoreClients
import AuthCoreServer
import AuthCoreTestSupport
import Foundation
import Testing

/// Linking an identity the app already has: only the user's own or nobody's. The Cognito answers
/// here are scripted in the shapes of the Amazon Cognito Identity API Reference (`DescribeIdentity`,
/// `LookupDeveloperIdentity`, `GetOpenIdTokenForDeveloperIdentity`): neither moto nor ministack
/// implements the first two, so these checks rest on scripted answers; the end-to-end suite runs
/// the recorded-owner rules against moto.
@Suite("Developer identities: linking only the user's own identity or a guest's")
struct DeveloperIdentityLinkTests {
    let developer = try! Credentials(
        accessKeyId: "AKIADEVELOPERKEY1234",
        secretAccessKey: "developer-secret-0123456789"
    )  // test constant
    let pool = "eu-south-2:11111111-2222-3333-4444-555555555555"
    let guest = "eu-south-2:aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"

    func vendor(
        _ answers: [HTTPResponse],
        store: InMemoryHandshakeStore
    ) throws -> (DeveloperIdentityVendor, ScriptedTransport) {
        let transport = ScriptedTransport(answers)
        let client = try CognitoIdentityClient(
            region: "eu-south-2",
            endpoint: "http://127.0.0.1:9/",
            sender: SignedRequestSender(transport: transport)
        )
        let keys = try ServerKeys(serverSecret: SecureBytes([UInt8](repeating: 0x21, count: 32)))
        return (
            try DeveloperIdentityVendor(
                client: client,
                identityPoolId: pool,
                providerName: "login.app",
                credentials: developer,
                store: store,
                keys: keys
            ), transport
        )
    }

    func targets(_ transport: ScriptedTransport) -> [String] {
        transport.sent.compactMap { $0.headers.first(named: "X-Amz-Target") }
    }

    @Test("a guest identity (no logins, no developer user) is linked; the answer names the regional Logins key")
    func guestLinked() async throws {
        let store = InMemoryHandshakeStore()
        let (vendor, transport) = try vendor(
            [
                .jsonAnswer(200, ["IdentityId": guest, "Logins": []]),
                .jsonAnswer(200, ["IdentityId": guest, "DeveloperUserIdentifierList": []]),
                .jsonAnswer(200, ["IdentityId": guest, "Token": "eu-south-2-token"]),
            ],
            store: store
        )
        let issued = try await vendor.token(for: "alice", linking: guest)
        #expect(issued.identityId == guest)
        #expect(
            issued.loginsKey == "cognito-identity.eu-south-2.amazonaws.com",
            "a regional pool's key, not the global one"
        )
        #expect(
            targets(transport).map { $0.split(separator: ".").last.map(String.init) ?? "" } == [
                "DescribeIdentity", "LookupDeveloperIdentity", "GetOpenIdTokenForDeveloperIdentity",
            ]
        )
        // Recorded as alice's now: alice links it again without asking; bob is refused without asking.
        let (again, againTransport) = try self.vendor(
            [.jsonAnswer(200, ["IdentityId": guest, "Token": "t2"])],
            store: store
        )
        #expect(try await again.token(for: "alice", linking: guest).identityId == guest)
        #expect(targets(againTransport).count == 1)
        let (other, otherTransport) = try self.vendor([], store: store)
        await #expect(throws: AuthCoreError(.notPermitted, "")) { try await other.token(for: "bob", linking: guest) }
        #expect(otherTransport.sent.isEmpty)
    }

    @Test(
        "an identity with another login provider, or another developer user, is refused; so is one Cognito cannot be asked about"
    )
    func othersRefused() async throws {
        let social = try vendor(
            [.jsonAnswer(200, ["IdentityId": guest, "Logins": ["graph.facebook.com"]])],
            store: InMemoryHandshakeStore()
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await social.0.token(for: "mallory", linking: guest)
        }
        let owned = try vendor(
            [
                .jsonAnswer(200, ["IdentityId": guest, "Logins": ["login.app"]]),
                .jsonAnswer(200, ["IdentityId": guest, "DeveloperUserIdentifierList": ["alice"]]),
            ],
            store: InMemoryHandshakeStore()
        )
        await #expect(throws: AuthCoreError(.notPermitted, "")) {
            try await owned.0.token(for: "mallory", linking: guest)
        }
        #expect(targets(owned.1).count == 2, "refused before GetOpenIdTokenForDeveloperIdentity")
        let down = try vendor([HTTPResponse(status: 500, body: Array("{}".utf8))], store: InMemoryHandshakeStore())
        do {
            _ = try await down.0.token(for: "mallory", linking: guest)
            Issue.record("linked without asking")
        } catch {
            #expect(error.code != .notPermitted && error.code != .invalidParameter, "\(error)")
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await down.0.token(for: "mallory", linking: "eu-south-2:../../x")
        }
    }
}
