import AuthCore

/// Awaits an unstructured task's result in a way the waiting caller controls: the caller's
/// cancellation ends its wait at once (`AuthCoreError.Code.cancelled`) without cancelling
/// the task, which may be shared with other waiters; an optional time limit ends the wait with
/// `AuthCoreError.Code.timedOut` and cancels the task. (`Task.value` alone waits for the
/// task however long it takes, and ignores the waiter's cancellation.) A task that ignores its
/// cancellation after a time-out keeps running until it ends by itself; its result is dropped.
func awaitResult<Value: Sendable>(
    of task: Task<Value, any Error>,
    timeLimit: Duration? = nil,
    describing what: String
) async throws(AuthCoreError) -> Value {
    let gate = ResumeOnce<Value>()
    let watcher = Task {
        do { gate.resume(.success(try await task.value)) } catch { gate.resume(.failure(error)) }
    }
    let timer = timeLimit.map { limit in
        Task {
            try await Task.sleep(for: limit)
            // The time-out first: the task's own error for being cancelled must not win the gate.
            gate.resume(.failure(AuthCoreError(.timedOut, "\(what) did not answer within \(limit)")))
            task.cancel()
        }
    }
    defer { timer?.cancel() }
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
            gate.install(continuation)
        }
    } onCancel: {
        gate.resume(.failure(AuthCoreError(.cancelled, "the wait for \(what) was cancelled")))
    }
    _ = watcher  // keeps running until the task ends, then finds the gate already used or uses it
    switch result {
    case .success(let value): return value
    case .failure(let error as AuthCoreError): throw error
    case .failure(let error):
        throw AuthCoreError(.credentialsUnavailable, "\(what) failed: \(type(of: error))").causedBy(error)
    }
}

/// A continuation resumed exactly once, by whichever result arrives first (even before the
/// continuation is installed).
private final class ResumeOnce<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result<Value, any Error>, Never>?)
        case arrived(Result<Value, any Error>)
        case done
    }
    private let state = Locked<State>(.waiting(nil))

    func install(_ continuation: CheckedContinuation<Result<Value, any Error>, Never>) {
        let early: Result<Value, any Error>? = state.withLock { s in
            switch s {
            case .arrived(let result):
                s = .done
                return result
            case .waiting:
                s = .waiting(continuation)
                return nil
            case .done:
                return nil  // invariant: installed once; nothing can be done twice
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Result<Value, any Error>, Never>? = state.withLock { s in
            switch s {
            case .waiting(let continuation?):
                s = .done
                return continuation
            case .waiting(nil):
                s = .arrived(result)
                return nil
            case .arrived, .done:
                return nil
            }
        }
        continuation?.resume(returning: result)
    }
}
