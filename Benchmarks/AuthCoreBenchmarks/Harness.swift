import CAuthCoreBaselines
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a value alive so the optimizer cannot delete the work that produced it.
@_optimize(none)
@inline(never)
func blackHole<T>(_ value: T) {}

/// One named benchmark: `body(n)` performs the operation `n` times.
struct BenchmarkCase {
    let name: String
    /// Bytes processed per iteration (adds a MB/s column).
    var bytesPerIteration: Int? = nil
    /// A note for the table (sizes used, defaults).
    var note: String = ""
    /// Report the peak-RSS growth over the measurement (VmHWM after minus before, the high-water
    /// mark reset first through /proc/self/clear_refs).
    var measuresPeakRSS: Bool = false
    /// Another engine row this one is sampled alternately with and reported against (its paired
    /// ratio: `oss.v4.sign.get` and `sigv4.presign` against `sigv4.sign.get`). On a `c.` row whose
    /// name is not `c.` + an engine row's, the engine row it is the twin of (`c.sigv4.sign.get.evp`).
    var pairedWith: String? = nil
    let body: (Int) -> Void
}

/// Measured figures of one benchmark, in nanoseconds per iteration.
struct BenchmarkResult {
    let name: String
    let percentiles: Percentiles
    let iterations: Int
    /// The spread of the per-iteration samples (nil for rows measured elsewhere without them).
    var statistics: SampleStatistics?
    var bytesPerSecond: Double?
    var peakRSSGrowthBytes: Int?
    /// Heap allocations per iteration (the whole process, counted in one extra untimed pass).
    var allocations: Double?
    var note: String
    /// For a `c.` twin: the median over samples of engine sample i / twin sample i. The two are
    /// measured back to back, so a burst of machine noise lands on both halves of a pair; the median
    /// of these paired ratios moves far less from run to run than the ratio of the two medians.
    var pairedRatio: Double?
    /// The row ``pairedRatio`` is against (``BenchmarkCase/pairedWith``); for a C twin, its engine row
    /// when the names do not tell.
    var pairedWith: String?
    /// Row-specific figures written to the JSON as they are (the load run's throughput and p99).
    var extra: [String: Any] = [:]

    var median: Double { percentiles.p50 }
    var p10: Double { percentiles.p10 }
    var p90: Double { percentiles.p90 }

    var json: [String: Any] {
        var object: [String: Any] = [
            "name": name, "unit": "ns", "median": median.rounded(), "p10": p10.rounded(),
            "p25": percentiles.p25.rounded(),
            "p75": percentiles.p75.rounded(), "p90": p90.rounded(), "p99": percentiles.p99.rounded(),
            "iterations": iterations,
        ]
        if let statistics {
            object["min"] = statistics.minimum.rounded()
            object["max"] = statistics.maximum.rounded()
            object["mean"] = statistics.mean.rounded()
            object["stddev"] = (statistics.standardDeviation * 10).rounded() / 10
            object["samples"] = statistics.count
        }
        if let bytesPerSecond { object["bytes_per_second"] = bytesPerSecond.rounded() }
        if let peakRSSGrowthBytes { object["peak_rss_growth_bytes"] = peakRSSGrowthBytes }
        if let allocations { object["allocations"] = (allocations * 100).rounded() / 100 }
        if let pairedRatio { object["paired_ratio"] = (pairedRatio * 1000).rounded() / 1000 }
        if let pairedWith { object["paired_with"] = pairedWith }
        if !note.isEmpty { object["note"] = note }
        for (key, value) in extra { object[key] = value }
        return object
    }
}

/// Minimum, maximum, mean and (sample) standard deviation of a benchmark's samples, in ns per iteration.
struct SampleStatistics {
    let minimum: Double
    let maximum: Double
    let mean: Double
    let standardDeviation: Double
    let count: Int

    init(minimum: Double, maximum: Double, mean: Double, standardDeviation: Double, count: Int) {
        (self.minimum, self.maximum, self.mean, self.standardDeviation, self.count) = (
            minimum, maximum, mean, standardDeviation, count
        )
    }

    init(_ samples: [Double]) {
        count = samples.count
        minimum = samples.min() ?? 0
        maximum = samples.max() ?? 0
        let average = samples.isEmpty ? 0 : samples.reduce(0, +) / Double(samples.count)
        mean = average
        let squares = samples.reduce(0) { $0 + ($1 - average) * ($1 - average) }
        standardDeviation = samples.count > 1 ? (squares / Double(samples.count - 1)).squareRoot() : 0
    }
}

/// Settings of one run.
struct HarnessSettings {
    var quick = false
    var filter: String?
    var sampleCount: Int { quick ? 7 : 21 }
    var targetSampleNanoseconds: Double { quick ? 4e6 : 2.5e7 }
}

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Finds how many iterations make one sample last about the target time (this is also the warm-up).
func innerIterations(_ benchmark: BenchmarkCase, settings: HarnessSettings) -> Int {
    var n = 1
    var elapsed: Double = 0
    while true {
        let start = monotonicNanoseconds()
        benchmark.body(n)
        elapsed = Double(monotonicNanoseconds() - start)
        if elapsed >= settings.targetSampleNanoseconds / 10 || n >= 1 << 30 { break }
        n *= 2
    }
    let perIteration = max(elapsed / Double(n), 1)
    return max(1, Int(settings.targetSampleNanoseconds / perIteration))
}

/// Runs one benchmark alone, in batches, until about `seconds` have passed; returns the iteration count.
/// For profilers: nothing else runs in the process meanwhile.
func profileLoop(_ benchmark: BenchmarkCase, seconds: Int) -> Int {
    let batch = innerIterations(benchmark, settings: HarnessSettings())
    let deadline = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
    var total = 0
    while monotonicNanoseconds() < deadline {
        benchmark.body(batch)
        total += batch
    }
    return total
}

/// Runs one benchmark's body once for exactly `iterations` iterations: what an instruction counter
/// counts (`make ir-check` toggles callgrind on this function's name), the same on every run.
@inline(never)
func profileLoop(_ benchmark: BenchmarkCase, iterations: Int) {
    benchmark.body(iterations)
}

/// Measures a group of benchmarks that are compared with each other (an engine row and its `c.`
/// twin): their samples are interleaved, so a burst of machine noise hits all of them alike and
/// the ratio stays meaningful on a shared machine.
func measureGroup(_ group: [BenchmarkCase], settings: HarnessSettings) -> [BenchmarkResult] {
    let tracksRSS = group.contains(where: \.measuresPeakRSS)
    if tracksRSS { resetPeakRSS() }
    let rssBefore = tracksRSS ? peakRSSBytes() : nil
    let inner = group.map { innerIterations($0, settings: settings) }
    var samples = [[Double]](repeating: [], count: group.count)
    for _ in 0..<settings.sampleCount {
        for (index, benchmark) in group.enumerated() {
            let start = monotonicNanoseconds()
            benchmark.body(inner[index])
            samples[index].append(Double(monotonicNanoseconds() - start) / Double(inner[index]))
        }
    }
    return group.indices.map { index in
        let benchmark = group[index]
        var result = BenchmarkResult(
            name: benchmark.name,
            percentiles: Percentiles(samples[index]),
            iterations: inner[index] * settings.sampleCount,
            statistics: SampleStatistics(samples[index]),
            note: benchmark.note
        )
        if let bytes = benchmark.bytesPerIteration { result.bytesPerSecond = Double(bytes) / (result.median / 1e9) }
        if benchmark.measuresPeakRSS, let before = rssBefore, let after = peakRSSBytes() {
            result.peakRSSGrowthBytes = after - before
        }
        result.allocations = allocationsPerIteration(benchmark, iterations: inner[index])
        if benchmark.name.hasPrefix("c."),
            let engine = group.firstIndex(where: { row in
                benchmark.pairedWith.map { row.name == $0 } ?? !row.name.hasPrefix("c.")
            })
        {
            // A C twin: engine sample / twin sample (a twin with `pairedWith` names its engine row).
            let ratios = zip(samples[engine], samples[index]).map { $0 / $1 }.sorted()
            result.pairedRatio = ratios[ratios.count / 2]
            result.pairedWith = benchmark.pairedWith
        } else if let partner = benchmark.pairedWith, let other = group.firstIndex(where: { $0.name == partner }) {
            let ratios = zip(samples[index], samples[other]).map { $0 / $1 }.sorted()
            result.pairedRatio = ratios[ratios.count / 2]
            result.pairedWith = partner
        }
        return result
    }
}

/// Heap allocations per iteration of `benchmark`, from one untimed pass of `iterations` with the
/// process-wide counter on (allocations.c); nil where counting is not supported and for the
/// Python peers, whose work happens in another process.
func allocationsPerIteration(_ benchmark: BenchmarkCase, iterations: Int) -> Double? {
    guard c_authcore_allocations_supported() == 1, !benchmark.name.hasPrefix("py."), iterations > 0 else { return nil }
    c_authcore_allocations_start()
    benchmark.body(iterations)
    return Double(c_authcore_allocations_stop()) / Double(iterations)
}

/// Resets the peak-RSS high-water mark (Linux: writing 5 to /proc/self/clear_refs).
func resetPeakRSS() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// The comparison key of a benchmark: its name without a `c.`/`py.` prefix.
func baseName(_ name: String) -> String {
    for prefix in ["c.", "py."] where name.hasPrefix(prefix) { return String(name.dropFirst(prefix.count)) }
    return name
}

/// The machine description for the JSON report.
func machineDescription() -> String {
    var cpu = "unknown CPU"
    if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
        let colon = line.firstIndex(of: ":")
    {
        cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
    return "\(cpu), \(cores) cores, Linux \(release)"
}

/// What the JSON report says about where and with what it ran: toolchain, library versions, CPU,
/// commit and date (the commit and Swift version come from the environment `make bench` sets, as the
/// binary cannot know them).
func runEnvironment() -> [String: Any] {
    let environment = ProcessInfo.processInfo.environment
    var cpu = "unknown CPU"
    if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
        let colon = line.firstIndex(of: ":")
    {
        cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let formatter = ISO8601DateFormatter()
    return [
        "swift": environment["AUTHCORE_SWIFT_VERSION"] ?? "unknown (run through make bench)",
        "openssl": String(cString: c_authcore_baseline_openssl_version()),
        "gmp": String(cString: c_authcore_baseline_gmp_version()),
        "cpu": cpu,
        "cores": sysconf(Int32(_SC_NPROCESSORS_ONLN)),
        "commit": environment["AUTHCORE_COMMIT"] ?? "unknown (run through make bench)",
        "date": formatter.string(from: Date()),
    ]
}

/// Peak resident set size of this process (VmHWM), in bytes.
func peakRSSBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    let digits = line.filter(\.isNumber)
    return Int(digits).map { $0 * 1024 }
}

/// Formats nanoseconds for the table.
func formatDuration(_ ns: Double) -> String {
    if ns >= 1e6 { return String(format: "%.3f ms", ns / 1e6) }
    if ns >= 1e3 { return String(format: "%.3f µs", ns / 1e3) }
    return String(format: "%.1f ns", ns)
}

/// Renders the comparison table: each engine row, its C baseline (`c.` prefix) and Python
/// reference (`py.` prefix), and the engine's ratio to each: against C the median of the paired
/// per-sample ratios (``BenchmarkResult/pairedRatio``), against Python the ratio of the medians
/// (Python runs in its own process, not interleaved).
func renderTable(_ results: [BenchmarkResult]) -> String {
    var lines: [String] = []
    let header =
        "name".padding(toLength: 34, withPad: " ", startingAt: 0)
        + "median".leftPadded(13) + "p10".leftPadded(13) + "p90".leftPadded(13) + "MB/s".leftPadded(10)
        + "  ratio"
    lines.append(header)
    lines.append(String(repeating: "-", count: header.count + 18))
    let byName = Dictionary(results.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for result in results {
        var ratio = ""
        if !result.name.hasPrefix("c."), let partner = result.pairedWith, let paired = result.pairedRatio {
            ratio = "/ \(partner) " + String(format: "%.2f", paired)
        } else if result.name.hasPrefix("c.") || result.name.hasPrefix("py.") {
            let engineName = result.pairedWith ?? String(result.name.drop(while: { $0 != "." }).dropFirst())
            if let engine = byName[engineName] {
                let r = result.pairedRatio ?? engine.median / result.median
                if result.name.hasPrefix("c.") {
                    ratio = String(format: "Swift/C %.2f", r)
                    if r < 0.95 { ratio += String(format: " (%.1fx faster)", 1 / r) }
                } else {
                    ratio = String(format: "Swift %.1fx faster than py", result.median / engine.median)
                }
            }
        }
        let throughput = result.bytesPerSecond.map { String(format: "%.0f", $0 / 1e6) } ?? ""
        var line =
            result.name.padding(toLength: 34, withPad: " ", startingAt: 0)
            + formatDuration(result.median).leftPadded(13) + formatDuration(result.p10).leftPadded(13)
            + formatDuration(result.p90).leftPadded(13) + throughput.leftPadded(10) + "  " + ratio
        if let growth = result.peakRSSGrowthBytes { line += "  peak RSS +\(growth / 1024) KiB" }
        if let allocations = result.allocations, !result.name.hasPrefix("c.") {
            line += String(format: "  %.1f allocs", allocations)
        }
        if !result.note.isEmpty { line += "  (\(result.note))" }
        lines.append(line)
    }
    return lines.joined(separator: "\n")
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
