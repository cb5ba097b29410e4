import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@Suite("Timestamps: formatting and parsing without DateFormatter")
struct TimestampTests {
    // 2026-03-03T04:05:06Z is a Tuesday.
    let sample = Timestamp(year: 2026, month: 3, day: 3, hour: 4, minute: 5, second: 6)!

    @Test("formats SigV4, ISO 8601, RFC 1123 and Cognito forms")
    func formats() {
        #expect(sample.amzDate == "20260303T040506Z")
        #expect(AmzDate(sample).string == "20260303T040506Z")
        #expect(sample.dateStamp == "20260303")
        #expect(sample.iso8601 == "2026-03-03T04:05:06Z")
        #expect(sample.rfc1123 == "Tue, 03 Mar 2026 04:05:06 GMT")
        #expect(sample.cognitoTimestamp == "Tue Mar 3 04:05:06 UTC 2026")
        let later = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)!
        #expect(later.cognitoTimestamp == "Sun Nov 29 22:00:00 UTC 2026")
    }

    @Test(
        "civil-calendar round trip over leap years and the epoch",
        arguments: [
            (1970, 1, 1, Int64(0), "Thu"), (2000, 2, 29, Int64(951_782_400), "Tue"),
            (1969, 12, 31, Int64(-86_400), "Wed"),
            (2038, 1, 19, Int64(2_147_472_000), "Tue"), (2100, 3, 1, Int64(4_107_542_400), "Mon"),
        ]
    )
    func civil(year: Int, month: Int, day: Int, seconds: Int64, weekday: String) throws {
        let t = try #require(Timestamp(year: year, month: month, day: day))
        #expect(t.secondsSince1970 == seconds)
        #expect(t.components.year == year && t.components.month == month && t.components.day == day)
        #expect(t.rfc1123.hasPrefix(weekday))
    }

    @Test("parses ISO 8601 with and without fractional seconds, and with offsets")
    func parseISO() throws {
        #expect(try Timestamp(iso8601: "2026-03-03T04:05:06Z") == sample)
        let fractional = try Timestamp(iso8601: "2026-11-29T21:39:33.894375Z")
        #expect(
            fractional.secondsSince1970
                == Timestamp(year: 2026, month: 11, day: 29, hour: 21, minute: 39, second: 33)!.secondsSince1970
        )
        #expect(fractional.nanoseconds == 894_375_000)
        #expect(try Timestamp(iso8601: "2026-03-03T05:05:06+01:00") == sample)
        #expect(try Timestamp(amzDate: "20260303T040506Z") == sample)
        #expect(try Timestamp(rfc1123: "Tue, 03 Mar 2026 04:05:06 GMT") == sample)
    }

    @Test(
        "malformed timestamps are malformedInput",
        arguments: [
            "", "2026-03-03", "2026-13-03T04:05:06Z", "2026-02-30T00:00:00Z", "2026-03-03T04:05:06",
            "2026-03-03T04:05:06.Z",
            "2026-03-03T24:00:00Z", "20260303T040506",
        ]
    )
    func malformed(text: String) {
        #expect(errorCode { try Timestamp(iso8601: text) } == .malformedInput)
        #expect(errorCode { try Timestamp(amzDate: text) } == .malformedInput)
        #expect(errorCode { try Timestamp(rfc1123: text) } == .malformedInput)
    }

    @Test("arithmetic and clocks")
    func clocks() {
        let clock = OffsetClock(FixedClock(sample), offsetSeconds: -1200)
        #expect(clock.now() == sample.adding(seconds: -1200))
        #expect(sample.seconds(until: sample.adding(seconds: 90)) == 90)
        #expect(Timestamp.now() > sample)
    }

    /// The signer's unsigned fast path for X-Amz-Date against the general calendar code, on edges
    /// (epoch, leap days, century rules, the last second of 9999, outside the fast range) and at random.
    @Test("X-Amz-Date fast path agrees with the calendar code")
    func amzDateFastPath() throws {
        var seconds: [Int64] = [
            0, 1, 59, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_400, 4_107_456_000,
            253_402_300_799, 253_402_300_800, -1, -86_400, 1_767_225_599, 1_767_225_600,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { seconds.append(Int64.random(in: 0..<253_402_300_800, using: &generator)) }
        for value in seconds {
            let time = Timestamp(secondsSince1970: value)
            let c = time.components
            let date = AmzDate(time)
            #expect(date.day == c.year * 10_000 + c.month * 100 + c.day, "\(value)")
            // The calendar code's ISO 8601 form without separators is the independent twin.
            let basic = time.iso8601.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
            if (0...9999).contains(c.year) { #expect(date.string == basic, "\(value)") }
            #expect(time.amzDate == date.string && time.dateStamp == String(date.string.prefix(8)))
        }
    }
}
