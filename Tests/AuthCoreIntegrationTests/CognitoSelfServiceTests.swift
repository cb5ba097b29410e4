import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Account self-service against ministack (`AUTH=true`): `ChangePassword` checks the previous
/// password, `UpdateUserAttributes`/`GetUser`/`DeleteUser`/`SetUserMFAPreference` check the access
/// token, `ResendConfirmationCode` sends a code to ministack's SES store, `ConfirmSignUp` checks it,
/// and the MFA preference decides what the next sign-in asks for (peers.md). ministack has no
/// `GetUserAttributeVerificationCode`/`VerifyUserAttribute` and ignores `EmailMfaSettings`: those
/// rest on the scripted tests in AuthCoreClientsTests.
@Suite("Cognito account self-service against ministack", .serialized)
struct CognitoSelfServiceTests {
    let pool: MinistackPool

    init() throws { pool = try MinistackPool.make() }

    func signedIn(_ user: String, store: (any CognitoTokenStore)? = nil) async throws -> CognitoSession {
        let session = CognitoSession(
            configuration: try pool.configuration(),
            store: store ?? InMemoryCognitoTokenStore()
        )
        _ = try #require(
            try await session.signIn(username: user, password: pool.password(user), flow: .userPassword).tokens
        )
        return session
    }

    @Test(
        "change password: the previous one is checked by the server; afterwards the new one signs in and the old is refused"
    )
    func changePassword() async throws {
        let session = try await signedIn("alice")
        let proposed = SecureBytes(Array("Chang3d-Pa55word!".utf8))
        let wrong = CognitoErrorProbe(
            try await pool.failure {
                try await session.changePassword(previous: SecureBytes(Array("Not-the-0ne!".utf8)), proposed: proposed)
            }
        )
        #expect(wrong.type == "NotAuthorizedException", "\(wrong)")
        let weak = CognitoErrorProbe(
            try await pool.failure {
                try await session.changePassword(
                    previous: pool.password("alice"),
                    proposed: SecureBytes(Array("short".utf8))
                )
            }
        )
        #expect(weak.type == "InvalidPasswordException", "\(weak)")
        try await session.changePassword(previous: pool.password("alice"), proposed: proposed)
        let client = try pool.signIn()
        #expect(try await client.signIn(username: "alice", password: proposed).tokens != nil)
        let old = CognitoErrorProbe(
            try await pool.failure { try await client.signIn(username: "alice", password: pool.password("alice")) }
        )
        #expect(old.type == "NotAuthorizedException")
    }

    @Test("attributes: read, updated, read back; the update needs a valid access token")
    func attributes() async throws {
        let session = try await signedIn("carol")
        let before = try await session.fetchUserAttributes()
        #expect(before["email"] == "carol@example.com")
        #expect(before["sub"]?.count == 36)
        let pending = try await session.updateUserAttributes(["given_name": "Carol", "family_name": "Example"])
        #expect(pending.isEmpty, "ministack sends no codes for these")
        let after = try await session.fetchUserAttributes()
        #expect(after["given_name"] == "Carol" && after["family_name"] == "Example")
        let forged = CognitoErrorProbe(
            try await pool.failure {
                try await pool.api().updateUserAttributes(accessToken: "not.a.token", attributes: ["given_name": "X"])
            }
        )
        #expect(forged.type == "NotAuthorizedException", "\(forged)")
    }

    @Test(
        "delete user: the session ends (event, store), the old access token is refused, the user can no longer sign in"
    )
    func deleteUser() async throws {
        let store = InMemoryCognitoTokenStore()
        let session = try await signedIn("bob+é", store: store)
        let accessToken = try await session.tokens().accessToken
        let events = session.events()
        try await session.deleteUser()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .userDeleted)
        #expect(try await session.status() == .signedOut)
        #expect(try await store.session() == nil)
        let refused = CognitoErrorProbe(
            try await pool.failure { try await pool.api().getUser(accessToken: accessToken) }
        )
        #expect(refused.type == "UserNotFoundException", "\(refused)")
        let gone = CognitoErrorProbe(
            try await pool.failure {
                try await pool.signIn().signIn(username: "bob+é", password: pool.password("bob+é"))
            }
        )
        #expect(gone.type == "UserNotFoundException" || gone.type == "NotAuthorizedException", "\(gone)")
    }

    @Test("resend the sign-up code: the code ministack sends confirms the user (a wrong one is refused)")
    func resendSignUpCode() async throws {
        let api = try pool.api()
        let password = SecureBytes(Array("S1gned-Up-Pa55!".utf8))
        _ = try await api.signUp(username: "erin", password: password, attributes: ["email": "erin@example.com"])
        let delivery = try #require(try await api.resendSignUpCode(username: "erin"))
        #expect(delivery.medium == "EMAIL")
        let wrong = CognitoErrorProbe(
            try await pool.failure { try await api.confirmSignUp(username: "erin", code: "000000") }
        )
        #expect(wrong.type == "CodeMismatchException", "\(wrong)")
        try await api.confirmSignUp(username: "erin", code: try pool.lastCode(sentTo: "erin@example.com"))
        #expect(try await pool.signIn().signIn(username: "erin", password: password).tokens != nil)
    }

    @Test(
        "MFA preference: TOTP preferred makes the next sign-in ask for a code (the server's choice); disabled, it does not"
    )
    func mfaPreference() async throws {
        let session = try await signedIn("totp")
        let accessToken = try await session.tokens().accessToken
        let secret = try await pool.api().associateSoftwareToken(accessToken: accessToken)
        try await pool.api().verifySoftwareToken(
            accessToken: accessToken,
            code: try pool.totp(secret),
            makePreferred: false
        )
        try await session.updateMFAPreference(totp: .preferred)
        #expect(try await session.fetchMFAPreference() == CognitoMFAStatus(enabled: [.totp], preferred: .totp))
        let client = try pool.signIn()
        let challenged = try await client.signIn(username: "totp", password: pool.password("totp"))
        guard case .nextStep(.confirmSignInWithTOTPCode) = challenged else {
            Issue.record("expected a TOTP step, got \(challenged)")
            return
        }
        try await session.updateMFAPreference(totp: .disabled)
        #expect(try await session.fetchMFAPreference() == CognitoMFAStatus(enabled: [], preferred: nil))
        #expect(try await client.signIn(username: "totp", password: pool.password("totp")).tokens != nil)
    }

    @Test("the CLI: attributes, mfa-preference, change-password and delete-user on a stored session; resend-code")
    func commandLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-account-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("session.json").path
        let common = [
            "--region", pool.region, "--user-pool-id", pool.poolId, "--client-id", pool.clientId, "--endpoint",
            pool.endpoint,
        ]
        let signIn = try authcore(
            ["cognito", "sign-in", "--username", "carol", "--flow", "user-password", "--store", store] + common,
            environment: ["COGNITO_PASSWORD": pool.users["carol"]]
        )
        #expect(signIn.status == 0, "\(signIn.stderr)")
        let account = ["--store", store, "--endpoint", pool.endpoint]

        let set = try authcore(
            ["cognito", "attributes", "--set", "given_name=Caro=l", "--set", "family_name=Ex"] + account
        )
        #expect(set.stdout == #"{"pendingVerification":{},"status":"updated"}"# + "\n", "\(set.stderr)")
        let read = try authcore(["cognito", "attributes"] + account)
        #expect(
            read.stdout.contains(#""given_name":"Caro=l""#) && read.stdout.contains(#""family_name":"Ex""#),
            "\(read.stdout)"
        )
        let badSet = try authcore(["cognito", "attributes", "--set", "=x"] + account)
        #expect(badSet.status == 2)

        let mfa = try authcore(["cognito", "mfa-preference"] + account)
        #expect(mfa.stdout == #"{"enabled":[],"preferred":null}"# + "\n", "\(mfa.stderr)")
        let badMFA = try authcore(["cognito", "mfa-preference", "--totp", "sometimes"] + account)
        #expect(badMFA.status == 2)

        let newPassword = "Carol-N3w-Pa55!"
        let wrongOld = try authcore(
            ["cognito", "change-password"] + account,
            environment: ["COGNITO_PASSWORD": "Wr0ng-Old-Pa55!", "COGNITO_NEW_PASSWORD": newPassword]
        )
        #expect(wrongOld.status == 1)
        #expect(wrongOld.stderr.contains("NotAuthorizedException"), "\(wrongOld.stderr)")
        let oldPassword = try #require(pool.users["carol"])
        let changed = try authcore(["cognito", "change-password"] + account, stdin: "\(oldPassword)\n\(newPassword)\n")
        #expect(changed.stdout == #"{"status":"passwordChanged"}"# + "\n", "\(changed.stderr)")
        #expect(
            try await pool.signIn().signIn(username: "carol", password: SecureBytes(Array(newPassword.utf8))).tokens
                != nil
        )

        let deleted = try authcore(["cognito", "delete-user"] + account)
        #expect(deleted.stdout == #"{"status":"deleted"}"# + "\n", "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let after = try authcore(["cognito", "session", "--store", store])
        #expect(after.status == 1)

        _ = try await pool.api().signUp(
            username: "frank",
            password: SecureBytes(Array("Fr4nk-Pa55word!".utf8)),
            attributes: ["email": "frank@example.com"]
        )
        let resent = try authcore(["cognito", "resend-code", "--username", "frank"] + common)
        #expect(resent.status == 0, "\(resent.stderr)")
        #expect(resent.stdout.contains(#""deliveryMedium":"EMAIL""#))
    }
}
