import AuthCore
import Foundation

extension HTTPBodyStream {
    /// A body produced by an async sequence of chunks (a generator, a stream of the app's): each
    /// send makes a fresh sequence with `makeSequence` and iterates it in a task of its own, one
    /// chunk ahead of the transport (back-pressure: the producer waits while a chunk is unsent).
    /// Empty chunks are skipped. With a known `length` the chunks must add up to it.
    ///
    /// - Parameters:
    ///   - length: the body's length in bytes, when known (else chunked transfer coding).
    ///   - idleLimit: how long the transport waits for the next chunk before it fails the request.
    ///   - makeSequence: a new sequence from the start of the body.
    public static func sequence<Chunks: AsyncSequence & Sendable>(
        length: Int?, idleLimit: Duration = .seconds(60), _ makeSequence: @escaping @Sendable () -> Chunks
    ) -> HTTPBodyStream where Chunks.Element == [UInt8] {
        HTTPBodyStream(length: length) { () throws(AuthCoreError) in AsyncSequenceChunks(makeSequence(), idleLimit: idleLimit) }
    }
}

/// The bridge from an async sequence to the transport's blocking reads: a task iterates the
/// sequence and hands each chunk over through a one-slot ``Mailbox``, suspended (not blocking a
/// thread of the cooperative pool) until the chunk is taken; `next()`, on the transport's own
/// thread, waits for it. When the reader goes (the request is sent or failed), the task is
/// cancelled and a producer waiting on the slot is released.
final class AsyncSequenceChunks: HTTPBodyChunks {
    private let mailbox: Mailbox
    private let task: Task<Void, Never>

    init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, idleLimit: Duration) where Chunks.Element == [UInt8] {
        let mailbox = Mailbox(idleLimit: idleLimit)
        self.mailbox = mailbox
        task = Task {
            do {
                for try await chunk in sequence where !chunk.isEmpty {
                    guard await mailbox.put(.chunk(chunk)) else { return }
                }
                _ = await mailbox.put(.finished)
            } catch {
                let failure = (error as? AuthCoreError) ?? AuthCoreError(.invalidParameter, "the body's sequence failed: \(type(of: error))")
                _ = await mailbox.put(.failed(failure))
            }
        }
    }

    deinit {
        task.cancel()
        mailbox.close()
    }

    func next() throws(AuthCoreError) -> [UInt8]? { try mailbox.take() }

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
        private let idleLimit: Duration

        init(idleLimit: Duration) { self.idleLimit = idleLimit }

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

        /// The next chunk, nil at the end, waiting at most the idle limit for it.
        func take() throws(AuthCoreError) -> [UInt8]? {
            let seconds = Double(idleLimit.components.seconds) + Double(idleLimit.components.attoseconds) / 1e18
            let deadline = Date(timeIntervalSinceNow: seconds)
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
                    guard condition.wait(until: deadline) || Date() < deadline else {
                        throw AuthCoreError(.timedOut, "the body's sequence produced nothing for \(idleLimit)")
                    }
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
