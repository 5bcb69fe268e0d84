import Liveline
import Testing

@Suite struct DurationTextTests {
    @Test(
        "durations with every unit parse to milliseconds",
        arguments: [
            ("0", 0), ("90s", 90_000), ("23m", 1_380_000), ("1h05m10s", 3_910_000), ("250ms", 250),
            ("2h", 7_200_000), ("1m30s", 90_000), ("1s500ms", 1500),
        ] as [(String, Millis)])
    func parses(text: String, millis: Millis) {
        #expect(DurationText.parse(text) == millis)
    }

    @Test(
        "text that is not a duration is refused",
        arguments: [
            "", "5 minutes", "5", "m", "1s2m", "1.5s", "-5m", "1h1h", "99999999999999999999h", " 5m",
        ])
    func refuses(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func formatsCompactly() {
        #expect(DurationText.format(0) == "0s")
        #expect(DurationText.format(3_910_000) == "1h05m10s")
        #expect(DurationText.format(1_380_000) == "23m")
        #expect(DurationText.format(1250) == "1.250s")
        #expect(DurationText.clock(3_910_000) == "+1:05:10")
        #expect(DurationText.clock(83_000) == "+01:23")
    }
}

@Suite struct UTCTimeTests {
    @Test func parsesInstantsWithZonesAndFractions() {
        #expect(UTCTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(UTCTime.parse("2001-01-01T00:00:00Z") == 978_307_200_000)
        #expect(UTCTime.parse("2026-11-23T20:00:00Z") == testStart)
        #expect(UTCTime.parse("2026-11-23T21:00:00+01:00") == testStart)
        #expect(UTCTime.parse("2026-11-23T20:00:00.250Z") == testStart + 250)
        #expect(UTCTime.parse("2024-02-29T12:00:00Z") != nil)
    }

    @Test(
        "malformed or impossible instants are refused",
        arguments: [
            "2026-11-23", "2026-11-23T20:00:00", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-23T24:00:00Z",
            "tomorrow",
        ])
    func refuses(text: String) {
        #expect(UTCTime.parse(text) == nil)
    }

    @Test func formatRoundTrips() {
        for millis: Millis in [0, testStart, testStart + 250, 951_782_400_000, -86_400_000] {
            #expect(UTCTime.parse(UTCTime.format(millis)) == millis)
        }
        #expect(UTCTime.format(testStart) == "2026-11-23T20:00:00Z")
    }
}
