import AuthCore
import AuthCoreClients
import Foundation
import Testing

/// What an app needs to handle AuthCore's errors and times with Foundation and the standard library.
@Suite("Errors people can handle; Timestamp with Date and Duration")
struct ErrorsAndTimeTests {
    @Test("AuthCoreError is a LocalizedError: the reason, the service's type, and whether a retry may help")
    func localized() {
        let throttled = AuthCoreError(
            serviceErrorType: "ThrottlingException",
            message: "Rate exceeded",
            httpStatus: 400
        )
        let refused = AuthCoreError(
            serviceErrorType: "NotAuthorizedException",
            message: "Incorrect username or password.",
            httpStatus: 400
        )
        let cases: [(AuthCoreError, Bool)] = [
            (throttled, true), (refused, false), (AuthCoreError(.transportFailure, "connection reset"), true),
            (AuthCoreError(.timedOut, "no answer"), true), (AuthCoreError(.cancelled, "cancelled"), false),
            (AuthCoreError(.malformedResponse, "x"), false),
            (AuthCoreError(.serviceError, "HTTP 503", httpStatus: 503), true),
            (AuthCoreError(.serviceError, "HTTP 429", httpStatus: 429), true),
            (AuthCoreError(.serviceError, "HTTP 403", httpStatus: 403), false),
        ]
        for (error, retryable) in cases {
            #expect(error.isRetryable == retryable, "\(error)")
            #expect((error.recoverySuggestion != nil) == retryable, "\(error)")
            #expect(error.isCancellation == (error.code == .cancelled))
        }
        let asFoundation: any Error = refused
        #expect(asFoundation.localizedDescription == "NotAuthorizedException: Incorrect username or password.")
        #expect(refused.failureReason == "The service answered NotAuthorizedException.")
        #expect(AuthCoreError(.cancelled, "the wait was cancelled").recoverySuggestion == nil)
    }

    @Test("a wrapped app error is kept as underlyingError, and never copied into the reason")
    func underlying() async {
        struct AppError: Error, Equatable { let code: Int }
        let provider = ClosureCredentialsProvider { throw AppError(code: 42) }
        do {
            _ = try await provider.credentials()
            Issue.record("no error")
        } catch {
            #expect(error.code == .credentialsUnavailable)
            #expect(error.underlyingError as? AppError == AppError(code: 42))
            #expect(!error.reason.contains("42") && !"\(error)".contains("42"))
        }
        #expect(AuthCoreError(.invalidHex, "x").underlyingError == nil)
        // dump and Mirror show the wrapped error's type, never its contents.
        struct SecretError: Error { let secret = "hunter2-marker" }
        let wrapped = AuthCoreError(.credentialsUnavailable, "the closure failed").causedBy(SecretError())
        var dumped = ""
        dump(wrapped, to: &dumped)
        #expect(!dumped.contains("hunter2-marker") && dumped.contains("SecretError"), "\(dumped)")
        #expect(!String(reflecting: wrapped).contains("hunter2-marker"))
        #expect(
            AuthCoreError(.invalidHex, "x").causedBy(AppError(code: 1)) == AuthCoreError(.invalidHex, "y"),
            "equality stays by code"
        )
    }

    @Test("Timestamp ↔ Date: exact to the microsecond in range, clamped outside, total for NaN and infinities")
    func dates() throws {
        let time = try Timestamp(iso8601: "2026-12-01T16:30:00.123456Z")
        let date = Date(time)
        #expect(date.timeIntervalSince1970 == 1_796_142_600.123456)
        let back = Timestamp(date)
        #expect(back.secondsSince1970 == time.secondsSince1970)
        #expect(abs(Int(back.nanoseconds) - 123_456_000) < 1_000)
        #expect(
            Timestamp(Date(timeIntervalSince1970: -1.5)) == Timestamp(secondsSince1970: -2, nanoseconds: 500_000_000)
        )
        #expect(Timestamp(Date(timeIntervalSince1970: 1e15)) == .maximum)
        #expect(Timestamp(Date(timeIntervalSince1970: -1e15)) == .minimum)
        #expect(Timestamp(Date(timeIntervalSince1970: .infinity)) == .maximum)
        #expect(Timestamp(Date(timeIntervalSince1970: -.infinity)) == .minimum)
        #expect(Timestamp(Date(timeIntervalSince1970: .nan)) == .minimum)
        #expect(Timestamp(Date.distantFuture).iso8601 == "4001-01-01T00:00:00Z")
    }

    @Test("Timestamp with Duration: nanosecond carries both ways, saturation at the range's ends, duration(until:)")
    func durations() throws {
        let time = Timestamp(secondsSince1970: 1_796_000_000, nanoseconds: 900_000_000)
        #expect(time.adding(.milliseconds(200)) == Timestamp(secondsSince1970: 1_796_000_001, nanoseconds: 100_000_000))
        #expect(
            time.adding(.milliseconds(-950)) == Timestamp(secondsSince1970: 1_795_999_999, nanoseconds: 950_000_000)
        )
        #expect(time.adding(.seconds(-3600)) == Timestamp(secondsSince1970: 1_795_996_400, nanoseconds: 900_000_000))
        #expect(time.adding(.seconds(Int64.max)) == .maximum)
        #expect(time.adding(.seconds(Int64.min)) == .minimum)
        #expect(Timestamp.maximum.adding(.nanoseconds(1)) == .maximum)
        #expect(Timestamp.minimum.adding(.nanoseconds(-1)) == .minimum)
        #expect(time.adding(.seconds(Int64.max) * 4) == .maximum, "past Int64.max seconds: saturated before components")
        #expect(time.adding(.seconds(Int64.min) * 4) == .minimum)
        #expect(time.duration(until: time.adding(.milliseconds(1500))) == .milliseconds(1500))
        #expect(time.adding(.milliseconds(1500)).duration(until: time) == .milliseconds(-1500))
        #expect(Timestamp.minimum.duration(until: .maximum) > .seconds(315_537_897_599))
    }
}
