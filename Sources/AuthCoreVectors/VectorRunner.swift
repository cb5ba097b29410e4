import AuthCore
import Foundation

/// Reads vector files (vectors.md) and checks every case against AuthCore.
///
/// Prints `PASS file (N cases)` for a file whose cases all pass, one
/// `FAIL file: case NAME: field: expected X got Y` line per failing case, and ends with
/// `N passed, M failed` (N and M count cases). A file that cannot be read or parsed, or has an
/// unknown `kind`, counts as one failed case.
public struct VectorRunner: Sendable {
    /// The kinds to check, by name.
    public let kinds: [String: any VectorKind]
    /// The largest file read, in bytes.
    public static let maximumFileBytes = 64 << 20

    /// A runner for `kinds` (default: every kind this build supports).
    public init(kinds: [String: any VectorKind] = VectorKinds.all) { self.kinds = kinds }

    /// Totals of one run.
    public struct Summary: Sendable, Equatable {
        /// Cases that passed.
        public var passed = 0
        /// Cases that failed (an unreadable file counts as one).
        public var failed = 0
        /// Totals.
        public init(passed: Int = 0, failed: Int = 0) {
            self.passed = passed
            self.failed = failed
        }
        /// The final line.
        public var line: String { "\(passed) passed, \(failed) failed" }
    }

    /// Checks every `*.json` file under `paths` (directories recurse, sorted by path), reporting
    /// each line through `emit`, and returns the totals. The final summary line is emitted too.
    public func run(paths: [String], emit: (String) -> Void) -> Summary {
        var summary = Summary()
        for path in paths {
            let files: [String]
            do { files = try Self.jsonFiles(under: path) } catch {
                emit("FAIL \(path): \(error.problem)")
                summary.failed += 1
                continue
            }
            if files.isEmpty {
                emit("FAIL \(path): no *.json vector files found")
                summary.failed += 1
            }
            for file in files { check(file: file, into: &summary, emit: emit) }
        }
        emit(summary.line)
        return summary
    }

    /// Checks one file's bytes (for tests and for callers with in-memory data).
    public func check(name: String, data: [UInt8], into summary: inout Summary, emit: (String) -> Void) {
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            emit("FAIL \(name): not valid JSON")
            summary.failed += 1
            return
        }
        guard case .object = parsed else {
            emit("FAIL \(name): top level is not a JSON object")
            summary.failed += 1
            return
        }
        guard case .string(let kindName)? = parsed["kind"] else {
            emit("FAIL \(name): kind: missing required field")
            summary.failed += 1
            return
        }
        guard let kind = kinds[kindName] else {
            emit("FAIL \(name): kind: unsupported kind '\(kindName)'")
            summary.failed += 1
            return
        }
        guard case .array(let cases)? = parsed["cases"] else {
            emit("FAIL \(name): cases: missing required field (an array)")
            summary.failed += 1
            return
        }
        if cases.isEmpty {
            emit("FAIL \(name): cases: no cases")
            summary.failed += 1
            return
        }
        var failures = 0
        for (index, json) in cases.enumerated() {
            let vectorCase = VectorCase(json: json, index: index)
            do throws(CaseFailure) {
                guard case .object = json else { throw CaseFailure.invalid("case", "not a JSON object") }
                try kind.check(vectorCase)
                summary.passed += 1
            } catch {
                emit("FAIL \(name): case \(vectorCase.name): \(error.message)")
                failures += 1
                summary.failed += 1
            }
        }
        if failures == 0 { emit("PASS \(name) (\(cases.count) cases)") }
    }

    private func check(file: String, into summary: inout Summary, emit: (String) -> Void) {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            if let size = attributes[.size] as? Int, size > Self.maximumFileBytes {
                emit("FAIL \(file): file larger than \(Self.maximumFileBytes) bytes")
                summary.failed += 1
                return
            }
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            emit("FAIL \(file): cannot read file")
            summary.failed += 1
            return
        }
        check(name: file, data: [UInt8](data), into: &summary, emit: emit)
    }

    struct PathProblem: Error { let problem: String }

    static func jsonFiles(under path: String) throws(PathProblem) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PathProblem(problem: "no such file or directory")
        }
        guard isDirectory.boolValue else { return [path] }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            throw PathProblem(problem: "cannot list directory")
        }
        var files: [String] = []
        while let entry = enumerator.nextObject() as? String {
            if entry.hasSuffix(".json") {
                let full = path.hasSuffix("/") ? path + entry : path + "/" + entry
                var entryIsDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: full, isDirectory: &entryIsDirectory),
                    !entryIsDirectory.boolValue
                {
                    files.append(full)
                }
            }
        }
        return files.sorted()
    }
}
