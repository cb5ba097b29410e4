import AuthCore
import AuthCoreClients
import Foundation

enum IdentityCommand {
    static let help = """
        OVERVIEW: Cognito identity pools: identities, credentials, developer-authenticated identities.

        USAGE: authcore identity developer-token --region R --identity-pool-id ID --provider-name NAME
                  --user-identifier ID [--identity-id ID] [--login NAME=@FILE|NAME=env:VAR]...
                  [--token-duration SECONDS] [--endpoint URL] [--profile NAME]
               authcore identity lookup-developer-identity --region R --identity-pool-id ID
                  [--identity-id ID] [--user-identifier ID] [--max-results N] [--next-token T] [--endpoint URL] [--profile NAME]
               authcore identity unlink-developer-identity --region R --identity-pool-id ID --identity-id ID
                  --provider-name NAME --user-identifier ID [--endpoint URL] [--profile NAME]
               authcore identity get-id --region R --identity-pool-id ID [--identity-store DIR] [--endpoint URL]
               authcore identity credentials --region R (--identity-id ID | --identity-pool-id ID [--identity-store DIR])
                  [--token-file FILE [--logins-key KEY]] [--custom-role-arn ARN]
                  [--format json|credential-process] [--endpoint URL] [--show-secrets]

        developer-token   The backend half: GetOpenIdTokenForDeveloperIdentity, signed with the developer
                          credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, or
                          from the AWS default chain ('authcore aws credentials --help'; --profile NAME).
                          --login links a social login too; its token comes from a file (@FILE) or an
                          environment variable (env:VAR), never from the command line.
                          Prints {"identityId":…,"token":…}. --token-duration is 1...86400 (default 900).
        lookup-developer-identity
                          LookupDeveloperIdentity (signed like developer-token): the identity of a user
                          identifier, or the user identifiers of an identity. Prints
                          {"identityId":…,"developerUserIdentifiers":[…]} (and "nextToken" when there is more).
        unlink-developer-identity
                          UnlinkDeveloperIdentity (signed like developer-token). Prints {"status":"unlinked"}.
        get-id            GetId for an unauthenticated identity. With --identity-store the id is saved in
                          DIR (file mode 0600) and the saved one is printed on later runs. Prints {"identityId":…}.
        credentials       The app half: GetCredentialsForIdentity with Logins = {issuer: token}. The key is
                          the token's iss claim (without https://), checked against the region; a token that
                          is not a JWT needs --logins-key. Without --token-file the identity is unauthenticated;
                          --identity-pool-id takes the identity id from --identity-store or GetId. Prints
                          {"accessKeyId":…,"expiration":…}; the secret and session token only with
                          --show-secrets. --format credential-process prints the AWS CLI's credential_process
                          JSON (which holds the secret: that is its purpose).
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else {
            throw UsageError(
                "identity needs a subcommand (developer-token, lookup-developer-identity, unlink-developer-identity, get-id or credentials)"
            )
        }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        let rest = arguments.dropFirst()
        switch sub {
        case "developer-token": return try await developerToken(rest)
        case "lookup-developer-identity": return try await lookupDeveloperIdentity(rest)
        case "unlink-developer-identity": return try await unlinkDeveloperIdentity(rest)
        case "get-id": return try await IdentityCredentialsCommand.getId(rest)
        case "credentials": return try await IdentityCredentialsCommand.credentials(rest)
        default:
            throw unknownSubcommand(
                sub,
                of: "identity",
                among: [
                    "developer-token", "lookup-developer-identity", "unlink-developer-identity", "get-id",
                    "credentials",
                ]
            )
        }
    }

    static func client(_ parsed: ParsedArguments) throws -> CognitoIdentityClient {
        let region = try parsed.required("--region")
        let sender = SignedRequestSender(transport: try CLITransport.make(for: .aws))
        do {
            return try CognitoIdentityClient(region: region, endpoint: parsed.value("--endpoint"), sender: sender)
        } catch {
            throw UsageError(error.reason)
        }
    }

    static func parse(
        _ arguments: ArraySlice<String>,
        values: [String],
        repeated: [String] = [],
        flags: [String] = []
    ) throws -> ParsedArguments {
        let specs =
            values.map { OptionSpec(names: [$0], kind: .value) }
            + repeated.map { OptionSpec(names: [$0], kind: .repeatedValue) }
            + flags.map { OptionSpec(names: [$0], kind: .flag) }
        let parsed = try parseArguments(arguments, specs: specs, help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        return parsed
    }

    /// The developer credentials: the AWS default chain (environment keys, or `--profile`'s).
    static func developerCredentials(_ parsed: ParsedArguments) async throws -> Credentials {
        try await AWSChainCredentials.resolve(profile: parsed.value("--profile")).credentials
    }

    // bytes-lint: output documents, and the Logins map sent as JSON member names (a repeated provider is refused
    // before).
    static func printJSON(_ object: [String: JSONValue]) throws {
        printOut(try jsonText(.object(object)))
    }

    // bytes-lint: output documents, and the Logins map sent as JSON member names (a repeated provider is refused
    // before).
    /// `--login NAME=@FILE` or `--login NAME=env:VAR`: a login to link, its token never in argv.
    static func linkedLogins(_ values: [String]) throws -> [String: String] {
        // bytes-lint: output documents, and the Logins map sent as JSON member names (a repeated provider is refused
        // before).
        var logins: [String: String] = [:]
        for value in values {
            guard let (name, source) = value.cutOnce(atFirst: UInt8(ascii: "=")), !name.isEmpty else {
                throw UsageError(
                    "--login expects NAME=@FILE or NAME=env:VAR (its value is not shown: it may be a token)"
                )
            }
            let token: String
            if source.hasPrefix("@"), source.count > 1 {
                let path = String(source.dropFirst())
                token = String(decoding: try readFile(path, limit: 65_536, option: "--login"), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } else if source.hasPrefix("env:"), source.count > 4 {
                let variable = String(source.dropFirst(4))
                guard let text = environment(variable) else {
                    throw UsageError("--login \(name): the environment variable \(variable) is not set")
                }
                token = text
            } else {
                throw UsageError("--login \(name): the token comes from @FILE or env:VAR, never from the command line")
            }
            guard !token.isEmpty else { throw UsageError("--login \(name): the token is empty") }
            guard logins[name] == nil else { throw UsageError("--login \(name) given more than once") }
            logins[name] = token
        }
        return logins
    }

    static func developerToken(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parse(
            arguments,
            values: [
                "--region", "--identity-pool-id", "--provider-name", "--user-identifier", "--identity-id",
                "--token-duration", "--endpoint", "--profile",
            ],
            repeated: ["--login"]
        )
        let duration = try parsed.integer("--token-duration") ?? CognitoIdentityClient.defaultTokenDuration
        guard CognitoIdentityClient.tokenDurationRange.contains(duration) else {
            throw UsageError("--token-duration must be 1...86400 seconds")
        }
        let identity = try client(parsed)
        let pool = try parsed.required("--identity-pool-id")
        let provider = try parsed.required("--provider-name")
        let user = try parsed.required("--user-identifier")
        let link = parsed.value("--identity-id")
        let logins = try linkedLogins(parsed.all("--login"))
        guard logins[provider] == nil else { throw UsageError("--login \(provider) is the developer provider itself") }
        let credentials = try await developerCredentials(parsed)
        do {
            let (id, token) = try await identity.developerToken(
                identityPoolId: pool,
                providerName: provider,
                userIdentifier: user,
                identityId: link,
                additionalLogins: logins,
                tokenDuration: duration,
                credentials: credentials
            )
            try printJSON(["identityId": .string(id), "token": .string(token)])
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }

    static func lookupDeveloperIdentity(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parse(
            arguments,
            values: [
                "--region", "--identity-pool-id", "--identity-id", "--user-identifier", "--max-results", "--next-token",
                "--endpoint", "--profile",
            ]
        )
        let maximum = try parsed.integer("--max-results") ?? 60
        guard (1...60).contains(maximum) else { throw UsageError("--max-results must be 1...60") }
        guard parsed.value("--identity-id") != nil || parsed.value("--user-identifier") != nil else {
            throw UsageError("lookup-developer-identity needs --identity-id or --user-identifier")
        }
        let identity = try client(parsed)
        let pool = try parsed.required("--identity-pool-id")
        let credentials = try await developerCredentials(parsed)
        do {
            let found = try await identity.lookupDeveloperIdentity(
                identityPoolId: pool,
                identityId: parsed.value("--identity-id"),
                developerUserIdentifier: parsed.value("--user-identifier"),
                maxResults: maximum,
                nextToken: parsed.value("--next-token"),
                credentials: credentials
            )
            // bytes-lint: output documents, and the Logins map sent as JSON member names (a repeated provider is
            // refused before).
            var object: [String: JSONValue] = [
                "identityId": .string(found.identityId),
                "developerUserIdentifiers": .array(found.developerUserIdentifiers.map(JSONValue.string)),
            ]
            if let next = found.nextToken { object["nextToken"] = .string(next) }
            try printJSON(object)
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }

    static func unlinkDeveloperIdentity(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parse(
            arguments,
            values: [
                "--region", "--identity-pool-id", "--identity-id", "--provider-name", "--user-identifier", "--endpoint",
                "--profile",
            ]
        )
        let identity = try client(parsed)
        let pool = try parsed.required("--identity-pool-id")
        let identityId = try parsed.required("--identity-id")
        let provider = try parsed.required("--provider-name")
        let user = try parsed.required("--user-identifier")
        let credentials = try await developerCredentials(parsed)
        do {
            try await identity.unlinkDeveloperIdentity(
                identityId: identityId,
                identityPoolId: pool,
                providerName: provider,
                userIdentifier: user,
                credentials: credentials
            )
            try printJSON(["status": "unlinked"])
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }
}
