public import AuthCore

/// A clock the test moves by hand.
public final class ManualClock: SigningClock, Sendable {
    private let current: Locked<Timestamp>
    public init(_ start: Timestamp) { current = Locked(start) }
    public func now() -> Timestamp { current.withLock { $0 } }
    public func advance(seconds: Int64) { current.withLock { $0 = $0.adding(seconds: seconds) } }
    public func advance(milliseconds: Int64) {
        current.withLock { t in
            var nanos = Int64(t.nanoseconds) + milliseconds * 1_000_000
            var seconds = t.secondsSince1970
            seconds += nanos / 1_000_000_000
            nanos %= 1_000_000_000
            if nanos < 0 {
                nanos += 1_000_000_000
                seconds -= 1
            }
            t = Timestamp(secondsSince1970: seconds, nanoseconds: Int32(nanos))
        }
    }
}

/// A source time limit for tests that are not about time limits: the suite runs many tests at once on
/// a 2-core machine, and a test that waits for a subprocess blocks a thread of the cooperative pool,
/// so a 30-second limit can lapse while an instant source is merely waiting for a thread.
public let patientTimeLimit: Duration = .seconds(600)
