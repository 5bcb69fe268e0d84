import Liveline
import LivelineMockAPNs
import Testing

/// Traps a real device falls into silently, which the mock must call out: dates in the wrong
/// unit, and a start naming a type the app does not have.
@Suite struct DeviceTruthTests {
    @Test func aTimestampInMillisecondsRendersWithAWarningAndThenEveryPushInSecondsIsDroppedAndSaysWhy() async throws {
        let device = try await DeviceSession.start()
        let millis = try #require(try await device.push(timestamp: device.now * 1000))
        #expect(millis.outcome == .rendered)
        #expect(
            millis.reasons.contains {
                $0.contains("aps.timestamp") && $0.contains("looks like milliseconds")
                    && $0.contains("every later push in seconds will look old")
            }, "\(millis.reasons)")
        let seconds = try #require(
            try await device.push(timestamp: device.now + 1, state: #"{"status":"later","minutes":3}"#))
        #expect(seconds.outcome == .droppedOld)
        #expect(seconds.reasons.first?.contains("sent in milliseconds") == true, "\(seconds.reasons)")
        await device.stop()
    }

    @Test func aStaleOrDismissalDateInMillisecondsIsCalledOut() async throws {
        let device = try await DeviceSession.start()
        let stale = try #require(try await device.push(extra: #""stale-date":\#((device.now + 600) * 1000)"#))
        #expect(stale.outcome == .rendered)
        #expect(
            stale.reasons.contains { $0.contains("aps.stale-date") && $0.contains("never show as stale") },
            "\(stale.reasons)")
        let end = try #require(
            try await device.push(
                event: "end", timestamp: device.now + 1, extra: #""dismissal-date":\#((device.now + 60) * 1000)"#))
        #expect(
            end.reasons.contains { $0.contains("aps.dismissal-date") && $0.contains("up to 4 hours") }, "\(end.reasons)"
        )
        await device.stop()
    }

    @Test func timestampsInSecondsSince2001AreCalledOut() async throws {
        let device = try await DeviceSession.start()
        let early = try #require(try await device.push(timestamp: device.now - 978_307_200))
        #expect(early.reasons.contains { $0.contains("seconds since 2001") }, "\(early.reasons)")
        let right = try #require(
            try await device.push(timestamp: device.now, state: #"{"status":"later","minutes":3}"#))
        #expect(right.outcome == .rendered && right.reasons.isEmpty, "\(right.reasons)")
        await device.stop()
    }

    @Test func aStartOfATypeNoScenarioDeclaresWouldNotRender() async throws {
        let shape = StateObject([("status", .string("")), ("minutes", .int(0))])
        let device = try await DeviceSession.start {
            $0.contentStateShapes = ContentStateShapes(byAttributesType: ["DeliveryAttributes": shape])
        }
        let known = try #require(
            try await device.push(event: "start", extra: DeviceTests.startExtra, to: DeviceTests.pushToStart))
        #expect(known.outcome == .rendered, "\(known.reasons)")
        let unknownExtra = DeviceTests.startExtra.replacingOccurrences(
            of: "DeliveryAttributes", with: "OrderAttributes")
        let unknown = try #require(
            try await device.push(event: "start", extra: unknownExtra, to: DeviceTests.pushToStart))
        #expect(unknown.outcome == .wouldNotRender)
        #expect(
            unknown.reasons.contains {
                $0.contains("attributes-type 'OrderAttributes' is not one the app declares")
                    && $0.contains("DeliveryAttributes")
            }, "\(unknown.reasons)")
        await device.stop()
    }

    /// JSON allows a lone `\ud83d`, but Foundation's JSONDecoder (what ActivityKit decodes with)
    /// refuses the whole document; found by the `json` fuzz target.
    @Test func aLoneSurrogateEscapeWouldNotRenderAndAFullPairDoes() async throws {
        let device = try await DeviceSession.start()
        let lone = try #require(try await device.push(state: #"{"status":"on the way \ud83d","minutes":12}"#))
        #expect(lone.outcome == .wouldNotRender)
        #expect(
            lone.reasons.contains { $0.contains("half a UTF-16 surrogate pair") && $0.contains("JSONDecoder refuses") },
            "\(lone.reasons)")
        let pair = try #require(
            try await device.push(
                timestamp: device.now + 1, state: #"{"status":"on the way \ud83d\ude9a","minutes":11}"#))
        #expect(pair.outcome == .rendered, "\(pair.reasons)")
        await device.stop()
    }
}
