import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// ``AuthCoreLog`` over real flows against ministack: a Cognito sign-in (SRP, then a token check that
/// fetches the JWKS), the AWS chain assuming a role (STS `AssumeRole`, signed), a refreshing provider
/// around it, and a call STS refuses. The records must say what the operator needs — each call's
/// service, operation, status and request id, the refresh, the resolution, the JWKS fetch, the
/// refusal's error type — and must hold none of the flows' secrets: the password, the tokens, the
/// secret keys, the session token.
@Suite("The log hook: what the clients record, and no secret in it", .serialized)
struct LogHookTests {
    final class Collected: @unchecked Sendable {
        // invariant: records is touched only under lock.
        private let lock = NSLock()
        private var records: [AuthCoreLog.Record] = []
        func add(_ record: AuthCoreLog.Record) { lock.withLock { records.append(record) } }
        var all: [AuthCoreLog.Record] { lock.withLock { records } }
    }

    @Test(
        "records of a sign-in, a JWKS fetch, an AssumeRole, a refresh and a refusal: present, and free of every secret"
    )
    func recordsWithoutSecrets() async throws {
        let collected = Collected()
        AuthCoreLog.setHandler({ collected.add($0) }, level: .trace)
        defer { AuthCoreLog.setHandler(nil) }

        // Cognito: SRP sign-in, then the access token checked (the key set fetched).
        let pool = try MinistackPool.make()
        let password = try pool.password("alice")
        let tokens = try #require(try await pool.signIn().signIn(username: "alice", password: password).tokens)
        let verifier = try CognitoTokenVerifier(
            region: pool.region,
            userPoolId: pool.poolId,
            clientIds: [pool.clientId],
            endpoint: pool.endpoint
        )
        _ = try await verifier.verify(tokens.accessToken, as: .access)

        // AWS: a profile that assumes a role from a user's keys, through a refreshing provider.
        let setup = try MinistackPool.helper(["chain-setup"])
        let key = try #require(setup["accessKeyId"] as? String)
        let secret = try #require(setup["secretAccessKey"] as? String)
        let role = try #require(setup["assumeRoleArn"] as? String)
        let endpoint = try #require(setup["endpoint"] as? String)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-log-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config").path
        try Data(
            "[profile user]\naws_access_key_id = \(key)\naws_secret_access_key = \(secret)\n[profile admin]\nrole_arn = \(role)\nsource_profile = user\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: config))
        func chain(_ profile: String) throws -> AWSCredentialsChain {
            try AWSCredentialsChain(
                profile: profile,
                environment: ConfigurationEnvironment([
                    "AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": config + ".none",
                    "AWS_ENDPOINT_URL_STS": endpoint,
                    "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
                ])
            )
        }
        let refreshing = RefreshingCredentialsProvider(source: try chain("admin"))
        let assumed = try await refreshing.credentials()

        // A refusal, through a refreshing provider (whose failure record carries a reason): source keys
        // with a wrong secret and the assumed session token, so a message that echoed the request
        // would show the token.
        let token = try #require(assumed.sessionToken)
        try Data(
            "[profile user]\naws_access_key_id = \(key)\naws_secret_access_key = not-the-secret-0123456789\naws_session_token = \(token)\n[profile admin]\nrole_arn = \(role)\nsource_profile = user\n"
                .utf8
        ).write(to: URL(fileURLWithPath: config))
        await #expect(throws: AuthCoreError(.serviceError, "")) {
            try await RefreshingCredentialsProvider(source: try chain("admin")).credentials()
        }

        let records = collected.all
        func has(_ message: String, _ metadata: [String: String]) -> Bool {
            records.contains { record in
                record.message == message && metadata.allSatisfy { key, value in record.metadata[key] == value }
            }
        }
        #expect(has("service call", ["service": "cognito-idp", "operation": "InitiateAuth", "status": "200"]))
        #expect(
            has("service call", ["service": "cognito-idp", "operation": "RespondToAuthChallenge", "status": "200"])
        )
        #expect(has("JWKS fetched", ["fetches": "1"]))
        #expect(has("service call", ["service": "sts", "operation": "AssumeRole", "status": "200", "attempt": "1"]))
        #expect(has("AWS credentials resolved", ["source": "assume-role", "profile": "admin"]))
        #expect(has("credentials refreshed", ["source": "AWSCredentialsChain"]))
        #expect(
            records.contains {
                $0.message == "service call failed" && $0.metadata["operation"] == "AssumeRole"
                    && $0.metadata["status"]?.hasPrefix("4") == true
            }
        )
        #expect(
            records.contains { $0.message == "credentials refresh failed" && $0.metadata["error"] == "serviceError" }
        )
        #expect(
            records.contains { $0.message == "service call" && !($0.metadata["requestId"] ?? "").isEmpty },
            "a request id is recorded"
        )

        let secrets = [
            String(decoding: password.withUnsafeBytes { Array($0) }, as: UTF8.self), tokens.accessToken, tokens.idToken,
            tokens.refreshToken ?? "-",
            secret, String(decoding: assumed.secretAccessKey.withUnsafeBytes { Array($0) }, as: UTF8.self),
            assumed.sessionToken ?? "-",
            "not-the-secret-0123456789",
        ]
        for record in records {
            let text = record.description + record.metadata.values.joined(separator: " ")
            for value in secrets where value.count >= 8 {
                #expect(!text.contains(value), "a secret in the record '\(record.message)'")
                #expect(!text.contains(String(value.prefix(24))), "a secret's prefix in the record '\(record.message)'")
            }
        }
    }
}
