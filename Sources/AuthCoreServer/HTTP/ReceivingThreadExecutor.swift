import AuthCore
import Dispatch

/// Runs one handler's task on the MHD thread that received its request, for as long as the
/// handler computes and only waits on work that finishes on that thread; from its first real wait
/// on — a continuation resumed by another thread — on Dispatch's global queue.
///
/// A login's handler computes (SRP arithmetic, sealing) and makes one Redis round trip, which the
/// connection pool runs on the calling thread when a connection is idle. Run on the concurrency
/// pool, each request cost a hop there and a hop back: the pool thread woken for the new task, the
/// MHD thread woken again by the resume, each going back to sleep — about four context switches of
/// the seven a request took. Run here, the request is answered in the callback that received it,
/// with no suspend and no resume.
///
/// The task is created with this executor as its preference (SE-0417, `Task(executorPreference:)`),
/// so its jobs — its first, those after each hop to an actor or a nonisolated function, its child
/// tasks' — come to ``enqueue(_:)``. Until ``runUntilWaiting()`` finds no job left, or has run
/// ``jobBudget`` of them, they are kept and run there, in order; after that, each is run on
/// Dispatch's global queue with this executor as the task's executor (so its hops stay here and do
/// not bounce). The switch is made under the lock that guards the list, so no job is kept after the
/// receiving thread stopped looking, and jobs kept past the budget are handed on with it.
///
/// A handler must not block its thread (as on the concurrency pool): while it runs here it holds
/// one of MHD's polling threads, and the connections that thread polls wait for it.
final class ReceivingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // invariant (Sendable): the list and the flag are only touched under `jobs`' lock.
    private struct Jobs {
        var kept: [UnownedJob] = []
        var next = 0
        /// Whether the receiving thread still runs the jobs (until the list is first empty).
        var receiving: Bool
    }

    /// The most jobs the receiving thread runs for one handler (a login takes about ten): a handler
    /// that yields in a loop, or hops without end, goes on elsewhere after them.
    static let jobBudget = 64

    private let jobs: Locked<Jobs>

    /// An executor whose jobs the receiving thread runs (`receiving`), or one that sends every job
    /// to Dispatch's global queue from the first (a server with one polling thread, which must not
    /// be held by a handler).
    init(receiving: Bool) {
        jobs = Locked(Jobs(receiving: receiving))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let kept = jobs.withLock { jobs -> Bool in
            guard jobs.receiving else { return false }
            jobs.kept.append(job)
            return true
        }
        if !kept { runElsewhere(job) }
    }

    private func runElsewhere(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }

    /// Runs the kept jobs on the calling thread (the one that received the request) until none is
    /// left or ``jobBudget`` have run; from then on every job goes to Dispatch's global queue (those
    /// still kept first). Called once.
    func runUntilWaiting() {
        let executor = asUnownedTaskExecutor()
        var run = 0
        while true {
            let (job, handedOn): (UnownedJob?, ArraySlice<UnownedJob>) = jobs.withLock { jobs in
                guard jobs.next < jobs.kept.count, run < Self.jobBudget else {
                    jobs.receiving = false
                    defer { jobs.kept = [] }
                    return (nil, jobs.kept[jobs.next...])
                }
                defer { jobs.next += 1 }
                return (jobs.kept[jobs.next], [])
            }
            guard let job else {
                for job in handedOn { runElsewhere(job) }
                return
            }
            job.runSynchronously(on: executor)
            run += 1
        }
    }
}
