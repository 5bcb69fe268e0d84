import Liveline
import Testing
@testable import LivelineMockAPNs

/// The dates of `aps` as the device keeps and reports them.
@Suite struct PayloadSecondsTests {
    static let values: [Double] = [
        0, -0.0, 1, -1, 1_700_000_000, 1_700_000_000.9, -1.5, 99_999, 1e15, 9.19e18, -9.19e18, 9.3e18, 1e300, -1e300,
        .infinity, -.infinity, 1e-300,
    ]

    @Test func theDroppedAsOldReasonReadsAsJoinedText() {
        for timestamp in Self.values {
            for last in Self.values {
                let expected =
                    "timestamp " + PayloadSeconds.text(timestamp) + " is not newer than " + PayloadSeconds.text(last)
                    + ", the content shown"
                #expect(PayloadSeconds.notNewerReason(timestamp, last) == expected)
            }
        }
        #expect(
            PayloadSeconds.notNewerReason(1_700_000_000, 1_700_000_001)
                == "timestamp 1700000000 is not newer than 1700000001, the content shown")
    }

    @Test func wholeSecondsAreShownAsIntegersAndTheRestAsDoubles() {
        #expect(PayloadSeconds.text(1_700_000_000.9) == "1700000000")
        #expect(PayloadSeconds.text(-1.5) == "-1")
        #expect(PayloadSeconds.text(-0.0) == "0")
        #expect(PayloadSeconds.text(1e300) == "1e+300")
        #expect(PayloadSeconds.text(.infinity) == "inf")
    }

    @Test func instantsAreClampedFarOut() {
        #expect(PayloadSeconds.millis(1.5) == 1500)
        #expect(PayloadSeconds.millis(-2) == -2000)
        #expect(PayloadSeconds.millis(1e300) == PayloadSeconds.limitMillis)
        #expect(PayloadSeconds.millis(-.infinity) == -PayloadSeconds.limitMillis)
    }
}
