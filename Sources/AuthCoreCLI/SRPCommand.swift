import AuthCore
import AuthCoreClients

enum SRPCommand {
    static let help = """
        OVERVIEW: SRP-6a tools (RFC 5054).

        USAGE: authcore srp verifier --group BITS --hash ALG --username U   (password on stdin, or a prompt)
               authcore srp login --server URL --username U [--group BITS] [--hash ALG] [--device-token-file FILE]
                                  (password from SRP_PASSWORD, or stdin, or a prompt)

        OPTIONS:
          --group BITS      RFC 5054 group: 1024, 1536, 2048, 3072, 4096, 6144 or 8192.
          --hash ALG        sha1, sha256 or sha512.
          --username U      The identity I.
          --device-token-file FILE
                            login: the device token kept from this user's last login here (mode 0600;
                            read if it exists, replaced by the new one after a login).
          -h, --help        Show this help.

        Reads the password from stdin (one trailing newline is dropped; on a terminal it prompts on
        stderr without echo) and prints {"salt_hex":…,"verifier_hex":…} with a fresh 16-byte salt
        (the verifier at N's byte length, leading zeros kept).
        An empty username or password is a usage error.

        login: logs in to an `authcore serve` server (POST URL/srp/begin, then URL/srp/finish), checks
        the server's proof M2, and prints {"sessionToken":…,"expiresAt":…}. The group and hash
        (default 3072 and sha256) must be the server's; plain http only to a loopback address.
        A refused login (wrong password, locked out, expired) exits 1 with the server's code.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("srp needs a subcommand (verifier, login)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        if sub == "login" { return try await login(arguments.dropFirst()) }
        guard sub == "verifier" else { throw unknownSubcommand(sub, of: "srp", among: ["verifier", "login"]) }
        let parsed = try parseArguments(
            arguments.dropFirst(),
            specs: [
                OptionSpec(names: ["--group"], kind: .value), OptionSpec(names: ["--hash"], kind: .value),
                OptionSpec(names: ["--username"], kind: .value),
            ],
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let group: SRPGroup
        do { group = try SRPGroup(named: try parsed.required("--group")) } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
        let configuration: SRPConfiguration
        do {
            configuration = try SRPConfiguration(
                group: group,
                hash: HashAlgorithm(named: try parsed.required("--hash"))
            )
        } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
        let username = try parsed.required("--username")  // an empty one is refused too
        let password = try readSecretStandardInput(limit: 65_536, prompt: "Password for \(username): ")
        guard password.count > 0 else {
            throw UsageError("the password is empty (it comes from stdin, one trailing newline dropped)")
        }
        do {
            let verifier = try configuration.makeVerifier(username: Array(username.utf8), password: password)
            let verifierHex = verifier.verifierBytes.withUnsafeBytes { Hex.encode($0) }  // at N's byte length
            printOut(#"{"salt_hex":"\#(Hex.encode(verifier.salt))","verifier_hex":"\#(verifierHex)"}"#)
            return 0
        } catch {
            throw CommandFailure(error.reason)
        }
    }

    /// `srp login`: both round trips against an app server.
    static func login(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: [
                OptionSpec(names: ["--server"], kind: .value), OptionSpec(names: ["--username"], kind: .value),
                OptionSpec(names: ["--group"], kind: .value), OptionSpec(names: ["--hash"], kind: .value),
                OptionSpec(names: ["--device-token-file"], kind: .value),
            ],
            help: help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let deviceFile: SecretFile?
        do {
            deviceFile = try parsed.value("--device-token-file").map { path throws(AuthCoreError) in
                try SecretFile(path: path, byteLimit: 4096)
            }
        } catch {
            throw UsageError("--device-token-file: \(error.reason)")
        }
        let configuration: SRPConfiguration
        do {
            configuration = try SRPConfiguration(
                group: try SRPGroup(named: parsed.value("--group") ?? "3072"),
                hash: try HashAlgorithm(named: parsed.value("--hash") ?? "sha256")
            )
        } catch {
            throw UsageError(error.reason)
        }
        let client: SRPLoginClient
        do {
            client = try SRPLoginClient(
                server: try RequestURL(try parsed.required("--server")),
                configuration: configuration
            )
        } catch let error as AuthCoreError {
            throw UsageError("--server: \(error.reason)")
        }
        let username = try parsed.required("--username")
        let password =
            try takeSecretEnvironment("SRP_PASSWORD")
            ?? readSecretStandardInput(limit: 65_536, prompt: "Password for \(username): ")
        guard password.count > 0 else {
            throw UsageError(
                "the password is empty (it comes from SRP_PASSWORD or stdin, one trailing newline dropped)"
            )
        }
        do {
            let result = try await client.login(
                username: username,
                password: password,
                deviceToken: try deviceFile?.read()
            )
            if let deviceFile, let deviceToken = result.deviceToken { try deviceFile.write(deviceToken) }
            let token = result.sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            printOut(try jsonText(["sessionToken": .string(token), "expiresAt": .string(result.expiresAt.iso8601)]))
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure(error.reason)
        }
    }
}
