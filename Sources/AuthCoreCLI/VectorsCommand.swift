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
        let summary = VectorRunner().run(paths: parsed.positionals) { printOut($0) }
        return summary.failed == 0 ? 0 : 1
    }
}
