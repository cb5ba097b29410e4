/// A signer's memo, behind one lock: the last second it signed at — the ``AmzDate`` and its header
/// value (`X-Amz-Date`, `x-oss-date`) — and the signing key of the last day it signed on.
///
/// A warm signature takes one lock and two integer compares: no civil-calendar conversion, no new
/// 16-byte header string (one byte over a native small string, so each new one is a heap
/// allocation), and no hashing of the shared ``SigningKeyCache``'s key. The entry's schedule is
/// immutable, so the MAC itself runs outside any lock.
///
/// A value around its ``Locked`` state (one heap object, the lock's): a signer made per request
/// allocates no memo object of its own.
struct SigningMemo: Sendable {
    private struct Remembered {
        var second = Int64.min
        /// `second`'s date and header value (nil until the first signature).
        var date: AmzDate?
        var text = ""
        /// The day (`yyyymmdd`) `entry` signs for.
        var day = Int.min
        var entry: SigningKeyCache.Entry?
    }

    private let state = Locked(Remembered())

    /// The date and header value of `time`'s second, and the remembered signing key when it is
    /// that day's (nil otherwise: the caller finds it and calls ``store(day:entry:)``).
    @inline(__always)
    func lookup(at time: Timestamp) -> (date: AmzDate, text: String, entry: SigningKeyCache.Entry?) {
        let second = time.secondsSince1970
        if let hit = state.withLock({ remembered -> (AmzDate, String, SigningKeyCache.Entry?)? in
            guard remembered.second == second, let date = remembered.date else { return nil }
            return (date, remembered.text, remembered.day == date.day ? remembered.entry : nil)
        }) {
            return hit
        }
        let date = AmzDate(time)  // outside the lock: the conversion and the string's allocation
        let text = date.string
        return state.withLock { remembered in
            remembered.second = second
            remembered.date = date
            remembered.text = text
            return (date, text, remembered.day == date.day ? remembered.entry : nil)
        }
    }

    /// The remembered signing key when it is `day`'s.
    func lookup(day: Int) -> SigningKeyCache.Entry? {
        state.withLock { $0.day == day ? $0.entry : nil }
    }

    func store(day: Int, entry: SigningKeyCache.Entry) {
        state.withLock { remembered in
            remembered.day = day
            remembered.entry = entry
        }
    }
}
