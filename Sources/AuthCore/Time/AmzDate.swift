/// `YYYYMMDDTHHMMSSZ` (SigV4's `X-Amz-Date`, OSS V4's `x-oss-date`) and its `YYYYMMDD` date stamp,
/// formatted once per signature from integer date components (constant divisors only), stored
/// inline: the one date-stamp formatter of the package (``Timestamp/amzDate``, ``Timestamp/dateStamp``,
/// credential scopes and signing-key cache keys all come from here).
package struct AmzDate {
    /// The 16 ASCII bytes.
    private(set) var storage: (UInt64, UInt64) = (0, 0)
    /// `YYYYMMDD` as a number (the signing-key memo's key).
    package let day: Int

    package init(_ time: Timestamp) {
        let seconds = time.secondsSince1970
        // 1970-01-01 ... 9999-12-31 by integer arithmetic on the seconds (no weekday, no
        // Components value); earlier instants (years 1 ... 1969) through the general calendar code.
        guard seconds >= 0, seconds < 253_402_300_800 else {
            // a Timestamp's year is 1 ... 9999 and every field in range: clamping never changes one
            let c = time.components
            self.init(
                year: UInt64(clamping: c.year),
                month: UInt64(clamping: c.month),
                day: UInt64(clamping: c.day),
                hour: UInt64(clamping: c.hour),
                minute: UInt64(clamping: c.minute),
                second: UInt64(clamping: c.second)
            )
            return
        }
        let s = UInt64(seconds)
        let days = s / 86_400
        let secondOfDay = s - days * 86_400
        let civil = Timestamp.civilDate(daysSince1970: Int(days))
        let hour = secondOfDay / 3600
        let minute = secondOfDay / 60 - hour * 60
        self.init(
            year: UInt64(civil.year),
            month: UInt64(civil.month),
            day: UInt64(civil.day),
            hour: hour,
            minute: minute,
            second: secondOfDay - secondOfDay / 60 * 60
        )
    }

    /// Packs the 16 bytes, two digits at a time, from fields already in range (year < 10000, the
    /// others < 100): the one formatter.
    private init(year: UInt64, month: UInt64, day: UInt64, hour: UInt64, minute: UInt64, second: UInt64) {
        /// Two ASCII digits of `v` < 100, first digit in the low byte.
        @inline(__always) func digits(_ v: UInt64) -> UInt64 {
            let tens = v / 10
            return (0x30 + tens) | (0x30 + v - tens * 10) << 8
        }
        let year = year % 10_000
        // Little-endian: byte i of the string is bits 8i..8i+7.
        let high = year / 100
        let first = digits(high) | digits(year - high * 100) << 16 | digits(month % 100) << 32 | digits(day % 100) << 48
        let second8 =
            UInt64(UInt8(ascii: "T")) | digits(hour % 100) << 8 | digits(minute % 100) << 24 | digits(second % 100)
            << 40
            | UInt64(UInt8(ascii: "Z")) << 56
        self.day = Int(year * 10_000 + month * 100 + day)
        self.storage = (UInt64(littleEndian: first), UInt64(littleEndian: second8))
    }

    /// All 16 bytes (`YYYYMMDDTHHMMSSZ`).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = storage
        return withUnsafeBytes(of: &copy) { body($0) }
    }

    /// The first 8 bytes (`YYYYMMDD`).
    func withDateBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<8])) }
    }

    package var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }
    var dateString: String { withDateBytes { String(decoding: $0, as: UTF8.self) } }
}
