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
///
/// A value holding a reference: copies of one `Locked` guard the same state with the same mutex.
package struct Locked<State>: @unchecked Sendable {
    // invariant (Sendable): the state is only touched between lock and unlock of the mutex.

    /// The state and its mutex in one heap object: the state is the buffer's header, the mutex its
    /// one tail element, at a fixed address for the object's life (pthread mutexes must not move).
    /// One allocation per lock: the mutex is not a second `malloc`.
    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            // ManagedBuffer deinitialises the header (the state); the elements are ours.
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }

    private let storage: Storage

    /// A lock around `initial`.
    package init(_ initial: State) {
        // `create` on the subclass makes a `Storage` (the documented ManagedBuffer pattern).
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in initial }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            // invariant: pthread_mutex_init with default attributes cannot fail on Linux (it only sets fields).
            precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        }
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // The pointers are used only inside ManagedBuffer's closure, which keeps the object alive.
        // The mutex makes every access to the state exclusive, so no dynamic exclusivity check
        // runs on it (it is reached through a pointer).
        try storage.withUnsafeMutablePointers { (state, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}
