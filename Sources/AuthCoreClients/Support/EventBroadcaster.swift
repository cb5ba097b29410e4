import AuthCore

/// Hands each event to every current subscriber's `AsyncStream`, in order: the one home of the
/// session and identity event streams (``CognitoSession/events()``,
/// ``CognitoIdentityCredentialsProvider/events()``). A subscriber stops receiving when it stops
/// iterating; events before it subscribed are not replayed.
package final class EventBroadcaster<Event: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    }
    private let subscribers = Locked(Subscribers())

    package init() {}

    /// A stream of the events from now on.
    package func stream() -> AsyncStream<Event> {
        AsyncStream { continuation in
            let subscribers = self.subscribers
            let id = subscribers.withLock { state in
                state.next += 1
                state.continuations[state.next] = continuation
                return state.next
            }
            continuation.onTermination = { _ in subscribers.withLock { _ = $0.continuations.removeValue(forKey: id) } }
        }
    }

    /// Sends `event` to every subscriber.
    package func emit(_ event: Event) {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }
}
