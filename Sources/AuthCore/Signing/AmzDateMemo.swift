/// A signer's memo of the last second it signed at: the ``AmzDate`` and its header value
/// (`X-Amz-Date`, `x-oss-date`), shared by every signature made within that second.
///
/// The value is 16 bytes, one more than a native small string holds inline, so each new one is a
/// heap allocation, and the date takes a civil-calendar conversion; a server signing many
/// requests a second pays for both once per second. Keyed by the whole second.
final class AmzDateMemo: Sendable {
    private struct Remembered {
        var second: Int64
        var date: AmzDate
        var text: String
    }

    private let last: Locked<Remembered?> = Locked(nil)

    /// The date of `time`'s second and its text.
    func date(at time: Timestamp) -> (date: AmzDate, text: String) {
        let second = time.secondsSince1970
        if let hit = last.withLock({ remembered -> (AmzDate, String)? in
            guard let remembered, remembered.second == second else { return nil }
            return (remembered.date, remembered.text)
        }) {
            return hit
        }
        let date = AmzDate(time)
        let text = date.string
        last.withLock { $0 = Remembered(second: second, date: date, text: text) }
        return (date, text)
    }
}
