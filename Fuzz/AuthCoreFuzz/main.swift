// authcore-fuzz: every fuzz target of the package in one executable.
//
//   authcore-fuzz TARGET FILE|DIR...         replays inputs once each (any build; `make test` runs this
//                                            under AddressSanitizer over the committed corpora)
//   authcore-fuzz TARGET [libFuzzer flags]   fuzzes, when built with `-sanitize=fuzzer` and
//                                            `-DAUTHCORE_LIBFUZZER` (`make fuzz`)
//   authcore-fuzz --list                     prints the target names
//
// A target checks its own oracle and calls `fuzzFailure` (which aborts, so both libFuzzer and the
// replay report it) when the code under test disagrees with it; a Swift trap is a finding too.

#if canImport(Glibc)
import Glibc
#endif

var arguments = CommandLine.arguments
if arguments.count >= 2, arguments[1] == "--list" {
    for target in FuzzTargets.all { print(target.name) }
    exit(0)
}
guard arguments.count >= 2, let target = FuzzTargets.named(arguments[1]) else {
    writeStandardError("usage: authcore-fuzz TARGET [FILE|DIR... | libFuzzer flags]   (authcore-fuzz --list)\n")
    exit(2)
}
selectedTarget = target
arguments.remove(at: 1)

#if AUTHCORE_LIBFUZZER
exit(runLibFuzzer(arguments))
#else
exit(replay(target, paths: Array(arguments.dropFirst())))
#endif
