import AuthCore
import AuthCoreClients
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `text` to a file descriptor (unbuffered, so stdout and stderr interleave in order).
func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)  // invariant: count > 0 in loop
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Writes bytes to stdout.
func writeOut(bytes: [UInt8]) {
    bytes.withUnsafeBytes { writeOut(raw: $0) }
}

/// Writes raw bytes to stdout.
func writeOut(raw buffer: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < buffer.count {
        let n = write(1, buffer.baseAddress! + offset, buffer.count - offset)  // invariant: count > 0 in loop
        if n <= 0 { return }
        offset += n
    }
}

/// Prints `value` as one line of JSON, with the placeholders of `secrets` replaced by their
/// secrets straight from wiping storage (no `String` of a secret is made).
func printJSON(_ value: JSONValue, secrets: SecretJSONValues) throws {
    let line = try secrets.splice(into: Array((try jsonText(value) + "\n").utf8))
    line.withUnsafeBytes { writeOut(raw: $0) }
}

/// Writes a line to stderr.
func printError(_ line: String) {
    writeAll(2, line.hasSuffix("\n") ? line : line + "\n")
}

/// Writes a line to stdout.
func printOut(_ text: String) {
    writeAll(1, text.hasSuffix("\n") ? text : text + "\n")
}

/// Reads a whole regular file, refusing one larger than `limit` bytes without reading it all
/// (a file option must not make the process read an unbounded file or a device).
func readFile(_ path: String, limit: Int, option: String) throws(UsageError) -> [UInt8] {
    // "-" is standard input (the usual convention: `--data-file -`).
    let isStandardInput = path == "-"
    let fd = isStandardInput ? 0 : open(path, O_RDONLY)
    guard fd >= 0, !path.isEmpty else { throw UsageError("cannot read \(option) '\(path)'") }
    defer { if !isStandardInput { close(fd) } }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { throw UsageError("cannot read \(option) \(path)") }
        if n == 0 { break }
        guard n <= limit - bytes.count else { throw UsageError("\(option) \(path) is larger than \(limit) bytes") }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return bytes
}

/// An environment variable, with an empty value counted as unset (design.md).
func environment(_ name: String) -> String? {
    guard let raw = getenv(name) else { return nil }
    let value = String(cString: raw)
    return value.isEmpty ? nil : value
}

/// A JSON value as the CLI prints it: compact, keys sorted, `/` escaped (as JSONSerialization wrote
/// it before; scripts compare these lines).
func jsonText(_ value: JSONValue) throws -> String {
    String(decoding: try ServiceJSON.encoder(keys: .asDeclared).encode(value), as: UTF8.self)
}

/// Prints `credentials` in the AWS CLI's `credential_process` format (Version 1; `Expiration` and
/// `SessionToken` only when there are some), the secret key spliced in from its wiping storage: the
/// output a consuming tool's `credential_process` line reads, so secrets are included.
func printCredentialProcessJSON(_ credentials: Credentials) throws {
    var secrets = try SecretJSONValues()
    // bytes-lint: an output document's member names (fixed ASCII).
    var object: [String: JSONValue] = [
        "Version": 1, "AccessKeyId": .string(credentials.accessKeyId),
        "SecretAccessKey": .string(secrets.placeholder(for: credentials.secretAccessKey)),
    ]
    if let expires = credentials.expiration { object["Expiration"] = .string(expires.iso8601) }
    if let token = credentials.sessionToken { object["SessionToken"] = .string(token) }
    try printJSON(.object(object), secrets: secrets)
}
