#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the package's one lock type.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer on Linux does not see `Mutex`'s
/// futex-based locking and reports every guarded access from two threads as a race (measured with
/// Swift 6.3: four threads incrementing a counter inside `withLock` give three "Swift access race"
/// reports and the right total). pthread locks are intercepted by the sanitizer, so
/// `swift test --sanitize=thread` reports only real races. Uncontended, the cost is one
/// `pthread_mutex_lock`/`unlock` pair, like `Mutex`'s atomic compare-and-swap pair.
package final class Locked<State: ~Copyable>: @unchecked Sendable {
    // invariant (Sendable): `state` is only touched between lock and unlock of `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // The mutex already makes every access exclusive; the runtime's dynamic exclusivity check
    // (swift_beginAccess on each withLock) would only repeat it.
    @exclusivity(unchecked) private var state: State

    /// A lock around `initial`.
    package init(_ initial: consuming State) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // invariant: pthread_mutex_init with default attributes cannot fail on Linux (it only sets fields).
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        state = initial
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result: ~Copyable, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
