import Foundation

/// Python reference rows (`py.*`), measured by scripts in the project's venv and reported as JSON.
/// Each script prints one JSON object per line:
/// `{"name":…,"unit":"ns","median":…,"p10":…,"p25":…,"p75":…,"p90":…,"p99":…,"iterations":…}`.
let pythonReferenceScripts: [(script: String, arguments: [String], names: [String])] = [
    ("scripts/bench_botocore.py", [], ["py.sigv4.sign.get"]),
    ("scripts/bench_pycognito.py", [], ["py.cognito.login.client"]),
    ("scripts/bench_pycognito.py", ["--prepared"], ["py.cognito.login.client.prepared"]),
]

func pythonReferenceResults(settings: HarnessSettings) -> [BenchmarkResult] {
    var results: [BenchmarkResult] = []
    let python = ProcessInfo.processInfo.environment["AUTHCORE_VENV"].map { $0 + "/bin/python" } ?? ".venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else { return [] }
    for reference in pythonReferenceScripts {
        if let filter = settings.filter, !reference.names.contains(where: { $0.contains(filter) }) { continue }
        guard FileManager.default.fileExists(atPath: reference.script) else { continue }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [reference.script] + reference.arguments + (settings.quick ? ["--quick"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        FileHandle.standardError.write(Data("\r[python] \(reference.script)\u{1B}[K".utf8))
        do { try process.run() } catch { continue }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { continue }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = object["name"] as? String, let median = object["median"] as? Double
            else { continue }
            results.append(
                BenchmarkResult(
                    name: name,
                    percentiles: pythonPercentiles(object, median: median),
                    iterations: object["iterations"] as? Int ?? 0,
                    statistics: pythonStatistics(object),
                    note: object["note"] as? String ?? ""
                )
            )
        }
    }
    return results
}

/// The percentiles a reference script reported (a missing one is taken as the median).
private func pythonPercentiles(_ object: [String: Any], median: Double) -> Percentiles {
    func value(_ key: String) -> Double { (object[key] as? NSNumber)?.doubleValue ?? median }
    return Percentiles(
        p10: value("p10"),
        p25: value("p25"),
        p50: median,
        p75: value("p75"),
        p90: value("p90"),
        p99: value("p99")
    )
}

/// The spread a reference script reported, when it reported all of it.
private func pythonStatistics(_ object: [String: Any]) -> SampleStatistics? {
    guard let minimum = (object["min"] as? NSNumber)?.doubleValue,
        let maximum = (object["max"] as? NSNumber)?.doubleValue,
        let mean = (object["mean"] as? NSNumber)?.doubleValue,
        let deviation = (object["stddev"] as? NSNumber)?.doubleValue,
        let count = (object["samples"] as? NSNumber)?.intValue
    else { return nil }
    return SampleStatistics(minimum: minimum, maximum: maximum, mean: mean, standardDeviation: deviation, count: count)
}
