import Dispatch

package extension DispatchTimeInterval {
    /// `duration` in whole milliseconds for a `DispatchTime` deadline, clamped to 0...30 days
    /// (a longer limit is as good as none, and the product cannot overflow `Int`).
    init(clamping duration: Duration) {
        let clamped = Swift.max(.zero, Swift.min(duration, .seconds(30 * 86_400))).components
        self = .milliseconds(Int(clamped.seconds) * 1000 + Int(clamped.attoseconds / 1_000_000_000_000_000))
    }
}
