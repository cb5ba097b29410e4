import AuthCoreClients

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The version `authcore --version` prints (CHANGELOG.md).
let authcoreVersion = "0.1.0"

let topLevelHelp = """
    OVERVIEW: authcore — SRP-6a, Cognito sign-in, credentials and request signing.

    USAGE: authcore <subcommand> [options]
           authcore help <subcommand>
           authcore --version

    SUBCOMMANDS:
      vectors PATH...         Check test-vector files.
      srp verifier|login      Create an SRP-6a salt and verifier (password on stdin or a prompt), or
                              log in to an app server ('serve') and print its session token.
      sigv4 sign|presign|send Sign, presign or send a request with AWS SigV4.
      oss sign|presign|send   Sign, presign or send a request with Alibaba OSS V1/V4.
      cognito sign-in|confirm-sign-in|session|sign-out|hosted-ui
                              Cognito user pools: sign in (password from COGNITO_PASSWORD or stdin),
                              answer a next step, keep, refresh and end a stored session; sign in
                              through the hosted UI (PKCE, a loopback redirect).
      identity developer-token|lookup-developer-identity|unlink-developer-identity|get-id|credentials
                              Cognito identity pools: the backend's developer identities, identity ids
                              kept between runs, credentials (also in the AWS CLI's credential_process form).
      aws credentials         What the AWS default credentials chain resolves (environment, profiles of
                              ~/.aws/config and ~/.aws/credentials, roles, processes, ECS, IMDSv2).
      aliyun sts assume-role  Alibaba Cloud STS AssumeRole: prints distribute-token.json for OSS.
      serve --config FILE     The reference app server: SRP login, sessions, distribute-token.json,
                              OSS self-signing and Cognito developer identities (secrets from the environment).

    --debug (with any subcommand) prints the library's log on stderr: each service call (service,
    operation, status, request id, attempt, duration), retry, clock skew, credentials refresh and
    resolution, JWKS fetch — names, numbers and codes, never a secret.

    See 'authcore <subcommand> --help' (or 'authcore help <subcommand>') for every option.
    """

let subcommands = ["vectors", "srp", "sigv4", "oss", "cognito", "identity", "aws", "aliyun", "serve"]

/// Runs one subcommand with its arguments.
func runSubcommand(_ command: String, _ rest: ArraySlice<String>) async throws -> Int32 {
    switch command {
    case "vectors": return try VectorsCommand.run(rest)
    case "srp": return try await SRPCommand.run(rest)
    case "sigv4": return try await SigV4Command.run(rest)
    case "oss": return try await OSSCommand.run(rest)
    case "cognito": return try await CognitoCommand.run(rest)
    case "identity": return try await IdentityCommand.run(rest)
    case "aws": return try await AWSCommand.run(rest)
    case "aliyun": return try await AliyunCommand.run(rest)
    case "serve": return try await ServeCommand.run(rest)
    default: throw unknownSubcommand(command, of: "", among: subcommands)
    }
}

/// `--debug`, anywhere before a `--` on any command: the library's log (``AuthCoreLog``, debug and
/// up) on stderr, one line per event; taken out before the command reads its options.
func takingDebugFlag(_ all: ArraySlice<String>) -> (ArraySlice<String>, Bool) {
    // bytes-lint: whole argv words compared with fixed option names, nothing split or searched inside them.
    let end = all.firstIndex(of: "--") ?? all.endIndex
    let before = all[..<end]
    guard before.contains("--debug") else { return (all, false) }
    return (ArraySlice(before.filter { $0 != "--debug" } + all[end...]), true)
}

let (arguments, debugging) = takingDebugFlag(CommandLine.arguments.dropFirst())
if debugging { AuthCoreLog.setHandler({ record in printError(record.description) }, level: .debug) }
let status: Int32
do {
    guard let command = arguments.first else { throw UsageError("missing subcommand (try 'authcore --help')") }
    let rest = arguments.dropFirst()
    switch command {
    case "-h", "--help":
        printOut(topLevelHelp)
        status = 0
    case "help":
        guard let topic = rest.first else {
            printOut(topLevelHelp)
            status = 0
            break
        }
        guard rest.count == 1 else { throw UsageError("help takes one subcommand, got \(rest.count)") }
        if topic == "help" || topic == "--version" || topic == "version" {
            printOut(topLevelHelp)
            status = 0
            break
        }
        status = try await runSubcommand(topic, ["--help"])
    case "--version", "version":
        printOut("authcore \(authcoreVersion)")
        status = 0
    default:
        status = try await runSubcommand(command, rest)
    }
} catch let help as HelpRequested {
    printOut(help.text)
    status = 0
} catch let usage as UsageError {
    printError("error: \(usage.message)")
    status = 2
} catch let failure as CommandFailure {
    printError("error: \(failure.message)")
    if let detail = failure.detail { printError(detail) }
    status = 1
} catch {
    printError("error: \(error)")
    status = 1
}
exit(status)
