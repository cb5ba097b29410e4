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
/// tasks' — come to ``enqueue(_:)``. Until ``runUntilWaiting()`` finds no job left, they are kept
/// and run there, in order; after that, each is run on Dispatch's global queue with this executor as
/// the task's executor (so its hops stay here and do not bounce). The switch is made under the lock
/// that guards the list, so no job is kept after the receiving thread stopped looking.
///
/// A handler must not block its thread (as on the concurrency pool): while it runs here it holds
/// one of MHD's polling threads, and the connections that thread polls wait for it.
final class ReceivingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // invariant (Sendable): the list and the flag are only touched under `jobs`' lock.
    private struct Jobs {
        var kept: [UnownedJob] = []
        var next = 0
        /// Whether the receiving thread still runs the jobs (until the list is first empty).
        var receiving = true
    }

    private let jobs = Locked(Jobs())

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let kept = jobs.withLock { jobs -> Bool in
            guard jobs.receiving else { return false }
            jobs.kept.append(job)
            return true
        }
        guard !kept else { return }
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }

    /// Runs the kept jobs on the calling thread (the one that received the request) until none is
    /// left; from then on every job goes to Dispatch's global queue. Called once.
    func runUntilWaiting() {
        let executor = asUnownedTaskExecutor()
        while let job = jobs.withLock({ jobs -> UnownedJob? in
            guard jobs.next < jobs.kept.count else {
                jobs.receiving = false
                jobs.kept = []
                return nil
            }
            defer { jobs.next += 1 }
            return jobs.kept[jobs.next]
        }) {
            job.runSynchronously(on: executor)
        }
    }
}
