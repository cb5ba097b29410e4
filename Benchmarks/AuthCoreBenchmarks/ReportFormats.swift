import Foundation

/// The formats `--json FILE` writes (`--format`): the native report, which keeps everything a run
/// measured, and two exports that benchmark-tracking tools read as they are.
enum ReportFormat: String, CaseIterable {
    /// `{"machine", "environment", "results": [{name, unit, median, p10, p25, p75, p90, p99, …}]}`.
    case native
    /// github-action-benchmark's `customSmallerIsBetter` input: an array of `{name, unit, value,
    /// range, extra}`, one entry per row (nanoseconds) and one per paired ratio (unit `ratio`).
    case githubActionBenchmark = "github-action-benchmark"
    /// Bencher Metric Format (BMF): `{benchmark: {measure: {value, lower_value, upper_value}}}`, each
    /// row's `latency` (median, p10–p90) and `allocations`, and each paired ratio as a
    /// `paired-ratio` measure of its own benchmark.
    case bencher

    static var names: String { allCases.map(\.rawValue).joined(separator: "|") }

    /// The JSON object of `report` in this format.
    func document(of report: BenchmarkReport) -> Any {
        switch self {
        case .native:
            return [
                "machine": report.machine, "environment": report.environment, "results": report.results.map(\.json),
            ] as [String: Any]
        case .githubActionBenchmark:
            var entries: [[String: Any]] = []
            for result in report.results {
                var extra =
                    String(
                        format: "p10 %.0f ns, p90 %.0f ns, p99 %.0f ns; ",
                        result.p10,
                        result.p90,
                        result.percentiles.p99
                    ) + "\(result.iterations) iterations"
                if !result.note.isEmpty { extra += "; " + result.note }
                entries.append([
                    "name": result.name, "unit": "ns", "value": result.median.rounded(),
                    "range": String(format: "± %.0f", (result.percentiles.p75 - result.percentiles.p25) / 2),
                    "extra": extra,
                ])
                if let ratio = report.pairedRatio(of: result) {
                    entries.append([
                        "name": ratio.name, "unit": "ratio", "value": ratio.value,
                        "extra": "median of the per-sample ratios, the two rows measured alternately",
                    ])
                }
            }
            return entries
        case .bencher:
            var benchmarks: [String: [String: [String: Double]]] = [:]
            for result in report.results {
                var measures = [
                    "latency": [
                        "value": result.median.rounded(), "lower_value": result.p10.rounded(),
                        "upper_value": result.p90.rounded(),
                    ]
                ]
                if let allocations = result.allocations, !result.name.hasPrefix("c.") {
                    measures["allocations"] = ["value": (allocations * 100).rounded() / 100]
                }
                benchmarks[result.name] = measures
                if let ratio = report.pairedRatio(of: result) {
                    benchmarks[ratio.name] = ["paired-ratio": ["value": ratio.value]]
                }
            }
            return benchmarks
        }
    }
}

/// One run's results with where they were measured: what `authcore-bench` measures, or reads back
/// from an earlier native report (`--from FILE`).
struct BenchmarkReport {
    var machine: String
    var environment: [String: Any]
    var results: [BenchmarkResult]

    /// A paired ratio `result` carries, named after the two rows: `engine / twin` for a C twin (the
    /// engine's time over the twin's), `row / partner` for a row paired with another engine row.
    func pairedRatio(of result: BenchmarkResult) -> (name: String, value: Double)? {
        guard let ratio = result.pairedRatio else { return nil }
        let value = (ratio * 1000).rounded() / 1000
        if result.name.hasPrefix("c.") {
            return ("\(result.pairedWith ?? baseName(result.name)) / \(result.name)", value)
        }
        guard let partner = result.pairedWith else { return nil }
        return ("\(result.name) / \(partner)", value)
    }
}

extension BenchmarkReport {
    /// Reads a native report (`authcore-bench --json FILE`). Rows of a report written before p25, p75
    /// and p99 existed carry their median in those places.
    init(contentsOf path: String) throws(BaselineError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BaselineError(message: "cannot read \(path)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let document = object as? [String: Any],
            let rows = document["results"] as? [[String: Any]]
        else { throw BaselineError(message: "\(path) is not an authcore-bench JSON report") }
        var results: [BenchmarkResult] = []
        for row in rows {
            guard let result = BenchmarkResult(json: row) else {
                throw BaselineError(message: "\(path): a row without a name and a finite median")
            }
            results.append(result)
        }
        self.init(
            machine: document["machine"] as? String ?? "",
            environment: document["environment"] as? [String: Any] ?? [:],
            results: results
        )
    }
}

extension BenchmarkResult {
    /// The keys ``json`` writes for the fields it has; any other key of a row is kept in ``extra``.
    private static let nativeKeys: Set<String> = [
        "name", "unit", "median", "p10", "p25", "p75", "p90", "p99", "iterations", "min", "max", "mean", "stddev",
        "samples",
        "bytes_per_second", "peak_rss_growth_bytes", "allocations", "paired_ratio", "paired_with", "note",
    ]

    /// The largest figure a report's row may carry (about 11.6 days in nanoseconds): what is read
    /// back is scaled and rounded again, which must stay finite.
    private static let largestFigure = 1e15

    /// A row of a native report, read back (nil without a name or a finite, non-negative median);
    /// a figure that is not a number of at most ``largestFigure`` in size is taken as absent.
    init?(json row: [String: Any]) {
        func number(_ key: String) -> Double? {
            guard let value = (row[key] as? NSNumber)?.doubleValue, value.isFinite, abs(value) <= Self.largestFigure
            else { return nil }
            return value
        }
        guard let name = row["name"] as? String, let median = number("median"), median >= 0 else { return nil }
        let percentiles = Percentiles(
            p10: number("p10") ?? median,
            p25: number("p25") ?? median,
            p50: median,
            p75: number("p75") ?? median,
            p90: number("p90") ?? median,
            p99: number("p99") ?? median
        )
        var statistics: SampleStatistics?
        if let minimum = number("min"), let maximum = number("max"), let mean = number("mean"),
            let deviation = number("stddev"),
            let count = number("samples")
        {
            statistics = SampleStatistics(
                minimum: minimum,
                maximum: maximum,
                mean: mean,
                standardDeviation: deviation,
                count: Int(exactly: count.rounded()) ?? 0
            )
        }
        let iterations = number("iterations").flatMap { Int(exactly: $0.rounded()) } ?? 0
        self.init(
            name: name,
            percentiles: percentiles,
            iterations: iterations,
            statistics: statistics,
            note: row["note"] as? String ?? ""
        )
        bytesPerSecond = number("bytes_per_second")
        peakRSSGrowthBytes = number("peak_rss_growth_bytes").flatMap { Int(exactly: $0.rounded()) }
        allocations = number("allocations")
        pairedRatio = number("paired_ratio")
        pairedWith = row["paired_with"] as? String
        extra = row.filter { !Self.nativeKeys.contains($0.key) }
    }
}
