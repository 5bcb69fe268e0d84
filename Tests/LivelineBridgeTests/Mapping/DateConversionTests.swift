import Liveline
import Testing
@testable import LivelineBridge

/// Dates as senders write them, into the UNIX milliseconds the engine holds.
@Suite struct DateConversionTests {
    @Test(arguments: [
        ("2026-11-23T13:30:00Z", Millis(1_795_440_600_000)),
        ("2026-11-23T13:05:00.123456Z", 1_795_439_100_123),
        ("2026-11-23T13:40:00+01:00", 1_795_437_600_000),
        ("2026-11-23T08:40:00-0400", 1_795_437_600_000),
        ("2026-11-23 13:30:00z", 1_795_440_600_000),
        ("1970-01-01T00:00:00Z", 0),
        ("2024-02-29T12:00:00.5Z", 1_709_208_000_500),
    ])
    func iso8601(text: String, millis: Millis) {
        #expect(DateConversion.millis(from: .string(text)) == millis)
    }

    @Test func unixSecondsAndMillisByMagnitude() {
        #expect(DateConversion.millis(from: .int(1_795_440_600)) == 1_795_440_600_000)
        #expect(DateConversion.millis(from: .int(1_795_440_600_000)) == 1_795_440_600_000)
        #expect(DateConversion.millis(from: .double(1_795_440_600.25)) == 1_795_440_600_250)
        #expect(DateConversion.millis(from: .string("1795440600")) == 1_795_440_600_000)
    }

    @Test(arguments: [
        "2026-13-01T00:00:00Z", "2026-11-23T13:30:00", "2026-11-23", "soon", "2026-11-23T25:00:00Z",
        "2026-11-23T13:30:00Zjunk",
    ])
    func notDates(text: String) {
        #expect(DateConversion.millis(from: .string(text)) == nil)
    }

    @Test func otherValuesAreNotDates() {
        #expect(DateConversion.millis(from: .bool(true)) == nil)
        #expect(DateConversion.millis(from: .null) == nil)
    }
}
