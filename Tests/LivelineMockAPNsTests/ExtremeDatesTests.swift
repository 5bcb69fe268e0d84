import Liveline
import LivelineMockAPNs
import Testing

/// Dates in `aps` are any JSON number: one far out of range (or infinite, past Double's range)
/// reaches the device like any other and must not stop the mock.
@Suite("Dates far out of range")
struct ExtremeDatesTests {
    static let state = #"{"status":"on-the-way","minutes":12}"#

    static func body(timestamp: String, extra: String = "", event: String = "update") -> String {
        #"{"aps":{"timestamp":\#(timestamp),"event":"\#(event)","content-state":\#(state)\#(extra.isEmpty ? "" : "," + extra)}}"#
    }

    @Test("a timestamp of 1e300, then one not newer, then infinity", arguments: ["1e300", "1e400", "-1e300"])
    func hugeTimestamps(_ timestamp: String) async throws {
        let device = try await DeviceSession.start()
        let first = try #require(try await device.push(Self.body(timestamp: timestamp)))
        #expect(first.outcome == .rendered)
        #expect(first.reasons.contains { $0.hasPrefix("aps.timestamp ") } == (timestamp != "-1e300"))
        let second = try #require(try await device.push(Self.body(timestamp: timestamp)))
        #expect(second.outcome == .droppedOld)
        #expect(second.reasons.first?.hasPrefix("timestamp ") == true)
        // The mock still answers.
        #expect(try await device.push(Self.body(timestamp: "1e400")) != nil)
        await device.stop()
    }

    @Test("stale and dismissal dates of ±1e300")
    func hugeStaleAndDismissalDates() async throws {
        let device = try await DeviceSession.start()
        let stale = try #require(
            try await device.push(Self.body(timestamp: String(device.now), extra: #""stale-date":-1e300"#)))
        #expect(stale.reasons.contains { $0.hasPrefix("stale-date is already past") })
        let far = try #require(
            try await device.push(Self.body(timestamp: String(device.now + 1), extra: #""stale-date":1e300"#)))
        #expect(far.outcome == .rendered)
        #expect(device.activity()?.lifecycle == .active)
        let end = try #require(
            try await device.push(
                Self.body(timestamp: String(device.now + 2), extra: #""dismissal-date":1e999"#, event: "end")))
        #expect(end.lifecycle == .ended)
        device.clock.advance(by: .milliseconds(4 * 3_600_000))
        #expect(device.activity()?.lifecycle == .dismissed, "the system's 4 hours still end it")
        await device.stop()
    }
}
