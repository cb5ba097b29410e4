import AuthCore
import Foundation

extension HTTPBodyStream {
    /// A body produced by an async sequence of chunks (a generator, a stream of the app's): each
    /// send makes a fresh sequence with `makeSequence` and iterates it in a task of its own, one
    /// chunk ahead of the transport (back-pressure: the producer waits while a chunk is unsent).
    /// Empty chunks are skipped. With a known `length` the chunks must add up to it.
    ///
    /// A request may be sent more than once (a retry on a new connection, a redirect, a re-signed
    /// attempt), so `makeSequence` must start the body again each time: a sequence that can be
    /// iterated once (an `AsyncStream` made outside the closure) ends at once the second time, and a
    /// send that does not give the bytes the first one gave fails rather than send a shorter body.
    ///
    /// - Parameters:
    ///   - length: the body's length in bytes, when known (else chunked transfer coding).
    ///   - idleLimit: how long the transport waits for the next chunk before it fails the request
    ///     (never longer than the transport's own limits, and not past a cancellation).
    ///   - makeSequence: a new sequence from the start of the body.
    public static func sequence<Chunks: AsyncSequence & Sendable>(
        length: Int?,
        idleLimit: Duration = .seconds(60),
        _ makeSequence: @escaping @Sendable () -> Chunks
    ) -> HTTPBodyStream where Chunks.Element == [UInt8] {
        let firstPass = Locked<Int?>(nil)
        return HTTPBodyStream(length: length) { () throws(AuthCoreError) in
            AsyncSequenceChunks(makeSequence(), idleLimit: idleLimit, firstPass: firstPass)
        }
    }
}

/// The bridge from an async sequence to the transport's blocking reads: a task iterates the
/// sequence and hands each chunk over through a one-slot ``Mailbox``, suspended (not blocking a
/// thread of the cooperative pool) until the chunk is taken; the transport's own thread waits for
/// it, in slices, so a cancelled or timed-out call stops waiting. When the reader goes (the request
/// is sent or failed), the task is cancelled and a producer waiting on the slot is released.
final class AsyncSequenceChunks: HTTPBodyChunks {
    private let mailbox: Mailbox
    private let task: Task<Void, Never>
    private let idleLimit: Duration
    /// The bytes the first complete pass gave (shared by every pass over this body).
    private let firstPass: Locked<Int?>
    private var total = 0

    init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, idleLimit: Duration, firstPass: Locked<Int?>)
    where Chunks.Element == [UInt8] {
        let mailbox = Mailbox()
        self.mailbox = mailbox
        self.idleLimit = idleLimit
        self.firstPass = firstPass
        task = Task {
            do {
                for try await chunk in sequence where !chunk.isEmpty {
                    guard await mailbox.put(.chunk(chunk)) else { return }
                }
                _ = await mailbox.put(.finished)
            } catch {
                let failure =
                    (error as? AuthCoreError)
                    ?? AuthCoreError(.invalidParameter, "the body's sequence failed: \(type(of: error))")
                _ = await mailbox.put(.failed(failure))
            }
        }
    }

    deinit {
        task.cancel()
        mailbox.close()
    }

    func next() throws(AuthCoreError) -> [UInt8]? { try next(waitingAtMost: idleLimit, isStopped: { false }) }

    func next(waitingAtMost limit: Duration, isStopped: () -> Bool) throws(AuthCoreError) -> [UInt8]? {
        guard let chunk = try mailbox.take(waitingAtMost: Swift.min(limit, idleLimit), isStopped: isStopped) else {
            let expected = firstPass.withLock { first in
                if first == nil { first = total }
                return first
            }
            guard expected == total else {
                throw AuthCoreError(
                    .invalidParameter,
                    "the body's sequence gave \(total) bytes, not the \(expected ?? 0) of its first pass (makeSequence must start the body again)"
                )
            }
            return nil
        }
        total += chunk.count
        return chunk
    }

    /// One chunk between the producing task and the reading thread.
    final class Mailbox: @unchecked Sendable {
        // invariant (Sendable): every stored property is read and written under `condition`.
        enum Slot {
            case empty
            case chunk([UInt8])
            case finished
            case failed(AuthCoreError)
        }
        private let condition = NSCondition()
        private var slot = Slot.empty
        private var closed = false
        private var producer: CheckedContinuation<Bool, Never>?

        /// Puts `value` in the (empty) slot; for a chunk, returns once it is taken: true, or false
        /// when the reader is gone.
        func put(_ value: Slot) async -> Bool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                condition.lock()
                defer { condition.unlock() }
                guard !closed else { return continuation.resume(returning: false) }
                slot = value
                condition.broadcast()
                if case .chunk = value { producer = continuation } else { continuation.resume(returning: true) }
            }
        }

        /// The next chunk, nil at the end; waits at most `limit` (on the monotonic clock, in slices
        /// of at most 100 ms so that `isStopped` is seen).
        func take(waitingAtMost limit: Duration, isStopped: () -> Bool) throws(AuthCoreError) -> [UInt8]? {
            let deadline = ContinuousClock.now + limit
            condition.lock()
            defer { condition.unlock() }
            while true {
                switch slot {
                case .chunk(let chunk):
                    slot = .empty
                    producer?.resume(returning: true)
                    producer = nil
                    return chunk
                case .finished: return nil
                case .failed(let error): throw error
                case .empty:
                    if isStopped() {
                        throw AuthCoreError(
                            .cancelled,
                            "the body's sequence: the call was stopped while waiting for it"
                        )
                    }
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else {
                        throw AuthCoreError(.timedOut, "the body's sequence produced nothing for \(limit)")
                    }
                    let slice = Swift.min(left, .milliseconds(100))
                    _ = condition.wait(
                        until: Date(
                            timeIntervalSinceNow: Double(slice.components.attoseconds) / 1e18
                                + Double(slice.components.seconds)
                        )
                    )
                }
            }
        }

        /// The reader is gone: a waiting producer is released, and later chunks are refused.
        func close() {
            condition.lock()
            defer { condition.unlock() }
            closed = true
            producer?.resume(returning: false)
            producer = nil
        }
    }
}
