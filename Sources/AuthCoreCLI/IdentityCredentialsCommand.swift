import AuthCore
import AuthCoreClients
import Foundation

/// The app half of `authcore identity`: identity ids (kept in a store between runs) and credentials.
enum IdentityCredentialsCommand {
    /// The `--identity-store` of `pool` (checked: a directory, and a pool id that names a file in it),
    /// or a store in memory.
    static func store(_ parsed: ParsedArguments, pool: String) throws -> any CognitoIdentityStore {
        guard let directory = parsed.value("--identity-store") else { return InMemoryCognitoIdentityStore() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("--identity-store \(directory) is not a directory")
        }
        do {
            let store = try FileCognitoIdentityStore(directory: directory)
            _ = try store.file(forPool: pool)
            return store
        } catch {
            throw UsageError(error.reason)
        }
    }

    static func getId(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try IdentityCommand.parse(
            arguments,
            values: ["--region", "--identity-pool-id", "--identity-store", "--endpoint"]
        )
        let client = try IdentityCommand.client(parsed)
        let pool = try parsed.required("--identity-pool-id")
        let provider = CognitoIdentityCredentialsProvider(
            client: client,
            identityPoolId: pool,
            store: try store(parsed, pool: pool)
        )
        do {
            try IdentityCommand.printJSON(["identityId": .string(try await provider.identityId())])
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }

    /// The token of `--token-file` and its `Logins` key, or nil without the option.
    static func login(_ parsed: ParsedArguments, region: String) throws -> (key: String, token: String)? {
        guard let file = parsed.value("--token-file") else {
            guard parsed.value("--logins-key") == nil else { throw UsageError("--logins-key needs --token-file") }
            return nil
        }
        let contents = try readFile(file, limit: 65_536, option: "--token-file")
        let token = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw UsageError("--token-file \(file) is empty") }
        do {
            return (
                try CognitoIdentityIssuer.loginsKey(
                    for: token,
                    explicitKey: parsed.value("--logins-key"),
                    region: region
                ), token
            )
        } catch {
            // The library names its parameter; the CLI's name for it is the option.
            throw UsageError(error.reason.replacingOccurrences(of: "(explicitKey)", with: "(--logins-key)"))
        }
    }

    static func credentials(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try IdentityCommand.parse(
            arguments,
            values: [
                "--region", "--identity-id", "--identity-pool-id", "--identity-store", "--token-file", "--logins-key",
                "--custom-role-arn", "--format", "--endpoint",
            ],
            flags: ["--show-secrets"]
        )
        let format = parsed.value("--format") ?? "json"
        guard format == "json" || format == "credential-process" else {
            throw UsageError("--format is json or credential-process, not '\(format)'")
        }
        let client = try IdentityCommand.client(parsed)
        let identityId = parsed.value("--identity-id")
        let pool = parsed.value("--identity-pool-id")
        guard (identityId == nil) != (pool == nil) else {
            throw UsageError("give one of --identity-id and --identity-pool-id")
        }
        guard pool != nil || parsed.value("--identity-store") == nil else {
            throw UsageError("--identity-store needs --identity-pool-id")
        }
        let login = try login(parsed, region: client.region)
        let role = parsed.value("--custom-role-arn")
        var store: any CognitoIdentityStore = InMemoryCognitoIdentityStore()
        if let pool { store = try Self.store(parsed, pool: pool) }
        let credentials: Credentials
        do {
            if let identityId {
                credentials = try await client.credentialsForIdentity(
                    identityId: identityId,
                    logins: login.map { [$0.key: $0.token] } ?? [:],
                    customRoleArn: role
                )
            } else {
                let provider = CognitoIdentityCredentialsProvider(
                    client: client,
                    identityPoolId: pool ?? "",
                    login: login.map { IdentityLogin.providers([$0.key: $0.token]) } ?? .unauthenticated,
                    flow: role.map { .enhanced(customRoleArn: $0) } ?? .enhanced,
                    store: store
                )
                credentials = try await provider.credentials()
            }
        } catch {
            throw CommandFailure(error.reason)
        }
        // The secret key is printed from its wiping storage (a placeholder spliced after encoding).
        var secrets = try SecretJSONValues()
        if format == "credential-process" {
            try printCredentialProcessJSON(credentials)
            return 0
        }
        // bytes-lint: an output document's member names (fixed ASCII).
        var object: [String: JSONValue] = [
            "accessKeyId": .string(credentials.accessKeyId), "expiration": JSONValue(credentials.expiration?.iso8601),
        ]
        if parsed.has("--show-secrets") {
            object["secretAccessKey"] = .string(secrets.placeholder(for: credentials.secretAccessKey))
            object["sessionToken"] = JSONValue(credentials.sessionToken)
        }
        try printJSON(.object(object), secrets: secrets)
        return 0
    }
}
