/// `YYYYMMDDTHHMMSSZ` (SigV4's `X-Amz-Date`, OSS V4's `x-oss-date`) and its `YYYYMMDD` date stamp,
/// formatted once per signature from integer date components (constant divisors only), stored
/// inline: the one date-stamp formatter of the package (``Timestamp/amzDate``, ``Timestamp/dateStamp``,
/// credential scopes and signing-key cache keys all come from here).
package struct AmzDate {
    /// The 16 ASCII bytes.
    private(set) var storage: (UInt64, UInt64) = (0, 0)
    /// `YYYYMMDD` as a number (the signing-key memo's key).
    package let day: Int

    init(_ c: Timestamp.Components) {
        day = c.year * 10_000 + c.month * 100 + c.day
        let zero = UInt8(ascii: "0")
        withUnsafeMutableBytes(of: &storage) { out in
            let year = c.year % 10_000
            out[0] = zero &+ UInt8(year / 1000)
            out[1] = zero &+ UInt8(year / 100 % 10)
            out[2] = zero &+ UInt8(year / 10 % 10)
            out[3] = zero &+ UInt8(year % 10)
            out[4] = zero &+ UInt8(c.month / 10)
            out[5] = zero &+ UInt8(c.month % 10)
            out[6] = zero &+ UInt8(c.day / 10)
            out[7] = zero &+ UInt8(c.day % 10)
            out[8] = UInt8(ascii: "T")
            out[9] = zero &+ UInt8(c.hour / 10)
            out[10] = zero &+ UInt8(c.hour % 10)
            out[11] = zero &+ UInt8(c.minute / 10)
            out[12] = zero &+ UInt8(c.minute % 10)
            out[13] = zero &+ UInt8(c.second / 10)
            out[14] = zero &+ UInt8(c.second % 10)
            out[15] = UInt8(ascii: "Z")
        }
    }

    package init(_ time: Timestamp) {
        let seconds = time.secondsSince1970
        // 1970-01-01 ... 9999-12-31: no weekday, no Components value, digits two at a time;
        // anything else through the general calendar code.
        guard seconds >= 0, seconds < 253_402_300_800 else {
            self.init(time.components)
            return
        }
        let s = UInt64(seconds)
        let days = s / 86_400
        let secondOfDay = s - days * 86_400
        let civil = Timestamp.civilDate(daysSince1970: Int(days))
        let (year, month, day) = (UInt64(civil.year), UInt64(civil.month), UInt64(civil.day))
        let hour = secondOfDay / 3600
        let minute = secondOfDay / 60 - hour * 60
        let second = secondOfDay - secondOfDay / 60 * 60
        /// Two ASCII digits of `v` < 100, first digit in the low byte.
        @inline(__always) func digits(_ v: UInt64) -> UInt64 {
            let tens = v / 10
            return (0x30 + tens) | (0x30 + v - tens * 10) << 8
        }
        // Little-endian: byte i of the string is bits 8i..8i+7.
        let high = year / 100
        let first = digits(high) | digits(year - high * 100) << 16 | digits(month) << 32 | digits(day) << 48
        let second8 = UInt64(UInt8(ascii: "T")) | digits(hour) << 8 | digits(minute) << 24 | digits(second) << 40
            | UInt64(UInt8(ascii: "Z")) << 56
        self.init(day: Int(year * 10_000 + month * 100 + day), storage: (UInt64(littleEndian: first), UInt64(littleEndian: second8)))
    }

    private init(day: Int, storage: (UInt64, UInt64)) {
        self.day = day
        self.storage = storage
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
