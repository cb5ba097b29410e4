/// The spread of one row's samples, in nanoseconds: the percentiles the table prints and the JSON
/// report writes (`p10`, `p25`, `median`, `p75`, `p90`, `p99`).
///
/// Each is read from the sorted samples by linear interpolation between the two closest ranks
/// (Hyndman and Fan's definition 7, the default of numpy and of R), so `p50` is the usual median.
struct Percentiles {
    var p10: Double
    var p25: Double
    var p50: Double
    var p75: Double
    var p90: Double
    var p99: Double

    init(p10: Double, p25: Double, p50: Double, p75: Double, p90: Double, p99: Double) {
        (self.p10, self.p25, self.p50, self.p75, self.p90, self.p99) = (p10, p25, p50, p75, p90, p99)
    }

    /// The percentiles of `samples` (in any order; all zero when there are none).
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        self.init(
            p10: Self.value(at: 0.10, sorted: sorted),
            p25: Self.value(at: 0.25, sorted: sorted),
            p50: Self.value(at: 0.50, sorted: sorted),
            p75: Self.value(at: 0.75, sorted: sorted),
            p90: Self.value(at: 0.90, sorted: sorted),
            p99: Self.value(at: 0.99, sorted: sorted)
        )
    }

    /// A row measured as one figure (a process's CPU over a whole run): every percentile is that figure.
    init(single value: Double) {
        self.init(p10: value, p25: value, p50: value, p75: value, p90: value, p99: value)
    }

    /// The `p` quantile (0...1) of `sorted` (ascending), interpolated; 0 for no samples.
    static func value(at p: Double, sorted: [Double]) -> Double {
        guard let last = sorted.indices.last else { return 0 }
        let position = p * Double(last)
        let low = Int(position.rounded(.down))
        let high = min(low + 1, last)
        let fraction = position - Double(low)
        return sorted[low] * (1 - fraction) + sorted[high] * fraction
    }
}
