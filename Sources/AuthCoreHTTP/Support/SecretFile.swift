public import AuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file that holds secrets (tokens, device passwords): read and written with the checks a
/// credentials file needs.
///
/// - Written by atomic replace: a fresh file in the same directory (`O_CREAT | O_EXCL`, mode 0600
///   from the start, never wider), `fsync`, then `rename` over the old one, so a crash leaves the old
///   contents or the new, never a torn file; the written bytes are wiped from memory afterwards.
/// - Read only if it is a regular file (not a symlink: `O_NOFOLLOW`) of the current user that no
///   group or other user may read or write, and of at most ``byteLimit`` bytes (by default
///   ``maximumBytes``, 1 MiB); the bytes come into wiping storage.
public struct SecretFile: Sendable {
    /// The path.
    public let path: String
    /// The largest file read by default: 1 MiB.
    public static let maximumBytes = 1 << 20
    /// The largest file this one reads or writes.
    public let byteLimit: Int

    /// A secret file at `path` of at most `byteLimit` bytes (1 byte … 64 MiB).
    public init(path: String, byteLimit: Int = SecretFile.maximumBytes) throws(AuthCoreError) {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw AuthCoreError(.invalidParameter, "the store path is empty or holds NUL")
        }
        guard (1...(64 << 20)).contains(byteLimit) else {
            throw AuthCoreError(.invalidParameter, "a secret file's limit is 1 byte to 64 MiB")
        }
        self.path = path
        self.byteLimit = byteLimit
    }

    /// The contents, or nil when there is no file.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a file that is not a regular
    ///   file, belongs to another user or is readable or writable by others;
    ///   `AuthCoreError.Code.inputTooLarge` above ``byteLimit``;
    ///   `AuthCoreError.Code.malformedInput` when it cannot be read.
    public func read() throws(AuthCoreError) -> SecureBytes? {
        // O_NONBLOCK: a FIFO or device at the path must not block the open before the type check.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw AuthCoreError(.malformedInput, "\(path): cannot open (\(systemErrorText(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw AuthCoreError(.malformedInput, "\(path): cannot stat") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw AuthCoreError(.invalidParameter, "\(path) is not a regular file")
        }
        guard status.st_uid == geteuid() else {
            throw AuthCoreError(.invalidParameter, "\(path) belongs to another user")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw AuthCoreError(
                .invalidParameter,
                "\(path) is accessible to other users (mode \(String(status.st_mode & 0o777, radix: 8))); it must be 0600"
            )
        }
        guard status.st_size >= 0, status.st_size <= byteLimit else {
            throw AuthCoreError(.inputTooLarge, "\(path) is larger than \(byteLimit) bytes")
        }
        // One byte more than fstat's size, to notice a file that grew after it.
        var total = 0
        var complete = false
        let contents = SecureBytes(count: Int(status.st_size) + 1) { buffer in
            while total < buffer.count {
                let count = systemRead(descriptor, buffer.baseAddress! + total, buffer.count - total)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { return }
                if count == 0 { break }
                total += count
            }
            complete = true
        }
        guard complete else { throw AuthCoreError(.malformedInput, "\(path): read failed") }
        guard total <= byteLimit, total <= Int(status.st_size) else {
            throw AuthCoreError(.inputTooLarge, "\(path) grew while it was read, or is larger than \(byteLimit) bytes")
        }
        return contents.prefix(total)
    }

    /// Replaces the contents atomically (see the type's documentation).
    ///
    /// - Throws: `AuthCoreError.Code.inputTooLarge` above ``byteLimit``,
    ///   `AuthCoreError.Code.invalidParameter` when the file cannot be written; the old
    ///   contents then stay.
    public func write(_ contents: SecureBytes) throws(AuthCoreError) {
        guard contents.count <= byteLimit else {
            throw AuthCoreError(.inputTooLarge, "the store contents exceed \(byteLimit) bytes")
        }
        var suffix: UInt64 = 0
        try withUnsafeMutableBytes(of: &suffix) { buffer throws(AuthCoreError) in try SystemRandom().fill(buffer) }
        let temporary = "\(path).tmp-\(String(suffix, radix: 16))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AuthCoreError(
                .invalidParameter,
                "\(path): cannot create a file next to it (\(systemErrorText(errno)))"
            )
        }
        let written: Bool = contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        let writeErrno = errno
        let closed = close(descriptor) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let reason = systemErrorText(written ? errno : writeErrno)
            unlink(temporary)
            throw AuthCoreError(.invalidParameter, "\(path): cannot write (\(reason)); the old contents stay")
        }
        syncDirectory()
    }

    /// Makes a rename or unlink in the file's directory durable (best effort: a directory that cannot
    /// be opened leaves the change atomic, only perhaps not yet on disk).
    private func syncDirectory() {
        let directory = path.cutOnce(atLast: UInt8(ascii: "/")).map { $0.before.isEmpty ? "/" : $0.before } ?? "."
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    /// Removes the file (no error when there is none).
    public func remove() throws(AuthCoreError) {
        guard unlink(path) == 0 else {
            guard errno == ENOENT else {
                throw AuthCoreError(.invalidParameter, "\(path): cannot remove (\(systemErrorText(errno)))")
            }
            return
        }
        syncDirectory()
    }
}

// The C calls under other names: inside `SecretFile`, `read` and `write` name its methods.
#if canImport(Glibc)
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif
