import Foundation

let help = """
    OVERVIEW: authcore-bench — AuthCore benchmarks beside plain C loops over the same library calls.

    USAGE: authcore-bench [--quick] [--filter SUBSTRING] [--json FILE]
           authcore-bench --profile NAME [--seconds N]

    OPTIONS:
      --quick               Fewer, shorter samples.
      --filter SUBSTRING    Only benchmarks whose name contains SUBSTRING (C/Python twins included).
      --json FILE           Also write the results as JSON to FILE.
      --profile NAME        Run only the benchmark named NAME (no twins, no table) for about
                            --seconds N (default 5), for a profiler: perf record -g authcore-bench --profile NAME.
      -h, --help            Show this help.
    """

var settings = HarnessSettings()
var jsonPath: String?
var profileName: String?
var profileSeconds = 5
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": settings.quick = true
    case "--filter":
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("error: --filter needs a value\n".utf8))
            exit(2)
        }
        settings.filter = value
    case "--json":
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("error: --json needs a value\n".utf8))
            exit(2)
        }
        jsonPath = value
    case "--profile":
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("error: --profile needs a benchmark name\n".utf8))
            exit(2)
        }
        profileName = value
    case "--seconds":
        guard let value = arguments.popFirst(), let seconds = Int(value), (1...3600).contains(seconds) else {
            FileHandle.standardError.write(Data("error: --seconds needs a whole number of seconds, 1...3600\n".utf8))
            exit(2)
        }
        profileSeconds = seconds
    case "-h", "--help":
        print(help)
        exit(0)
    default:
        FileHandle.standardError.write(Data("error: unknown option \(argument)\n".utf8))
        exit(2)
    }
}

var all: [BenchmarkCase] = []
all += digestBenchmarks()
all += modexpBenchmarks()
all += srpBenchmarks()
all += signingBenchmarks()
all += cognitoBenchmarks()

if let profileName {
    guard let benchmark = all.first(where: { $0.name == profileName }) else {
        FileHandle.standardError.write(Data("error: no benchmark is named \(profileName)\n".utf8))
        exit(2)
    }
    let iterations = profileLoop(benchmark, seconds: profileSeconds)
    FileHandle.standardError.write(Data("\(benchmark.name): \(iterations) iterations in about \(profileSeconds) s\n".utf8))
    exit(0)
}

let selected = all.filter { benchmark in
    guard let filter = settings.filter else { return true }
    return benchmark.name.contains(filter)
}
if selected.isEmpty {
    FileHandle.standardError.write(Data("error: no benchmark matches the filter\n".utf8))
    exit(2)
}

// Group each engine row with its C twin (same base name), keeping the declaration order.
var groups: [[BenchmarkCase]] = []
for benchmark in selected {
    if let index = groups.firstIndex(where: { baseName($0[0].name) == baseName(benchmark.name) }) {
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
FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))

let machine = machineDescription()
print("AuthCore benchmarks — \(machine)\(settings.quick ? " (quick)" : "")")
print(renderTable(results))

if let jsonPath {
    let document: [String: Any] = ["machine": machine, "results": results.map(\.json)]
    do {
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: jsonPath))
    } catch {
        FileHandle.standardError.write(Data("error: cannot write \(jsonPath)\n".utf8))
        exit(1)
    }
}
