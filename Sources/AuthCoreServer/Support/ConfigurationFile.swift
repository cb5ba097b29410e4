import AuthCore
import Foundation

/// Reading the server's files that are not secret (configuration, verifier tables, certificates):
/// at most `limit` bytes, and a clear error naming the file, never its contents.
enum ConfigurationFile {
    /// The bytes of `path`.
    ///
    /// - Throws: `AuthCoreError` `.malformedInput` when the file cannot be read, `.inputTooLarge`
    ///   above `limit` bytes.
    static func read(_ path: String, limit: Int, what: String) throws(AuthCoreError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AuthCoreError(.malformedInput, "\(what) \(path) cannot be read")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit + 1) else {
            throw AuthCoreError(.malformedInput, "\(what) \(path) cannot be read")
        }
        guard data.count <= limit else {
            throw AuthCoreError(.inputTooLarge, "\(what) \(path) is larger than \(limit) bytes")
        }
        return Array(data)
    }
}
