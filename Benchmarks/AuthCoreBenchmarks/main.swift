import Foundation

let help = """
    OVERVIEW: authcore-bench — AuthCore benchmarks beside plain C loops over the same library calls.

    USAGE: authcore-bench [--quick] [--filter SUBSTRING] [--json FILE [--format FORMAT]] [--baseline FILE [--fail-above RATIO]]
           authcore-bench --from FILE [--filter SUBSTRING] [--json FILE [--format FORMAT]] [--baseline FILE [--fail-above RATIO]]
           authcore-bench --list
           authcore-bench --profile NAME [--seconds N | --iterations N]

    OPTIONS:
      --quick               Fewer, shorter samples.
      --filter SUBSTRING    Only benchmarks whose name contains SUBSTRING (C/Python twins included).
      --json FILE           Also write the results as JSON to FILE: per row median, p10, p25, p75, p90,
                            p99, min, max, mean, stddev, samples, iterations; and the run's environment
                            (Swift, OpenSSL and GMP versions, CPU, commit, date).
      --format FORMAT       The format of the --json file: native (the default, everything above),
                            github-action-benchmark (its customSmallerIsBetter input: name, unit, value,
                            range, extra; paired ratios as unit "ratio") or bencher (Bencher Metric
                            Format: latency with p10/p90 bounds, allocations, paired-ratio).
      --from FILE           Measure nothing: read the results of an earlier native --json FILE (to
                            convert it with --format, or compare it with --baseline).
      --baseline FILE       Compare with an earlier --json FILE: now/baseline per benchmark.
      --fail-above RATIO    With --baseline: exit 1 when an engine row (not a c./py. twin) is more than
                            RATIO times slower than in the baseline (e.g. 1.25).
      --list                Print every benchmark name (with its C twin and Python reference) and exit.
      --profile NAME        Run only the benchmark named NAME (no twins, no table) for about
                            --seconds N (default 5), for a profiler: perf record -g authcore-bench --profile NAME.
      --iterations N        With --profile: exactly N iterations (after one not counted) in one call, for an
                            instruction counter (callgrind --toggle-collect='*profileLoop*'; make ir-check).
      -h, --help            Show this help.
    """

// A login client of the server benchmarks, in a process of its own (ServerProcessBenchmarks.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "--login-client" {
    runLoginClient(Array(CommandLine.arguments.dropFirst(2)))
}

var settings = HarnessSettings()
var jsonPath: String?
var profileName: String?
var profileSeconds = 5
var profileIterations: Int?
var profileSecondsGiven = false
var baselinePath: String?
var failAbove: Double?
var reportFormat = ReportFormat.native
var fromPath: String?
var listOnly = false
var arguments = CommandLine.arguments.dropFirst()

/// Exits with status 2 and `message` (a usage error).
func usageFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
}

/// The value after `option`, taken from `arguments` and read by `parse` (nil: refused with `requirement`).
func optionValue<T>(
    _ arguments: inout ArraySlice<String>,
    _ option: String,
    _ requirement: String,
    _ parse: (String) -> T?
) -> T {
    guard let text = arguments.popFirst(), let value = parse(text) else {
        usageFailure("\(option) needs \(requirement)")
    }
    return value
}

while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": settings.quick = true
    case "--filter": settings.filter = optionValue(&arguments, argument, "a value") { $0 }
    case "--json": jsonPath = optionValue(&arguments, argument, "a value") { $0 }
    case "--profile": profileName = optionValue(&arguments, argument, "a benchmark name") { $0 }
    case "--seconds":
        profileSecondsGiven = true
        profileSeconds = optionValue(&arguments, argument, "a whole number of seconds, 1...3600") {
            Int($0).flatMap { (1...3600).contains($0) ? $0 : nil }
        }
    case "--iterations":
        profileIterations = optionValue(&arguments, argument, "a whole number of iterations, 1...100000000") {
            Int($0).flatMap { (1...100_000_000).contains($0) ? $0 : nil }
        }
    case "--format":
        reportFormat = optionValue(&arguments, argument, "one of \(ReportFormat.names)") { ReportFormat(rawValue: $0) }
    case "--from": fromPath = optionValue(&arguments, argument, "a JSON file") { $0 }
    case "--baseline": baselinePath = optionValue(&arguments, argument, "a JSON file") { $0 }
    case "--fail-above":
        failAbove = optionValue(&arguments, argument, "a ratio of at least 1 (e.g. 1.25)") {
            Double($0).flatMap { $0.isFinite && $0 >= 1 ? $0 : nil }
        }
    case "--list": listOnly = true
    case "-h", "--help":
        print(help)
        exit(0)
    default:
        usageFailure("unknown option \(argument)")
    }
}

var all: [BenchmarkCase] = []
all += digestBenchmarks()
all += modexpBenchmarks()
all += srpBenchmarks()
all += signingBenchmarks()
all += cognitoBenchmarks()

if failAbove != nil, baselinePath == nil { usageFailure("--fail-above needs --baseline") }
if reportFormat != .native, jsonPath == nil { usageFailure("--format needs --json FILE") }
if profileIterations != nil, profileName == nil { usageFailure("--iterations needs --profile NAME") }
if profileIterations != nil, profileSecondsGiven { usageFailure("--seconds and --iterations exclude each other") }
if fromPath != nil, settings.quick || profileName != nil || listOnly {
    usageFailure("--from measures nothing: it takes no --quick, --profile or --list")
}

if listOnly {
    for benchmark in all { print(benchmark.name + (benchmark.note.isEmpty ? "" : "  (\(benchmark.note))")) }
    for reference in pythonReferenceScripts { for name in reference.names { print(name + "  (\(reference.script))") } }
    print("server.srp.login.3072  (load run on loopback, in-memory store)")
    print("server.srp.login.3072.redis  (the same with redis-server)")
    print("server.srp.math.3072  (the server's SRP math per login, no I/O)")
    print(
        "server.srp.login.3072.cpu  (two authcore serve processes on redis-server: their CPU per login, clients in other processes)"
    )
    print("server.srp.load.3072  (the same under load from \(loadClients) client processes: logins/s, p50/p99)")
    for name in transportRowNames { print(name + "  (HTTP client on loopback TLS)") }
    exit(0)
}

if let profileName {
    guard let benchmark = all.first(where: { $0.name == profileName }) else {
        FileHandle.standardError.write(Data("error: no benchmark is named \(profileName)\n".utf8))
        exit(2)
    }
    if let profileIterations {
        benchmark.body(1)  // not counted: the first call fills the caches and memos a warm row keeps
        profileLoop(benchmark, iterations: profileIterations)
        FileHandle.standardError.write(Data("\(benchmark.name): \(profileIterations) iterations\n".utf8))
        exit(0)
    }
    let iterations = profileLoop(benchmark, seconds: profileSeconds)
    FileHandle.standardError.write(
        Data("\(benchmark.name): \(iterations) iterations in about \(profileSeconds) s\n".utf8)
    )
    exit(0)
}

/// Runs the selected benchmarks (the engine rows with their twins, the Python references, the
/// server and transport rows) and returns what they measured.
func measure(_ all: [BenchmarkCase], settings: HarnessSettings) -> [BenchmarkResult] {
    let selected = all.filter { benchmark in
        guard let filter = settings.filter else { return true }
        return benchmark.name.contains(filter)
    }
    let serverRowsSelected =
        settings.filter.map { filter in
            ([
                "server.srp.login.3072.redis", "server.srp.login.3072.cpu", "server.srp.math.3072",
                "server.srp.load.3072",
            ] + transportRowNames).contains {
                $0.contains(filter) || filter.hasPrefix($0)
            }
        } ?? true
    if selected.isEmpty, !serverRowsSelected { usageFailure("no benchmark matches the filter") }

    // Group each engine row with its C twin (same base name) and the rows paired with it, keeping the
    // declaration order (the partner must come first: `--filter` keeps a paired row only with it). A
    // paired row joins the group its partner is in, even when the partner joined another row's group.
    var groups: [[BenchmarkCase]] = []
    for benchmark in selected {
        let key = benchmark.pairedWith ?? baseName(benchmark.name)
        if let index = groups.firstIndex(where: { group in
            baseName(group[0].name) == key || (benchmark.pairedWith != nil && group.contains { $0.name == key })
        }) {
            groups[index].append(benchmark)
        } else {
            groups.append([benchmark])
        }
    }
    var results: [BenchmarkResult] = []
    for (index, group) in groups.enumerated() {
        FileHandle.standardError.write(Data("\r[\(index + 1)/\(groups.count)] \(group[0].name)\u{1B}[K".utf8))
        results += measureGroup(group, settings: settings)
    }
    results += pythonReferenceResults(settings: settings)
    results += serverLoadResults(settings: settings)
    results += serverProcessResults(settings: settings)
    results += transportResults(settings: settings)
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    return results
}

let report: BenchmarkReport
if let fromPath {
    do {
        var earlier = try BenchmarkReport(contentsOf: fromPath)
        if let filter = settings.filter { earlier.results = earlier.results.filter { $0.name.contains(filter) } }
        report = earlier
    } catch {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        exit(1)
    }
} else {
    report = BenchmarkReport(
        machine: machineDescription(),
        environment: runEnvironment(),
        results: measure(all, settings: settings)
    )
}

print(
    "AuthCore benchmarks — \(report.machine)\(settings.quick ? " (quick)" : "")\(fromPath.map { " (read from \($0))" } ?? "")"
)
print(renderTable(report.results))

if let jsonPath {
    do {
        let data = try JSONSerialization.data(
            withJSONObject: reportFormat.document(of: report),
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        try data.write(to: URL(fileURLWithPath: jsonPath))
    } catch {
        FileHandle.standardError.write(Data("error: cannot write \(jsonPath)\n".utf8))
        exit(1)
    }
}

if let baselinePath {
    do {
        let comparison = BaselineComparison(
            baseline: try BenchmarkReport(contentsOf: baselinePath),
            results: report.results
        )
        print("")
        print("Compared with \(baselinePath):")
        print(comparison.render(failAbove: failAbove))
        if let failAbove, !comparison.regressions(above: failAbove).isEmpty {
            FileHandle.standardError.write(
                Data(
                    "error: \(comparison.regressions(above: failAbove).count) benchmark(s) slower than \(failAbove)x the baseline\n"
                        .utf8
                )
            )
            exit(1)
        }
    } catch {
        FileHandle.standardError.write(Data("error: --baseline: \(error.message)\n".utf8))
        exit(2)
    }
}
