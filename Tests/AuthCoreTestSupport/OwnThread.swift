import Foundation

/// Runs `body` on a thread of its own and returns its result to the awaiting task.
///
/// For long synchronous test work (thousands of vectors, a slow peer process): run in a test
/// function directly, it holds one of the few cooperative threads (two on a 2-core machine) that
/// every other test's tasks — and the in-process servers' handlers — need, and two such tests at
/// once starve them all (handlers then meet their time limits). Assertions belong to the caller,
/// on the value returned: an expectation recorded on another thread has no test to attach to.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
