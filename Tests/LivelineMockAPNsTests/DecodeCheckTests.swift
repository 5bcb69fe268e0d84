import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("Decode checks: what APNs accepts but the device would not render")
struct DecodeCheckTests {
    func expectWouldNotRender(
        _ delivery: DeviceDelivery?, mentioning text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(delivery?.outcome == .wouldNotRender, sourceLocation: sourceLocation)
        #expect(
            delivery?.reasons.contains { $0.contains(text) } == true, "\(delivery?.reasons ?? [])",
            sourceLocation: sourceLocation)
    }

    @Test("a field whose JSON type differs from the first state would not render")
    func typeChange() async throws {
        let device = try await DeviceSession.start()
        try await device.push(timestamp: 1, state: #"{"status":"a","minutes":12}"#)
        let changed = try await device.push(timestamp: 2, state: #"{"status":"b","minutes":"12"}"#)
        expectWouldNotRender(changed, mentioning: "content-state.minutes was an integer, now a string")
        let decimal = try await device.push(timestamp: 3, state: #"{"status":"b","minutes":12.5}"#)
        expectWouldNotRender(decimal, mentioning: "was an integer, now a decimal number")
        #expect(device.activity()?.counters.wouldNotRender == 2)
        #expect(device.activity()?.contentState?.objectValue?["status"] == .string("a"))
        await device.stop()
    }

    @Test("a reason names a nested field by its whole path")
    func nestedPaths() async throws {
        let device = try await DeviceSession.start()
        try await device.push(
            timestamp: 1, state: #"{"driver":{"rating":4.5,"name":"Ana"},"stops":[{"done":true},{"done":false}]}"#)
        let changed = try #require(
            try await device.push(
                timestamp: 2, state: #"{"driver":{"rating":"high","name":"Ana"},"stops":[{"done":true},{},[1]]}"#))
        #expect(changed.outcome == .wouldNotRender)
        #expect(
            changed.reasons == [
                "content-state.driver.rating was a decimal number, now a string: the app's decoder fails",
                "content-state.stops[1].done is missing; the app's ContentState requires it",
                "content-state.stops[2] was an object, now a list: the app's decoder fails",
            ])
        await device.stop()
    }

    @Test("an integer fits a decimal field, and extra keys are ignored")
    func compatibleChangesRender() async throws {
        let device = try await DeviceSession.start()
        try await device.push(timestamp: 1, state: #"{"progress":0.5}"#)
        let update = try await device.push(timestamp: 2, state: #"{"progress":1,"extra":true}"#)
        #expect(update?.outcome == .rendered)
        await device.stop()
    }

    @Test("a missing or null non-optional field would not render; an optional field may be null")
    func missingAndNullFields() async throws {
        let device = try await DeviceSession.start()
        try await device.push(timestamp: 1, state: #"{"status":"a","courier":null}"#)
        expectWouldNotRender(
            try await device.push(timestamp: 2, state: #"{"courier":null}"#),
            mentioning: "content-state.status is missing")
        expectWouldNotRender(
            try await device.push(timestamp: 3, state: #"{"status":null}"#), mentioning: "content-state.status is null")
        #expect(try await device.push(timestamp: 4, state: #"{"status":"b","courier":"Sam"}"#)?.outcome == .rendered)
        #expect(try await device.push(timestamp: 5, state: #"{"status":"c"}"#)?.outcome == .rendered)
        expectWouldNotRender(
            try await device.push(timestamp: 6, state: #"{"status":"d","courier":7}"#),
            mentioning: "content-state.courier was a string, now an integer")
        await device.stop()
    }

    @Test("snake_case keys where camelCase was established would not render")
    func snakeCaseKeys() async throws {
        let device = try await DeviceSession.start()
        try await device.push(timestamp: 1, state: #"{"homeScore":0,"awayScore":0}"#)
        let snake = try await device.push(timestamp: 2, state: #"{"home_score":1,"awayScore":0}"#)
        expectWouldNotRender(snake, mentioning: "content-state.home_score is snake_case; the app expects homeScore")
        await device.stop()
    }

    @Test("a number near the current UNIX time looks like a UNIX-seconds Date and would not render")
    func unixSecondsHeuristic() async throws {
        let device = try await DeviceSession.start()
        let bad = try await device.push(timestamp: 1, state: #"{"eta":\#(device.now + 600)}"#)
        expectWouldNotRender(bad, mentioning: "looks like UNIX seconds")
        let good = try await device.push(timestamp: 2, state: #"{"eta":\#(device.referenceDate(600))}"#)
        #expect(good?.outcome == .rendered)
        await device.stop()
    }

    @Test("with a declared shape, Date fields reject UNIX seconds and ISO-8601 strings, and types follow the shape")
    func declaredShape() async throws {
        let shape = StateObject([("eta", .date(0)), ("window", .dateRange(0, 0)), ("stops", .int(0))])
        let device = try await DeviceSession.start { $0.contentStateShapes = ContentStateShapes(fallback: shape) }
        let ref = device.referenceDate(600)
        #expect(
            try await device.push(timestamp: 1, state: #"{"eta":\#(ref),"window":[\#(ref),\#(ref + 60)],"stops":3}"#)?
                .outcome == .rendered)
        expectWouldNotRender(
            try await device.push(timestamp: 2, state: #"{"eta":1900000000,"window":[\#(ref),\#(ref)],"stops":3}"#),
            mentioning: "content-state.eta is 1900000000, which looks like UNIX seconds")
        expectWouldNotRender(
            try await device.push(
                timestamp: 3, state: #"{"eta":"2027-01-15T08:10:00Z","window":[\#(ref),\#(ref)],"stops":3}"#),
            mentioning: "not ISO-8601 text")
        expectWouldNotRender(
            try await device.push(timestamp: 4, state: #"{"eta":\#(ref),"window":[\#(ref + 60),\#(ref)],"stops":3}"#),
            mentioning: "lower > upper")
        expectWouldNotRender(
            try await device.push(timestamp: 5, state: #"{"eta":\#(ref),"window":[\#(ref),\#(ref)],"stops":3.5}"#),
            mentioning: "content-state.stops was an integer, now a decimal number")
        await device.stop()
    }

    @Test("a start without alert, attributes-type or attributes would not render")
    func startRequirements() async throws {
        let device = try await DeviceSession.start()
        let token = DeviceTests.pushToStart
        expectWouldNotRender(
            try await device.push(event: "start", extra: #""attributes-type":"A","attributes":{}"#, to: token),
            mentioning: "a start without alert")
        expectWouldNotRender(
            try await device.push(event: "start", extra: #""alert":{"title":"t"},"attributes":{}"#, to: token),
            mentioning: "attributes-type")
        expectWouldNotRender(
            try await device.push(event: "start", extra: #""alert":{"title":"t"},"attributes-type":"A""#, to: token),
            mentioning: "a start needs attributes")
        #expect(device.server.activities().allSatisfy { $0.lifecycle == .pending })
        await device.stop()
    }

    @Test("a stale-date already past would not render")
    func staleDateInThePast() async throws {
        let device = try await DeviceSession.start()
        let delivery = try await device.push(extra: #""stale-date":\#(device.now - 60)"#)
        expectWouldNotRender(delivery, mentioning: "stale-date is already past (1m ago)")
        await device.stop()
    }

    @Test("a dismissal-date on an update would not render")
    func dismissalDateOnUpdate() async throws {
        let device = try await DeviceSession.start()
        let delivery = try await device.push(extra: #""dismissal-date":\#(device.now + 60)"#)
        expectWouldNotRender(delivery, mentioning: "dismissal-date on a update event")
        await device.stop()
    }

    @Test("a payload without aps, event or timestamp would not render")
    func malformedAps() async throws {
        let device = try await DeviceSession.start()
        expectWouldNotRender(try await device.push(#"{"hello":1}"#), mentioning: "no aps dictionary")
        expectWouldNotRender(
            try await device.push(#"{"aps":{"timestamp":1,"content-state":{}}}"#), mentioning: "aps.event is missing")
        expectWouldNotRender(
            try await device.push(#"{"aps":{"event":"update","content-state":{}}}"#),
            mentioning: "aps.timestamp is missing")
        await device.stop()
    }
}
