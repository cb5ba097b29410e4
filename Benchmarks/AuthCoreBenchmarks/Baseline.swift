import Foundation

/// A comparison with an earlier run's JSON (`--baseline FILE`): per benchmark in both runs, the new
/// median over the old. Only engine rows (no `c.`/`py.` prefix) can fail the run with `--fail-above`:
/// a twin that moved says the machine changed, not the code.
struct BaselineComparison {
    struct Row {
        let name: String
        let before: Double
        let after: Double
        var ratio: Double { after / before }
        var isEngine: Bool { !name.hasPrefix("c.") && !name.hasPrefix("py.") }
    }
    let rows: [Row]
    /// Names in the baseline that this run did not measure.
    let missing: [String]

    /// Pairs `baseline` (an earlier `authcore-bench --json` report) with `results`.
    init(baseline: BenchmarkReport, results: [BenchmarkResult]) {
        var medians: [String: Double] = [:]
        for row in baseline.results where row.median > 0 { medians[row.name] = row.median }
        rows = results.compactMap { result in
            medians[result.name].map { Row(name: result.name, before: $0, after: result.median) }
        }
        let measured = Set(results.map(\.name))
        missing = medians.keys.filter { !measured.contains($0) }.sorted()
    }

    /// The engine rows slower than `limit` times the baseline.
    func regressions(above limit: Double) -> [Row] { rows.filter { $0.isEngine && $0.ratio > limit } }

    func render(failAbove limit: Double?) -> String {
        var lines = [
            "name".padding(toLength: 34, withPad: " ", startingAt: 0) + "baseline".leftPadded(13) + "now".leftPadded(13)
                + "  now/baseline"
        ]
        for row in rows {
            var line =
                row.name.padding(toLength: 34, withPad: " ", startingAt: 0) + formatDuration(row.before).leftPadded(13)
                + formatDuration(row.after).leftPadded(13) + String(format: "  %.2f", row.ratio)
            if let limit, row.isEngine, row.ratio > limit { line += String(format: "  REGRESSION (above %.2f)", limit) }
            lines.append(line)
        }
        if !missing.isEmpty {
            lines.append(
                "\(missing.count) of the baseline's benchmarks not measured this run"
                    + (missing.count <= 5 ? ": " + missing.joined(separator: ", ") : "")
            )
        }
        return lines.joined(separator: "\n")
    }
}

struct BaselineError: Error { let message: String }
