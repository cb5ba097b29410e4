#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A point in time as whole seconds since 1970-01-01T00:00:00Z (UTC), plus nanoseconds, within
/// the years 0001–9999.
///
/// AuthCore formats and parses the timestamps its protocols use from integer date components
/// (no `DateFormatter`, no locale): SigV4's `YYYYMMDDTHHMMSSZ`, ISO 8601, RFC 1123 (`Date` headers,
/// OSS V1) and Cognito's `EEE MMM d HH:mm:ss 'UTC' yyyy`.
///
/// Every value lies in ``minimum``…``maximum`` (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z),
/// the range every one of those formats can write with four-digit years. The plain initialiser and
/// ``adding(seconds:)`` saturate at the ends of that range, so no arithmetic on a timestamp and no
/// formatter can trap, whatever a server, a file or argv supplied; ``init(checkedSecondsSince1970:nanoseconds:)``
/// refuses a value outside it instead, for numbers that come from outside.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Whole seconds since the Unix epoch (negative before 1970), in ``minimumSeconds``…``maximumSeconds``.
    public let secondsSince1970: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public let nanoseconds: Int32

    /// 0001-01-01T00:00:00Z in seconds since 1970.
    public static let minimumSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z in seconds since 1970.
    public static let maximumSeconds: Int64 = 253_402_300_799
    /// The earliest representable instant, 0001-01-01T00:00:00Z.
    public static let minimum = Timestamp(secondsSince1970: minimumSeconds)
    /// The latest representable instant, 9999-12-31T23:59:59.999999999Z.
    public static let maximum = Timestamp(secondsSince1970: maximumSeconds, nanoseconds: 999_999_999)

    /// A timestamp, saturated to ``minimum``…``maximum`` (nanoseconds to 0…999 999 999).
    public init(secondsSince1970: Int64, nanoseconds: Int32 = 0) {
        let nanos = Swift.min(Swift.max(nanoseconds, 0), 999_999_999)
        if secondsSince1970 < Self.minimumSeconds {
            (self.secondsSince1970, self.nanoseconds) = (Self.minimumSeconds, 0)
        } else if secondsSince1970 > Self.maximumSeconds {
            (self.secondsSince1970, self.nanoseconds) = (Self.maximumSeconds, 999_999_999)
        } else {
            (self.secondsSince1970, self.nanoseconds) = (secondsSince1970, nanos)
        }
    }

    /// A timestamp from a number that came from outside (a JSON expiration, an option).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when the instant is outside the years
    ///   0001–9999 or `nanoseconds` outside 0…999 999 999.
    public init(checkedSecondsSince1970 seconds: Int64, nanoseconds: Int32 = 0) throws(AuthCoreError) {
        guard (Self.minimumSeconds...Self.maximumSeconds).contains(seconds), (0...999_999_999).contains(nanoseconds)
        else {
            throw AuthCoreError(.invalidParameter, "time \(seconds) s since 1970 is outside the years 0001-9999")
        }
        self.init(secondsSince1970: seconds, nanoseconds: nanoseconds)
    }

    /// A timestamp from fractional epoch seconds that came from outside (Cognito identity's
    /// `Expiration`); nil for NaN, infinities and anything outside the years 0001–9999.
    public init?(checkedEpochSeconds seconds: Double) {
        guard seconds.isFinite, seconds >= Double(Self.minimumSeconds), seconds < Double(Self.maximumSeconds) + 1 else {
            return nil
        }
        let whole = seconds.rounded(.down)
        // Both conversions are exact-range: whole lies in the checked range, the fraction in [0, 1).
        guard let wholeSeconds = Int64(exactly: whole),
            let nanos = Int32(exactly: Swift.min(((seconds - whole) * 1e9).rounded(.down), 999_999_999))
        else { return nil }
        self.init(secondsSince1970: wholeSeconds, nanoseconds: nanos)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.secondsSince1970, lhs.nanoseconds) < (rhs.secondsSince1970, rhs.nanoseconds)
    }

    /// The timestamp `seconds` later (earlier for a negative value), saturated to ``minimum``…``maximum``.
    public func adding(seconds: Int64) -> Timestamp {
        let (sum, overflow) = secondsSince1970.addingReportingOverflow(seconds)
        guard !overflow else { return seconds > 0 ? .maximum : .minimum }
        return Timestamp(secondsSince1970: sum, nanoseconds: nanoseconds)
    }

    /// Whole seconds from `self` to `other` (positive when `other` is later), rounded toward negative
    /// infinity. Cannot overflow: both lie within the years 0001–9999 (|delta| < 3.2·10^11).
    public func seconds(until other: Timestamp) -> Int64 {
        var delta = other.secondsSince1970 - secondsSince1970
        if other.nanoseconds < nanoseconds { delta -= 1 }
        return delta
    }

    /// The timestamp `duration` later (earlier for a negative one), to the nanosecond, saturated to
    /// ``minimum``…``maximum``.
    public func adding(_ duration: Duration) -> Timestamp {
        // Beyond the whole range either way the answer is an end of it; checked first, as
        // `components` of a Duration past Int64.max seconds would trap.
        let span = Duration.seconds(Self.maximumSeconds - Self.minimumSeconds + 1)
        if duration > span { return .maximum }
        if duration < .zero - span { return .minimum }
        let (seconds, attoseconds) = duration.components  // |attoseconds| < 10^18, so one carry suffices
        var nanos = Int64(nanoseconds) + attoseconds / 1_000_000_000
        var carry: Int64 = 0
        if nanos >= 1_000_000_000 {
            nanos -= 1_000_000_000
            carry = 1
        } else if nanos < 0 {
            nanos += 1_000_000_000
            carry = -1
        }
        let (sum, overflow) = secondsSince1970.addingReportingOverflow(seconds)
        guard !overflow else { return seconds > 0 ? .maximum : .minimum }
        let (moved, carried) = sum.addingReportingOverflow(carry)
        guard !carried else { return carry > 0 ? .maximum : .minimum }
        if moved > Self.maximumSeconds { return .maximum }
        if moved < Self.minimumSeconds { return .minimum }
        return Timestamp(secondsSince1970: moved, nanoseconds: Int32(nanos))
    }

    /// The exact time from `self` to `other` (positive when `other` is later).
    public func duration(until other: Timestamp) -> Duration {
        .seconds(other.secondsSince1970 - secondsSince1970)
            + .nanoseconds(Int64(other.nanoseconds) - Int64(nanoseconds))
    }

    /// The current time from the system's real-time clock.
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(secondsSince1970: Int64(ts.tv_sec), nanoseconds: Int32(clamping: ts.tv_nsec))
    }

    public var description: String { iso8601 }

    // MARK: - Civil calendar (proleptic Gregorian, UTC)

    /// Year, month (1–12), day (1–31), hour, minute, second, weekday (0 = Sunday).
    public struct Components: Hashable, Sendable {
        public var year: Int
        public var month: Int
        public var day: Int
        public var hour: Int
        public var minute: Int
        public var second: Int
        public var weekday: Int
    }

    /// The UTC calendar components (days-from-civil algorithm, H. Hinnant, "chrono-Compatible
    /// Low-Level Date Algorithms").
    public var components: Components {
        let days = Int(secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400)
        let secondOfDay = Int(secondsSince1970 - Int64(days) * 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        return Components(
            year: year,
            month: month,
            day: day,
            hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60,
            weekday: weekday
        )
    }

    /// Year, month and day of a day count from 1970-01-01 (H. Hinnant's civil-from-days: 400-year
    /// eras of 146097 days, March-based years so the leap day comes last).
    @inline(__always)
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The timestamp of a UTC calendar date and time; nil when a field is out of range (years
    /// 0001–9999; a leap second 60 counts as the first second of the next minute).
    public init?(
        year: Int,
        month: Int,
        day: Int,
        hour: Int = 0,
        minute: Int = 0,
        second: Int = 0,
        nanoseconds: Int32 = 0
    ) {
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second), (1...9999).contains(year),
            (0...999_999_999).contains(nanoseconds), !(year == 9999 && month == 12 && day == 31 && second == 60)
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        self.init(
            secondsSince1970: Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second),
            nanoseconds: nanoseconds
        )
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

// MARK: - Formatting

extension Timestamp {
    /// Appends `value`'s last `width` decimal digits (1...19: an Int's most; nothing for a width
    /// below 1), zero-padded, most significant first (one append per digit: no generic
    /// `append(contentsOf:)` of a repeated zero to fill in afterwards).
    @inline(__always)
    static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        guard width > 0 else { return }
        var divisor = 1
        for _ in 1..<Swift.min(width, 19) { divisor &*= 10 }  // an Int has 19 digits at most
        while divisor > 0 {
            // The magnitude's digit: total for any Int (a negative field never occurs in a valid time).
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: (value / divisor % 10).magnitude))
            divisor /= 10
        }
    }

    /// `YYYY MM DD` with `separator` between the fields (none for SigV4's basic form).
    static func appendDate(_ c: Components, separator: UInt8?, to out: inout [UInt8]) {
        appendDigits(c.year, width: 4, to: &out)
        if let separator { out.append(separator) }
        appendDigits(c.month, width: 2, to: &out)
        if let separator { out.append(separator) }
        appendDigits(c.day, width: 2, to: &out)
    }

    /// `HH MM SS` with `separator` between the fields.
    static func appendTime(_ c: Components, separator: UInt8?, to out: inout [UInt8]) {
        appendDigits(c.hour, width: 2, to: &out)
        if let separator { out.append(separator) }
        appendDigits(c.minute, width: 2, to: &out)
        if let separator { out.append(separator) }
        appendDigits(c.second, width: 2, to: &out)
    }

    /// SigV4's basic ISO 8601 form `YYYYMMDDTHHMMSSZ` (the `X-Amz-Date` value), as bytes (formatted by the internal
    /// `AmzDate`).
    public var amzDateBytes: [UInt8] { AmzDate(self).withBytes { Array($0) } }

    /// `YYYYMMDDTHHMMSSZ` (formatted by the internal `AmzDate`).
    public var amzDate: String { AmzDate(self).string }

    /// `YYYYMMDD` (the date of a credential scope; formatted by the internal `AmzDate`).
    public var dateStamp: String { AmzDate(self).dateString }

    /// ISO 8601 extended, UTC, whole seconds: `2026-11-29T22:00:00Z`.
    public var iso8601: String {
        let c = components
        var out: [UInt8] = []
        out.reserveCapacity(20)  // one allocation for the 20 bytes, not one per growth
        Self.appendDate(c, separator: UInt8(ascii: "-"), to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendTime(c, separator: UInt8(ascii: ":"), to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// ``iso8601`` with milliseconds, `2026-03-14T15:09:26.042Z` (RFC 3339 §5.6 `time-secfrac`):
    /// log lines.
    public var iso8601Milliseconds: String {
        let c = components
        var out: [UInt8] = []
        out.reserveCapacity(24)
        Self.appendDate(c, separator: UInt8(ascii: "-"), to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendTime(c, separator: UInt8(ascii: ":"), to: &out)
        out.append(UInt8(ascii: "."))
        Self.appendDigits(Int(nanoseconds / 1_000_000), width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 1123 (HTTP `Date`, RFC 9110 §5.6.7 IMF-fixdate): `Sat, 14 Mar 2026 15:09:26 GMT`.
    public var rfc1123: String {
        let c = components
        var out = Array(Self.weekdayNames[c.weekday].utf8)
        out.append(contentsOf: ", ".utf8)
        Self.appendDigits(c.day, width: 2, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: Self.monthNames[c.month - 1].utf8)
        out.append(UInt8(ascii: " "))
        Self.appendDigits(c.year, width: 4, to: &out)
        out.append(UInt8(ascii: " "))
        Self.appendTime(c, separator: UInt8(ascii: ":"), to: &out)
        out.append(contentsOf: " GMT".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Cognito's SRP `TIMESTAMP`: `EEE MMM d HH:mm:ss 'UTC' yyyy` in English, day not zero-padded
    /// (`Tue Mar 3 04:05:06 UTC 2026`), whatever the process locale.
    public var cognitoTimestamp: String {
        let c = components
        var out = Array(Self.weekdayNames[c.weekday].utf8)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: Self.monthNames[c.month - 1].utf8)
        out.append(UInt8(ascii: " "))
        Self.appendDigits(c.day, width: c.day < 10 ? 1 : 2, to: &out)
        out.append(UInt8(ascii: " "))
        Self.appendTime(c, separator: UInt8(ascii: ":"), to: &out)
        out.append(contentsOf: " UTC ".utf8)
        Self.appendDigits(c.year, width: 4, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: - Parsing

extension Timestamp {
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ text: String) { bytes = Array(text.utf8) }
        var atEnd: Bool { index == bytes.count }
        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for i in index..<(index + count) {
                let b = bytes[i]
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(b - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        mutating func literal(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        mutating func word(_ options: [String]) -> Int? {
            for (i, option) in options.enumerated() {
                let w = Array(option.utf8)
                if index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w {
                    index += w.count
                    return i
                }
            }
            return nil
        }
    }

    /// Parses `YYYYMMDDTHHMMSSZ`.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedInput``.
    public init(amzDate text: String) throws(AuthCoreError) {
        var s = Scanner(text)
        guard let y = s.digits(4), let mo = s.digits(2), let d = s.digits(2), s.literal(UInt8(ascii: "T")),
            let h = s.digits(2), let mi = s.digits(2), let se = s.digits(2), s.literal(UInt8(ascii: "Z")), s.atEnd,
            let value = Timestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: se)
        else {
            throw AuthCoreError(.malformedInput, "timestamp must be YYYYMMDDTHHMMSSZ")
        }
        self = value
    }

    /// Parses ISO 8601 / RFC 3339 date-times in UTC or with an offset, with or without fractional
    /// seconds: `2026-11-29T21:39:33Z`, `2026-11-29T21:39:33.894375Z`, `2026-11-29T22:39:33+01:00`.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedInput``.
    public init(iso8601 text: String) throws(AuthCoreError) {
        var s = Scanner(text)
        let error = AuthCoreError(.malformedInput, "not an ISO 8601 date-time (expected e.g. 2026-11-29T22:00:00Z)")
        guard let y = s.digits(4), s.literal(UInt8(ascii: "-")), let mo = s.digits(2), s.literal(UInt8(ascii: "-")),
            let d = s.digits(2),
            s.literal(UInt8(ascii: "T")) || s.literal(UInt8(ascii: "t")) || s.literal(UInt8(ascii: " ")),
            let h = s.digits(2), s.literal(UInt8(ascii: ":")), let mi = s.digits(2), s.literal(UInt8(ascii: ":")),
            let se = s.digits(2)
        else { throw error }
        var nanos: Int32 = 0
        if s.literal(UInt8(ascii: ".")) {
            var count = 0
            var value = 0
            while let digit = s.digits(1) {
                if count < 9 { value = value * 10 + digit }
                count += 1
            }
            guard count > 0 else { throw error }
            // (A range `count..<9` traps for more than nine digits, whatever its `where` clause.)
            if count < 9 { for _ in count..<9 { value *= 10 } }
            nanos = Int32(value)
        }
        var offsetSeconds = 0
        if s.literal(UInt8(ascii: "Z")) || s.literal(UInt8(ascii: "z")) {
        } else if let sign = s.word(["+", "-"]), let oh = s.digits(2), oh <= 23, s.literal(UInt8(ascii: ":")),
            let om = s.digits(2),
            om <= 59
        {
            offsetSeconds = (oh * 3600 + om * 60) * (sign == 0 ? 1 : -1)
        } else {
            throw error
        }
        guard s.atEnd,
            let base = Timestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: se, nanoseconds: nanos)
        else { throw error }
        // An offset can move a date at the ends of the range outside it: refused, not saturated.
        guard
            let value = try? Timestamp(
                checkedSecondsSince1970: base.secondsSince1970 - Int64(offsetSeconds),
                nanoseconds: nanos
            )
        else { throw error }
        self = value
    }

    /// Parses an RFC 1123 / IMF-fixdate HTTP date (`Sat, 14 Mar 2026 15:09:26 GMT`).
    ///
    /// - Throws: ``AuthCoreError/Code/malformedInput``.
    public init(rfc1123 text: String) throws(AuthCoreError) {
        var s = Scanner(text)
        guard s.word(Self.weekdayNames) != nil, s.literal(UInt8(ascii: ",")), s.literal(UInt8(ascii: " ")),
            let d = s.digits(2) ?? s.digits(1), s.literal(UInt8(ascii: " ")), let mo = s.word(Self.monthNames),
            s.literal(UInt8(ascii: " ")), let y = s.digits(4), s.literal(UInt8(ascii: " ")), let h = s.digits(2),
            s.literal(UInt8(ascii: ":")), let mi = s.digits(2), s.literal(UInt8(ascii: ":")), let se = s.digits(2),
            s.word([" GMT", " UTC", " +0000"]) != nil, s.atEnd,
            let value = Timestamp(year: y, month: mo + 1, day: d, hour: h, minute: mi, second: se)
        else {
            throw AuthCoreError(.malformedInput, "not an RFC 1123 date (expected e.g. Sat, 14 Mar 2026 15:09:26 GMT)")
        }
        self = value
    }
}

/// A source of the current time; injected wherever AuthCore needs "now".
public protocol SigningClock: Sendable {
    /// The current time.
    func now() -> Timestamp
}

/// The system's real-time clock.
public struct SystemClock: SigningClock {
    /// The system clock.
    public init() {}
    public func now() -> Timestamp { Timestamp.now() }
}

/// A clock fixed at one instant (tests, `--timestamp`).
public struct FixedClock: SigningClock {
    /// The instant it reports.
    public let instant: Timestamp
    /// A clock stopped at `instant`.
    public init(_ instant: Timestamp) { self.instant = instant }
    public func now() -> Timestamp { instant }
}

/// Another clock shifted by a number of seconds (a clock-skew correction, or `--clock-offset`).
public struct OffsetClock<Base: SigningClock>: SigningClock {
    /// The underlying clock.
    public let base: Base
    /// Seconds added to the base clock's time.
    public let offsetSeconds: Int64
    /// `base` shifted by `offsetSeconds`.
    public init(_ base: Base, offsetSeconds: Int64) {
        self.base = base
        self.offsetSeconds = offsetSeconds
    }
    public func now() -> Timestamp { base.now().adding(seconds: offsetSeconds) }
}
