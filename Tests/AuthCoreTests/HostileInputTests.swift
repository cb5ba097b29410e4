import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// Regression tests for the traps a hostile peer, file or argument could set off (issue: hostile
/// input). Each case crashed the release build with SIGILL before the fix; now every conversion of
/// outside data is total.
@Suite("Hostile input: times, lengths and header bytes never trap")
struct HostileInputTests {
    @Test("timestamps saturate at 0001-01-01 and 9999-12-31 and every formatter works at both ends")
    func timestampRange() {
        let low = Timestamp(secondsSince1970: .min)
        let high = Timestamp(secondsSince1970: .max, nanoseconds: .max)
        #expect(low == Timestamp.minimum)
        #expect(high == Timestamp.maximum)
        #expect(low.iso8601 == "0001-01-01T00:00:00Z")
        #expect(high.iso8601 == "9999-12-31T23:59:59Z")
        #expect(low.amzDate == "00010101T000000Z")
        #expect(AmzDate(low).string == "00010101T000000Z")
        #expect(AmzDate(high).string == "99991231T235959Z")
        #expect(low.rfc1123 == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(high.cognitoTimestamp == "Fri Dec 31 23:59:59 UTC 9999")
        #expect(Timestamp(secondsSince1970: 0, nanoseconds: -5).nanoseconds == 0)
        // adding: overflow-reporting, saturating, both ways.
        #expect(high.adding(seconds: .max) == .maximum)
        #expect(low.adding(seconds: .min) == .minimum)
        #expect(Timestamp(secondsSince1970: 0).adding(seconds: -99_999_999_999) == .minimum)
        #expect(low.seconds(until: high) == Timestamp.maximumSeconds - Timestamp.minimumSeconds)
    }

    @Test("every formatter round-trips through its parser across the whole range")
    func formatterSweep() throws {
        let random = SeededRandom(seed: 7)
        var samples: [Int64] = [
            Timestamp.minimumSeconds, Timestamp.maximumSeconds, -1, 0, 1, 951_782_400, -62_135_596_801 + 1,
        ]
        for _ in 0..<2000 {
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { try? random.fill($0) }
            let span = UInt64(Timestamp.maximumSeconds - Timestamp.minimumSeconds + 1)
            samples.append(Timestamp.minimumSeconds + Int64(bits % span))
        }
        for seconds in samples {
            let t = Timestamp(secondsSince1970: seconds)
            #expect(try Timestamp(iso8601: t.iso8601) == t)
            #expect(try Timestamp(amzDate: t.amzDate) == t)
            #expect(
                AmzDate(t).string
                    == t.iso8601.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
            )
            #expect(try Timestamp(rfc1123: t.rfc1123) == t)
            _ = t.cognitoTimestamp
        }
    }

    @Test(
        "out-of-range dates are parse errors, not traps or silent clamps",
        arguments: [
            "Mon, 01 Jan 0000 00:00:00 GMT", "Sat, 01 Jan 0000 00:00:00 GMT",
        ]
    )
    func outOfRangeRFC1123(text: String) {
        #expect(throws: AuthCoreError(.malformedInput, "")) { try Timestamp(rfc1123: text) }
    }

    @Test("ISO 8601 offsets that leave the range, and bad offsets, are refused")
    func isoOffsets() {
        for text in [
            "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "0000-01-01T00:00:00Z",
            "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+01:60", "99999-01-01T00:00:00Z", "00000101T000000Z",
        ] {
            #expect(throws: AuthCoreError(.malformedInput, "")) { try Timestamp(iso8601: text) }
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) { try Timestamp(amzDate: "00000101T000000Z") }
        #expect((try? Timestamp(iso8601: "0001-01-01T00:59:59-01:00"))?.iso8601 == "0001-01-01T01:59:59Z")
        // More than nine fractional digits (found by the timestamp fuzz target: a range trap).
        #expect((try? Timestamp(iso8601: "2026-10-29T21:39:33.819473720253231Z"))?.nanoseconds == 819_473_720)
    }

    @Test("epoch seconds from outside: checked, never Int64(Double) traps")
    func checkedEpochSeconds() throws {
        for bad in [1e300, -1e300, .nan, .infinity, -.infinity, 253_402_300_800.0, -62_135_596_801.0] {
            #expect(Timestamp(checkedEpochSeconds: bad) == nil, "\(bad)")
        }
        #expect(Timestamp(checkedEpochSeconds: -1)?.iso8601 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(checkedEpochSeconds: 1_796_000_000.25)?.nanoseconds == 250_000_000)
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try Timestamp(checkedSecondsSince1970: .max) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try Timestamp(checkedSecondsSince1970: 0, nanoseconds: -1)
        }
        #expect(
            try Timestamp(checkedSecondsSince1970: Timestamp.maximumSeconds)
                == Timestamp(secondsSince1970: Timestamp.maximumSeconds)
        )
    }

    @Test("Timestamp(year:…) refuses year 0, a leap second at the very end and bad nanoseconds")
    func civilFields() {
        #expect(Timestamp(year: 0, month: 1, day: 1) == nil)
        #expect(Timestamp(year: 10_000, month: 1, day: 1) == nil)
        #expect(Timestamp(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 60) == nil)
        #expect(Timestamp(year: 2026, month: 1, day: 1, nanoseconds: 1_000_000_000) == nil)
        #expect(Timestamp(year: 1, month: 1, day: 1) == .minimum)
    }

    @Test("aws-chunked encoded length: a bad chunk size or an overflowing length is an error")
    func chunkedLength() throws {
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SigV4ChunkSigner.encodedLength(decodedLength: 10, chunkSize: 0)
        }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SigV4ChunkSigner.encodedLength(decodedLength: -1, chunkSize: 10)
        }
        #expect(throws: AuthCoreError(.inputTooLarge, "")) {
            try SigV4ChunkSigner.encodedLength(decodedLength: .max, chunkSize: 1)
        }
        #expect(throws: AuthCoreError(.inputTooLarge, "")) {
            try SigV4ChunkSigner.encodedLength(decodedLength: .max, chunkSize: .max)
        }
        #expect(try SigV4ChunkSigner.encodedLength(decodedLength: 0, chunkSize: 65_536) == 86)
    }

    @Test("header values with any control byte but tab are refused; tab and bytes >= 0x80 are signed")
    func headerControlBytes() throws {
        let signer = try SigV4Signer(
            credentials: try Credentials(accessKeyId: "AKID", secretAccessKey: "secret"),
            region: "us-east-1",
            service: "s3"
        )
        let time = Timestamp(year: 2026, month: 3, day: 3)!
        func request(_ value: String) -> SigV4Request {
            SigV4Request(
                method: "GET",
                target: "/",
                headers: [HTTPHeader("Host", "example.com"), HTTPHeader("X-Test", value)],
                payload: .bytes([])
            )
        }
        var bad: [UInt8] = Array(0x00...0x1F).filter { $0 != 0x09 }
        bad.append(0x7F)
        for byte in bad {
            for value in [
                "\(Character(Unicode.Scalar(byte)))", "abcdefghij\(Character(Unicode.Scalar(byte)))",
                "abc\(Character(Unicode.Scalar(byte)))defghijklmnop",
            ] {
                #expect(throws: AuthCoreError(.malformedRequest, ""), "byte \(byte)") {
                    try signer.sign(request(value), at: time)
                }
            }
        }
        _ = try signer.sign(request("a\tb"), at: time)
        _ = try signer.sign(request("caf\u{E9} \u{1F600}"), at: time)
    }
}
