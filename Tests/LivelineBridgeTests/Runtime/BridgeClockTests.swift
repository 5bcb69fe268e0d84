import Liveline
import Testing
@testable import LivelineBridge

/// The bridge's one conversion of time: whole seconds rounded down, and instants in JSON with
/// three digits of milliseconds.
struct BridgeClockTests {
    @Test func wholeSecondsRoundDown() {
        #expect(BridgeClock.wholeSecond(1_795_437_000_999) == 1_795_437_000_000)
        #expect(BridgeClock.wholeSecond(1_795_437_000_000) == 1_795_437_000_000)
        #expect(BridgeClock.unixSeconds(1_795_437_000_999) == 1_795_437_000)
        #expect(BridgeClock.unixSeconds(-1) == -1)
        #expect(BridgeClock.wholeSecond(-1001) == -2000)
    }

    @Test func theClockReadsTheSystemTimeInMilliseconds() {
        let before = WallClock().now()
        let now = BridgeClock.now()
        #expect(now >= before && now - before < 60_000)
    }

    @Test func jsonShowsMillisecondsAlways() {
        #expect(JSONAnswer.time(1_795_437_000_000) == .string("2026-11-23T12:30:00.000Z"))
        #expect(JSONAnswer.time(1_795_437_000_250) == .string("2026-11-23T12:30:00.250Z"))
        #expect(JSONAnswer.time(1_795_437_000_007) == .string("2026-11-23T12:30:00.007Z"))
    }

    @Test func spansInSeconds() {
        #expect(BridgeClock.seconds(from: 1000, to: 3500) == 2.5)
        #expect(BridgeClock.seconds(.milliseconds(1500)) == 1.5)
    }
}
