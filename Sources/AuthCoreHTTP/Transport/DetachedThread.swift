import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts `body` on a new detached thread of its own (not one of Dispatch's shared workers: a body
/// that blocks for its whole life must not hold one); false when the system refuses a thread.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    #if os(Linux)
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let box = Unmanaged.passRetained(Body(body))
    var thread: pthread_t = 0
    let status = pthread_create(
        &thread,
        nil,
        { context in
            // invariant: `context` is the retained box passed below, taken back exactly once here.
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        },
        box.toOpaque()
    )
    guard status == 0 else {
        box.release()
        return false
    }
    pthread_detach(thread)
    return true
    #else
    let thread = Thread(block: body)
    thread.start()
    return true
    #endif
}
