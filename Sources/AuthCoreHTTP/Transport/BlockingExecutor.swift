import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bounded set of threads for blocking work (name lookups, `connect`, `SSL_read`): the transport's
/// exchanges run here, never on the concurrency pool, and no longer on a new thread each.
///
/// Threads start as work arrives, up to ``maximumThreads``; a thread that has waited
/// ``idleThreadLifetime`` with nothing to do ends. Work beyond the bound waits in order for a free
/// thread (each exchange has its own deadline, which its watchdog enforces while it waits; an
/// exchange whose call has ended by then finds its cancellation set and returns at once).
/// SIGPIPE is blocked on every thread: OpenSSL writes with `write(2)`, which raises it when the peer
/// has gone; blocked, the write fails with EPIPE instead.
final class BlockingExecutor: @unchecked Sendable {
    // invariant (Sendable): `queue`, `threads` and `idleThreads` are only touched under `condition`.
    private let condition = NSCondition()
    private var queue: [(id: UInt64, job: @Sendable () -> Void)] = []
    private var head = 0
    private var nextId: UInt64 = 0
    private var threads = 0
    private var idleThreads = 0

    /// The most threads running at once.
    let maximumThreads: Int
    /// How long an idle thread waits for work before it ends.
    let idleThreadLifetime: TimeInterval

    /// The process-wide executor of the default transports: 64 threads at most.
    static let shared = BlockingExecutor(maximumThreads: 64, idleThreadLifetime: 10)

    init(maximumThreads: Int, idleThreadLifetime: TimeInterval) {
        self.maximumThreads = Swift.max(1, maximumThreads)
        self.idleThreadLifetime = idleThreadLifetime
    }

    /// The number of threads now running (for tests).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Runs `job` on one of the threads; false when no thread could be started and none runs
    /// (the caller then fails the call instead of waiting for a thread that never comes).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        nextId &+= 1
        let id = nextId
        queue.append((id, job))
        // A signalled thread counts as idle until it takes the lock back: each waiting job needs an
        // idle thread of its own, or a new one (else a burst would run one job after another).
        if queue.count - head <= idleThreads {
            condition.signal()
            condition.unlock()
            return true
        }
        guard threads < maximumThreads else {
            condition.unlock()
            return true  // a running thread takes it when it is free
        }
        threads += 1
        condition.unlock()
        if startDetachedThread({ [self] in work() }) { return true }
        condition.lock()
        defer { condition.unlock() }
        threads -= 1
        guard threads == 0 else { return true }
        // No thread at all: take the job back if no thread has taken it.
        if let index = queue[head...].firstIndex(where: { $0.id == id }) { queue.remove(at: index) }
        return false
    }

    private func work() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        condition.lock()
        while true {
            if head < queue.count {
                let job = queue[head].job
                // what the job holds (a pool, a request) is not kept once it has run
                queue[head] = (0, { @Sendable in })
                head += 1
                if head > 64 && head * 2 > queue.count {  // drop the run part now and then
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idleThreads += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: idleThreadLifetime))
            idleThreads -= 1
            if !woken && head >= queue.count {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
