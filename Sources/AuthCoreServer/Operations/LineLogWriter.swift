import AuthCore
import AuthCoreHTTP
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``JSONLineLog``'s buffer and the thread that writes it: lines join the buffer under a lock; the
/// thread, woken by a batch's first line, lets the batch gather for ``JSONLineLog/batchInterval``
/// (less when the batch passes ``JSONLineLog/batchBytes``, a flush asks or the log closes), then
/// writes it whole. Writes are serialised by `writing`, taken before `pending` (by the thread, by an
/// announcement and by a log that could not start its thread), so lines go out in the order they
/// joined.
///
/// The thread holds this object, not the log: when the log is released it writes what is left
/// and ends. Without a thread (the system refused one) each batch is written on a serial Dispatch
/// queue instead, never by the caller.
final class LineLogWriter: @unchecked Sendable {
    // invariant (Sendable): mutable state is in `pending` (and `writing`'s cut-line flag), each
    // touched under its lock; `wake` is a semaphore.
    private struct Pending {
        /// Lines (and their bytes) not yet written: in `buffer` or being written.
        var lines = 0
        var bytes = 0
        var dropped = 0
        var held: Bool
        /// The next batch, line by line in order (no large buffer regrown under the lock), and how
        /// many counted lines (and bytes) it holds.
        var buffer: [(line: [UInt8], weight: Int)] = []
        var bufferLines = 0
        var bufferBytes = 0
        /// The thread was woken for the batch in `buffer` (set by its first line).
        var batchStarted = false
        /// The thread was woken to write at once (a large batch, a flush, the close).
        var urgent = false
        /// Flushes waiting for the lines queued before them.
        var flushes: [DispatchSemaphore] = []
        var closed = false
    }

    private let descriptor: Int32
    private let maximumPending: Int
    private let pending: Locked<Pending>
    /// Held while a batch is taken and written; its flag: a line was cut short, so the next write
    /// starts with a newline.
    private let writing = Locked(false)
    private let wake = DispatchSemaphore(value: 0)
    /// Without the writing thread, the queue that writes (nil with it).
    private let fallback: DispatchQueue?

    init(descriptor: Int32, maximumPending: Int, held: Bool) {
        self.descriptor = descriptor
        self.maximumPending = maximumPending
        pending = Locked(Pending(held: held))
        // The thread's body holds `self` until the close; it waits for `self` to be whole.
        let started = Locked<LineLogWriter?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let threaded = startDetachedThread {
            ready.wait()
            started.withLock { $0 }?.run()
            started.withLock { $0 = nil }
        }
        fallback = threaded ? nil : DispatchQueue(label: "authcore.server.log")
        if threaded {
            started.withLock { $0 = self }
            ready.signal()
        }
    }

    /// Wakes the writing thread (or queues a write on the fallback queue).
    private func signalWriter() {
        if let fallback { fallback.async { self.writeBatch() } } else { wake.signal() }
    }

    /// The writing thread: a batch at a time, until the log closes.
    private func run() {
        var waits = true
        while true {
            if waits { wake.wait() }
            let (urgent, closed) = pending.withLock { ($0.urgent, $0.closed) }
            // Let the batch gather, unless asked to write at once. A signal meanwhile ends the wait
            // and is used up: it can only be a flush's, a large batch's or the close's (no batch
            // starts before this one is taken), each asking for this write.
            if !urgent, !closed { _ = wake.wait(timeout: .now() + JSONLineLog.batchInterval) }
            writeBatch()
            // Closed: on until the buffer is empty, without waiting for a signal nobody will send.
            let (ended, empty) = pending.withLock { ($0.closed, $0.buffer.isEmpty) }
            if ended, empty { return }
            waits = !ended
        }
    }

    /// The count of lines dropped since the last line accepted, as a line of its own (weighing the
    /// lines it reports, counted again if it is lost itself); nothing when none were dropped.
    private static func reportDropped(_ pending: inout Pending) {
        guard pending.dropped > 0 else { return }
        let line = Array(#"{"dropped":\#(pending.dropped)}"#.utf8) + [0x0A]
        pending.buffer.append((line, pending.dropped))
        pending.bufferBytes += line.count
        pending.bytes += line.count
        pending.dropped = 0
    }

    /// The log is released: what is left is written, and the thread ends.
    func close() {
        pending.withLock {
            $0.closed = true
            $0.held = false
            $0.urgent = true
            Self.reportDropped(&$0)  // no later line would carry the count
        }
        signalWriter()
    }

    /// Writes `line` ahead of every line queued so far when the log is held, and releases it;
    /// otherwise queues it (not counted against the limits).
    func announce(_ line: [UInt8]) {
        let wasHeld = writing.withLock { cut -> Bool in
            let wasHeld = pending.withLock { pending in
                defer { pending.held = false }
                return pending.held
            }
            // Written before any queued line: the thread takes `writing` before it takes a batch.
            if wasHeld { _ = writeAll(line, cut: &cut) }
            return wasHeld
        }
        if wasHeld {
            writeSoon()
        } else {
            append(line, counted: false)
        }
    }

    /// Waits until every line queued so far is written, for at most `limit`; false when the limit
    /// came first. Releases a held log.
    func flush(within limit: Duration) -> Bool {
        let done = DispatchSemaphore(value: 0)
        pending.withLock {
            $0.held = false
            $0.flushes.append(done)
            Self.reportDropped(&$0)
        }
        writeSoon()
        return done.wait(timeout: .now() + DispatchTimeInterval(clamping: limit)) == .success
    }

    /// The thread writes the batch at once.
    private func writeSoon() {
        pending.withLock { $0.urgent = true }
        signalWriter()
    }

    /// Adds `line` to the next batch (a `counted` line within the limits, else dropped and counted)
    /// and wakes the thread for a batch's first line and for one grown past `batchBytes`.
    func append(_ line: [UInt8], counted: Bool) {
        let size = line.count
        let signal: Bool = pending.withLock { pending in
            if counted {
                guard pending.lines < maximumPending, pending.bytes + size <= JSONLineLog.maximumPendingBytes else {
                    pending.dropped += 1
                    return false
                }
                pending.lines += 1
                pending.bytes += size
                pending.bufferLines += 1
                pending.bufferBytes += size
                Self.reportDropped(&pending)
            }
            pending.buffer.append((line, counted ? 1 : 0))
            if !pending.batchStarted {
                pending.batchStarted = true
                return true
            }
            if pending.bufferBytes >= JSONLineLog.batchBytes, !pending.urgent {
                pending.urgent = true
                return true
            }
            return false
        }
        if signal { signalWriter() }
    }

    /// Writes the batch gathered so far (nothing while the log is held) and answers the flushes
    /// that were waiting for it.
    private func writeBatch() {
        writing.withLock { cut in
            let taken = pending.withLock {
                pending -> (
                    batch: [(line: [UInt8], weight: Int)], lines: Int, bytes: Int, flushes: [DispatchSemaphore]
                )? in
                guard !pending.held else { return nil }
                defer {
                    pending.buffer = []
                    pending.bufferLines = 0
                    pending.bufferBytes = 0
                    pending.batchStarted = false
                    pending.urgent = false
                    pending.flushes = []
                }
                return (pending.buffer, pending.bufferLines, pending.bufferBytes, pending.flushes)
            }
            guard let taken else { return }
            if !taken.batch.isEmpty {
                let written = writeAll(Array(taken.batch.lazy.map(\.line).joined()), cut: &cut)
                // Lines not written whole are lost: counted (a lost `dropped` line by its count), and
                // the next line says so.
                var end = 0
                var lost = 0
                for entry in taken.batch {
                    end += entry.line.count
                    if end > written { lost += entry.weight }
                }
                pending.withLock { pending in
                    pending.lines -= taken.lines
                    pending.bytes -= taken.bytes
                    pending.dropped += lost
                }
            }
            for flush in taken.flushes { flush.signal() }
        }
    }

    /// Writes all of `bytes`, retrying after a signal and waiting (up to a second each time) when a
    /// non-blocking descriptor is full; returns how many were written. A descriptor that fails drops
    /// the rest of the batch (the caller counts its lines as dropped); after a half line the next
    /// write starts on a new line (`cut`), so a half line never joins a whole one.
    private func writeAll(_ bytes: [UInt8], cut: inout Bool) -> Int {
        if cut {
            var newline: UInt8 = 0x0A
            guard write(descriptor, &newline, 1) == 1 else { return 0 }
            cut = false
        }
        let written = bytes.withUnsafeBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    var wait = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    guard poll(&wait, 1, 1000) == 1 else { return offset }
                } else {
                    return offset
                }
            }
            return offset
        }
        // A line cut short: the next one starts on a new line.
        if written > 0, written < bytes.count, bytes[written - 1] != 0x0A { cut = true }
        return written
    }
}
