import AuthCore
import AuthCoreClients
import Foundation

enum IdentityCommand {
    static let help = """
        OVERVIEW: Cognito identity pools: developer-authenticated identities.

        USAGE: authcore identity developer-token --region R --identity-pool-id ID --provider-name NAME
                  --user-identifier ID [--identity-id ID] [--token-duration SECONDS] [--endpoint URL]
               authcore identity credentials --region R --identity-id ID --token-file FILE
                  [--logins-key KEY] [--endpoint URL] [--show-secrets]

        developer-token   The backend half: GetOpenIdTokenForDeveloperIdentity, signed with the developer
                          credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN.
                          Prints {"identityId":…,"token":…}. --token-duration is 1...86400 (default 900).
        credentials       The app half: GetCredentialsForIdentity with Logins = {issuer: token}. The key is
                          the token's iss claim (without https://), checked against the region; a token that
                          is not a JWT needs --logins-key. Prints {"accessKeyId":…,"expiration":…}; the
                          secret and session token only with --show-secrets.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("identity needs a subcommand (developer-token or credentials)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        switch sub {
        case "developer-token": return try await developerToken(arguments.dropFirst())
        case "credentials": return try await credentials(arguments.dropFirst())
        default: throw UsageError("unknown identity subcommand '\(sub)'")
        }
    }

    static func client(_ parsed: ParsedArguments) throws -> CognitoIdentityClient {
        do { return try CognitoIdentityClient(region: try parsed.required("--region"), endpoint: parsed.value("--endpoint")) } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
    }

    static func developerToken(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: ["--region", "--identity-pool-id", "--provider-name", "--user-identifier", "--identity-id", "--token-duration", "--endpoint"].map {
                OptionSpec(names: [$0], kind: .value)
            }, help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let duration = try parsed.integer("--token-duration") ?? CognitoIdentityClient.defaultTokenDuration
        guard CognitoIdentityClient.tokenDurationRange.contains(duration) else {
            throw UsageError("--token-duration must be 1...86400 seconds")
        }
        let identity = try client(parsed)
        let pool = try parsed.required("--identity-pool-id")
        let provider = try parsed.required("--provider-name")
        let user = try parsed.required("--user-identifier")
        let link = parsed.value("--identity-id")
        let credentials = try credentialsFromEnvironment(id: "AWS_ACCESS_KEY_ID", secret: "AWS_SECRET_ACCESS_KEY", token: "AWS_SESSION_TOKEN")
        do {
            let (id, token) = try await identity.developerToken(
                identityPoolId: pool, providerName: provider, userIdentifier: user, identityId: link, tokenDuration: duration,
                credentials: credentials)
            let data = try JSONSerialization.data(withJSONObject: ["identityId": id, "token": token], options: [.sortedKeys])
            printOut(String(decoding: data, as: UTF8.self))
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }

    static func credentials(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: ["--region", "--identity-id", "--token-file", "--logins-key", "--endpoint"].map { OptionSpec(names: [$0], kind: .value) }
                + [OptionSpec(names: ["--show-secrets"], kind: .flag)], help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let identity = try client(parsed)
        let identityId = try parsed.required("--identity-id")
        let file = try parsed.required("--token-file")
        let contents = try readFile(file, limit: 65_536, option: "--token-file")
        let token = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw UsageError("--token-file \(file) is empty") }
        let key: String
        do {
            key = try CognitoIdentityIssuer.loginsKey(for: token, explicitKey: parsed.value("--logins-key"), region: identity.region)
        } catch {
            // The library names its parameter; the CLI's name for it is the option.
            throw UsageError(error.reason.replacingOccurrences(of: "(explicitKey)", with: "(--logins-key)"))
        }
        let showSecrets = parsed.has("--show-secrets")
        do {
            let credentials = try await identity.credentialsForIdentity(identityId: identityId, logins: [key: token])
            var object: [String: Any] = ["accessKeyId": credentials.accessKeyId, "expiration": credentials.expiration?.iso8601 ?? NSNull()]
            if showSecrets {
                object["secretAccessKey"] = credentials.secretAccessKey.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                object["sessionToken"] = credentials.sessionToken ?? NSNull()
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            printOut(String(decoding: data, as: UTF8.self))
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }
}
