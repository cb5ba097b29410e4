public import AuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The chunks of a request body as the transport sends them, produced one at a time.
///
/// Read on the transport's own thread (``HTTP1Transport`` runs its exchanges on blocking threads),
/// by one exchange at a time.
public protocol HTTPBodyChunks: AnyObject {
    /// The next chunk (never empty), or nil at the end.
    func next() throws(AuthCoreError) -> [UInt8]?

    /// The next chunk, for a transport that bounds its waits: a source that waits for a producer
    /// (``HTTPBodyStream/sequence(length:idleLimit:_:)``) waits at most `limit`, and stops waiting
    /// once `isStopped()` says the call was cancelled or ran out of time. By default ``next()``: a
    /// source that reads memory or a file does not wait on anyone.
    func next(waitingAtMost limit: Duration, isStopped: () -> Bool) throws(AuthCoreError) -> [UInt8]?
}

extension HTTPBodyChunks {
    public func next(waitingAtMost limit: Duration, isStopped: () -> Bool) throws(AuthCoreError) -> [UInt8]? {
        try next()
    }
}

/// A request body sent as it is produced, in constant memory: a file, or chunks of the caller's
/// (``HTTPBody/stream(_:)``). With a known ``length`` it goes out with `Content-Length` (and a
/// source that ends early or late fails the request); without one, with `Transfer-Encoding:
/// chunked` (RFC 9112 §7.1).
///
/// Each send opens the body afresh (``open``), so a redirect that repeats the body, a stale
/// connection's retry and a re-signed attempt each send it whole.
public struct HTTPBodyStream: Sendable, CustomStringConvertible {
    /// The body's length in bytes, when known.
    public let length: Int?
    /// A new reader from the start of the body.
    public let open: @Sendable () throws(AuthCoreError) -> any HTTPBodyChunks

    /// A body of `length` bytes (nil: unknown) read through `open`.
    public init(length: Int?, open: @escaping @Sendable () throws(AuthCoreError) -> any HTTPBodyChunks) {
        self.length = length
        self.open = open
    }

    /// The size only.
    public var description: String { length.map { "HTTPBodyStream(\($0) bytes)" } ?? "HTTPBodyStream(length unknown)" }

    /// The bytes of the file at `path`, read 64 KiB at a time; its size when this is made is the
    /// length (a file that changes size while it is sent fails the request).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when the path is not a readable regular file.
    public static func file(_ path: String, chunkSize: Int = 64 << 10) throws(AuthCoreError) -> HTTPBodyStream {
        let size = try FileChunks.regularFileSize(path)
        let chunk = Swift.min(Swift.max(1, chunkSize), 16 << 20)
        return HTTPBodyStream(length: size) { () throws(AuthCoreError) in
            try FileChunks(path: path, expectedSize: size, chunkSize: chunk)
        }
    }
}

/// `read(2)`, where a method named `read` would hide it.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, where a method named `write` would hide it.
private func writeDescriptor(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// A file read in chunks from an open descriptor, closed when the reader goes.
package final class FileChunks: HTTPBodyChunks {
    private let descriptor: Int32
    private let path: String
    private let expectedSize: Int
    private let chunkSize: Int
    private var sent = 0

    package init(path: String, expectedSize: Int, chunkSize: Int) throws(AuthCoreError) {
        // Opened without blocking (a FIFO put in the file's place would block an open for ever),
        // then checked to be the regular file of the size announced, then read blocking.
        let opened = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else {
            throw AuthCoreError(.invalidParameter, "\(path) cannot be opened: \(systemErrorText(errno))")
        }
        var info = stat()
        let flags = fcntl(opened, F_GETFL)
        guard fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == expectedSize,
            flags >= 0,
            fcntl(opened, F_SETFL, flags & ~O_NONBLOCK) == 0
        else {
            close(opened)
            throw AuthCoreError(
                .invalidParameter,
                "\(path) is no longer the regular file of \(expectedSize) bytes it was when the request was made"
            )
        }
        descriptor = opened
        self.path = path
        self.expectedSize = expectedSize
        self.chunkSize = chunkSize
    }

    deinit { close(descriptor) }

    /// The size of the regular file at `path`.
    package static func regularFileSize(_ path: String) throws(AuthCoreError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AuthCoreError(.invalidParameter, "\(path) cannot be read: \(systemErrorText(errno))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw AuthCoreError(.invalidParameter, "\(path) is not a regular file")
        }
        return Int(info.st_size)
    }

    package func next() throws(AuthCoreError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var count = 0
        while count < chunkSize {
            let read = chunk.withUnsafeMutableBytes {
                readDescriptor(descriptor, $0.baseAddress! + count, chunkSize - count)
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw AuthCoreError(.invalidParameter, "\(path) cannot be read: \(systemErrorText(errno))")
            }
            if read == 0 { break }
            count += read
        }
        sent += count
        guard sent <= expectedSize, count > 0 || sent == expectedSize else {
            throw AuthCoreError(
                .invalidParameter,
                "\(path) changed size while it was sent (\(expectedSize) bytes when the request was made)"
            )
        }
        guard count > 0 else { return nil }
        chunk.removeLast(chunkSize - count)
        return chunk
    }
}

/// Where the body of a successful answer goes as it arrives, instead of into memory
/// (``HTTPRequest/responseSink``): a file, or a consumer of the caller's. The request's
/// ``HTTPRequest/maximumResponseBytes`` still caps it, as a policy rather than a buffer.
///
/// Used by one exchange at a time; an answer that is not 2xx (an error document, a redirect) is
/// read into memory as usual.
public final class HTTPResponseSink: @unchecked Sendable {
    // invariant (Sendable): one exchange at a time calls write/finish/abandon, on its thread.
    private let consume: (UnsafeRawBufferPointer) throws(AuthCoreError) -> Void
    private let complete: () throws(AuthCoreError) -> Void
    private let discard: () -> Void
    /// The body bytes written so far.
    public private(set) var count = 0

    /// A sink that hands each piece of the body to `consumer` (which must not keep the pointer).
    public init(consumer: @escaping (UnsafeRawBufferPointer) throws(AuthCoreError) -> Void) {
        consume = consumer
        complete = {}
        discard = {}
    }

    private init(
        consume: @escaping (UnsafeRawBufferPointer) throws(AuthCoreError) -> Void,
        complete: @escaping () throws(AuthCoreError) -> Void,
        discard: @escaping () -> Void
    ) {
        self.consume = consume
        self.complete = complete
        self.discard = discard
    }

    /// A sink that writes the body to `path` (mode 0600): into a new file beside it, renamed over
    /// `path` once the whole body has arrived, and removed if it does not; so `path` holds a whole
    /// body or what it held before. An empty 2xx body (a `PUT`'s answer) gives an empty file.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when `path` is a directory or its directory
    ///   is not writable (checked now, before any request is sent).
    public static func file(_ path: String) throws(AuthCoreError) -> HTTPResponseSink {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw AuthCoreError(.invalidParameter, "\(path) is a directory")
        }
        let directory = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? "."
        guard access(directory.isEmpty ? "/" : directory, W_OK) == 0 else {
            throw AuthCoreError(.invalidParameter, "\(path): its directory is not writable: \(systemErrorText(errno))")
        }
        // The file beside it is created when the first byte (or the end of an empty body) arrives,
        // under a new name for each attempt: an answer that never comes leaves nothing behind, and
        // an abandoned attempt can never remove a later one's file.
        let state = Locked<(descriptor: Int32, partial: String)?>(nil)
        func current() throws(AuthCoreError) -> (descriptor: Int32, partial: String) {
            if let open = state.withLock({ $0 }) { return open }
            var random = [UInt8](repeating: 0, count: 8)
            try random.withUnsafeMutableBytesTyped { (raw) throws(AuthCoreError) in try SystemRandom().fill(raw) }
            let partial = path + ".partial-" + random.map { String($0, radix: 16) }.joined()
            let created = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard created >= 0 else {
                throw AuthCoreError(
                    .invalidParameter,
                    "\(path): cannot create a file beside it: \(systemErrorText(errno))"
                )
            }
            state.withLock { $0 = (created, partial) }
            return (created, partial)
        }
        func take() -> (descriptor: Int32, partial: String)? {
            state.withLock { state in
                defer { state = nil }
                return state
            }
        }
        return HTTPResponseSink(
            consume: { (bytes) throws(AuthCoreError) in
                let file = try current().descriptor
                var offset = 0
                while offset < bytes.count {
                    // invariant: offset < count
                    let written = writeDescriptor(file, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw AuthCoreError(
                            .invalidParameter,
                            "\(path): cannot write the body: \(systemErrorText(errno))"
                        )
                    }
                    offset += written
                }
            },
            complete: { () throws(AuthCoreError) in
                _ = try current()
                guard let (file, partial) = take() else { return }
                let synced = fsync(file) == 0
                let why = systemErrorText(errno)
                _ = close(file)
                guard synced else {
                    _ = unlink(partial)
                    throw AuthCoreError(.invalidParameter, "\(path): cannot write the body: \(why)")
                }
                guard rename(partial, path) == 0 else {
                    let why = systemErrorText(errno)
                    _ = unlink(partial)
                    throw AuthCoreError(.invalidParameter, "\(path): cannot put the body in place: \(why)")
                }
            },
            discard: {
                guard let (file, partial) = take() else { return }
                _ = close(file)
                _ = unlink(partial)
            }
        )
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(AuthCoreError) {
        try consume(bytes)
        count += bytes.count
    }

    package func finish() throws(AuthCoreError) { try complete() }

    package func abandon() { discard() }
}
