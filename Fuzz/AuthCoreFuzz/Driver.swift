import AuthCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes to stderr unbuffered (no shared `FILE *`).
func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

/// One fuzz target: a name and a function of the input bytes.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
}

/// The target libFuzzer's callback runs (set once, before fuzzing starts, from `main`).
nonisolated(unsafe) var selectedTarget: FuzzTarget?

/// A disagreement with a target's oracle: printed, then abort (libFuzzer saves the input).
func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    writeStandardError("authcore-fuzz: \(selectedTarget?.name ?? "?"): \(message()) (\(file):\(line))\n")
    abort()
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selectedTarget else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target.run(bytes)
    return 0
}

#if AUTHCORE_LIBFUZZER
/// `LLVMFuzzerRunDriver` (libFuzzer, LLVM 11+): runs libFuzzer with our own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

func runLibFuzzer(_ arguments: [String]) -> Int32 {
    var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    var argc = Int32(arguments.count)
    return cStrings.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) }
    }
}
#endif

/// Runs `target` once on every file given (directories: every file inside, sorted); prints a count.
func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
    var files: [String] = []
    for path in paths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            writeStandardError("authcore-fuzz: no such file or directory: \(path)\n")
            return 2
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files += names.sorted().map { "\(path)/\($0)" }
        } else {
            files.append(path)
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else {
            writeStandardError("authcore-fuzz: cannot read \(file)\n")
            return 2
        }
        target.run([UInt8](data))
    }
    print("\(target.name): \(files.count) inputs replayed, no failure")
    return 0
}

/// Runs an async body to completion from the synchronous fuzz callback.
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// Reads structured values off the fuzz input (nothing left: zeros and empty strings).
struct ByteReader {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var isAtEnd: Bool { index >= bytes.count }
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }
    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }
    /// Bytes up to the next `separator` (dropped) or the end.
    mutating func field(_ separator: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            if b == separator { break }
            out.append(b)
        }
        return out
    }
    mutating func string(_ separator: UInt8 = 0) -> String { String(decoding: field(separator), as: UTF8.self) }
    /// The next `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let end = Swift.min(bytes.count, index + count)
        defer { index = Swift.max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }
    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }
}
