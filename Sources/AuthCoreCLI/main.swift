#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let topLevelHelp = """
    OVERVIEW: authcore — SRP-6a, Cognito sign-in, credentials and request signing.

    USAGE: authcore <subcommand> [options]

    SUBCOMMANDS:
      vectors PATH...         Check test-vector files.
      srp verifier            Create an SRP-6a salt and verifier (password on stdin).
      sigv4 sign|presign|send Sign, presign or send a request with AWS SigV4.
      oss sign|presign|send   Sign, presign or send a request with Alibaba OSS V1/V4.
      cognito sign-in|confirm-sign-in|session|sign-out
                              Cognito user pools: sign in (password from COGNITO_PASSWORD or stdin),
                              answer a next step, keep, refresh and end a stored session.
      identity developer-token|credentials
                              Cognito identity pools: developer-authenticated identities.

    See 'authcore <subcommand> --help' for detailed help.
    """

let arguments = CommandLine.arguments.dropFirst()
let status: Int32
do {
    guard let command = arguments.first else { throw UsageError("missing subcommand (try 'authcore --help')") }
    let rest = arguments.dropFirst()
    switch command {
    case "-h", "--help", "help":
        printOut(topLevelHelp)
        status = 0
    case "vectors":
        status = try VectorsCommand.run(rest)
    case "srp":
        status = try SRPCommand.run(rest)
    case "sigv4":
        status = try await SigV4Command.run(rest)
    case "oss":
        status = try await OSSCommand.run(rest)
    case "cognito":
        status = try await CognitoCommand.run(rest)
    case "identity":
        status = try await IdentityCommand.run(rest)
    default:
        throw UsageError("unknown subcommand '\(command)' (try 'authcore --help')")
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
