import AuthCore

enum SRPCommand {
    static let help = """
        OVERVIEW: SRP-6a tools (RFC 5054).

        USAGE: authcore srp verifier --group BITS --hash ALG --username U   (password on stdin, or a prompt)

        OPTIONS:
          --group BITS      RFC 5054 group: 1024, 1536, 2048, 3072, 4096, 6144 or 8192.
          --hash ALG        sha1, sha256 or sha512.
          --username U      The identity I.
          -h, --help        Show this help.

        Reads the password from stdin (one trailing newline is dropped; on a terminal it prompts on
        stderr without echo) and prints {"salt_hex":…,"verifier_hex":…} with a fresh 16-byte salt.
        An empty username or password is a usage error.
        """

    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("srp needs a subcommand (verifier)") }
        if sub == "-h" || sub == "--help" { throw HelpRequested(text: help) }
        guard sub == "verifier" else { throw unknownSubcommand(sub, of: "srp", among: ["verifier"]) }
        let parsed = try parseArguments(
            arguments.dropFirst(),
            specs: [
                OptionSpec(names: ["--group"], kind: .value), OptionSpec(names: ["--hash"], kind: .value),
                OptionSpec(names: ["--username"], kind: .value),
            ], help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let group: SRPGroup
        do { group = try SRPGroup(named: try parsed.required("--group")) } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
        let configuration: SRPConfiguration
        do {
            configuration = try SRPConfiguration(group: group, hash: HashAlgorithm(named: try parsed.required("--hash")))
        } catch let error as AuthCoreError {
            throw UsageError(error.reason)
        }
        let username = try parsed.required("--username")  // an empty one is refused too
        let password = try readSecretStandardInput(limit: 65_536, prompt: "Password for \(username): ")
        guard password.count > 0 else { throw UsageError("the password is empty (it comes from stdin, one trailing newline dropped)") }
        do {
            let verifier = try configuration.makeVerifier(username: Array(username.utf8), password: password)
            let verifierHex = Hex.encode(verifier.verifier.minimalBigEndianBytes)
            printOut(#"{"salt_hex":"\#(Hex.encode(verifier.salt))","verifier_hex":"\#(verifierHex)"}"#)
            return 0
        } catch {
            throw CommandFailure(error.reason)
        }
    }
}
