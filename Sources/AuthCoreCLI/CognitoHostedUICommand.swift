import AuthCore
import AuthCoreClients
import AuthCoreServer

/// `authcore cognito hosted-ui sign-in`: the hosted UI's authorization code grant with PKCE, the
/// redirect taken by a loopback listener (RFC 8252 §7.3). The help is ``CognitoCommand/help``.
enum CognitoHostedUICommand {
    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("cognito hosted-ui needs a subcommand (sign-in)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: CognitoCommand.help) }
        guard sub == "sign-in" else { throw unknownSubcommand(sub, of: "cognito hosted-ui", among: ["sign-in"]) }
        return try await signIn(arguments.dropFirst())
    }

    static func signIn(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: CognitoCommand.options([
                "--domain", "--client-id", "--user-pool-id", "--region", "--endpoint", "--amplify-outputs",
                "--redirect-port", "--scopes",
                "--identity-provider", "--timeout", "--store", "--redirect-host",
            ]),
            help: CognitoCommand.help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        var domain = parsed.value("--domain")
        var clientId = parsed.value("--client-id")
        var poolId = parsed.value("--user-pool-id")
        var region = parsed.value("--region")
        var scopes = try parsed.value("--scopes").map(scopeList)
        if let path = parsed.value("--amplify-outputs") {
            let outputs = try usageChecked { try AmplifyAuthOutputs(contentsOfFile: path) }
            clientId = clientId ?? outputs.userPoolClientId
            poolId = poolId ?? outputs.userPoolId
            region = region ?? outputs.region
            domain = domain ?? outputs.oauth?.domain
            if scopes == nil, let listed = outputs.oauth?.scopes, !listed.isEmpty { scopes = listed }
        }
        guard let domain else { throw UsageError("missing --domain (or an --amplify-outputs with an oauth section)") }
        guard let clientId else { throw UsageError("missing --client-id (or --amplify-outputs)") }
        guard let poolId else {
            throw UsageError(
                "missing --user-pool-id (or --amplify-outputs): the tokens are verified with the pool's keys"
            )
        }
        let port = try parsed.value("--redirect-port").map { text throws(UsageError) in
            guard let port = Int(text), (1...65535).contains(port) else {
                throw UsageError("--redirect-port must be a port number 1...65535")
            }
            return port
        }
        let timeout = try parsed.value("--timeout").map { text throws(UsageError) in
            guard let seconds = Int(text), (1...86_400).contains(seconds) else {
                throw UsageError("--timeout must be 1...86400 seconds")
            }
            return seconds
        }
        let poolRegion = try region ?? usageChecked { try CognitoSRP.region(fromPoolId: poolId) }
        let configuration = try usageChecked {
            try CognitoCommand.poolConfiguration(
                region: poolRegion,
                userPoolId: poolId,
                clientId: clientId,
                endpoint: parsed.value("--endpoint")
            )
        }
        let store = try parsed.value("--store").map { path in try usageChecked { try FileCognitoTokenStore(path: path) }
        }
        let transport = try CLITransport.make(for: .aws)
        // The listener first: its address is the redirect URI the authorization request names.
        let host = parsed.value("--redirect-host") ?? "127.0.0.1"
        guard host == "127.0.0.1" || host == "localhost" else {
            throw UsageError("--redirect-host is 127.0.0.1 or localhost")
        }
        let listener = try failing { try LoopbackRedirectListener(port: port ?? 0, host: host) }
        let hostedUIConfiguration = try usageChecked {
            try CognitoHostedUIConfiguration(
                domain: domain,
                clientId: clientId,
                clientSecret: configuration.clientSecret,
                redirectURI: listener.redirectURI,
                scopes: scopes ?? CognitoHostedUIConfiguration.defaultScopes,
                identityProvider: parsed.value("--identity-provider")
            )
        }
        let verifier = try usageChecked {
            try CognitoTokenVerifier(
                region: poolRegion,
                userPoolId: poolId,
                clientIds: [clientId],
                endpoint: parsed.value("--endpoint"),
                transport: transport
            )
        }
        let hostedUI = CognitoHostedUI(
            configuration: hostedUIConfiguration,
            tokenVerifier: verifier,
            transport: transport
        )
        let session = CognitoSession(
            configuration: configuration,
            transport: transport,
            store: store ?? InMemoryCognitoTokenStore(),
            hostedUI: hostedUI
        )
        let tokens: CognitoTokens
        do {
            let request = try hostedUI.authorizationRequest()
            // bytes-lint: an output document's member names (fixed ASCII).
            let announcement = try jsonText([
                "authorizeURL": .string(request.url), "redirectURI": .string(listener.redirectURI),
            ])
            let code = try await listener.authorizationCode(for: request, timeout: .seconds(timeout ?? 300)) {
                printOut(announcement)
            }
            tokens = try await session.signIn(completing: request, authorizationCode: code)
        } catch let error as AuthCoreError {
            await listener.stop()
            throw CommandFailure(error.reason)
        }
        printOut(try CognitoCommand.json(.signedIn(tokens)))
        return 0
    }

    /// `a,b c` → `["a", "b", "c"]`.
    static func scopeList(_ text: String) throws(UsageError) -> [String] {
        // bytes-lint: argv's UTF-8 bytes split on the ASCII bytes ',' and ' '.
        let scopes = text.utf8.split(whereSeparator: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") }).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard !scopes.isEmpty else { throw UsageError("--scopes lists no scope") }
        return scopes
    }
}
