import Foundation

/// Holds a task's result across a semaphore.
final class AsyncResultBox<T: Sendable>: @unchecked Sendable {
    // invariant: written once by the task before the semaphore is signalled, read after the wait.
    var result: Result<T, any Error>?
}

/// Runs an async throwing body from synchronous `main` code and returns its value.
func runAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = AsyncResultBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        semaphore.signal()
    }
    semaphore.wait()
    guard let result = box.result else { throw CommandFailure("the task did not finish") }
    return try result.get()
}
