import AuthCoreVectors

enum VectorsCommand {
    static let help = """
        OVERVIEW: Check test-vector files (vectors.md format) against AuthCore.

        USAGE: authcore vectors PATH...

        ARGUMENTS:
          PATH        A vector file or a directory (every *.json below it is read).

        Prints PASS/FAIL per file and ends with "N passed, M failed"; exits 1 when any case fails.
        """

    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let parsed = try parseArguments(arguments, specs: [], help: help)
        guard !parsed.positionals.isEmpty else { throw UsageError("vectors needs at least one PATH") }
        // The report goes to stdout; each failure line also to stderr (design.md: every error has
        // one line on stderr), so an unreadable or non-JSON file is never reported on stdout alone.
        let summary = VectorRunner().run(paths: parsed.positionals) { line in
            printOut(line)
            if line.hasPrefix("FAIL ") { printError(line) }
        }
        return summary.failed == 0 ? 0 : 1
    }
}
