import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("The device behind each token")
struct DeviceTests {
    static let startExtra =
        #""attributes-type":"DeliveryAttributes","attributes":{"order":42},"alert":{"title":"Order 42","body":"On its way"}"#
    static let pushToStart = String(repeating: "5a", count: 32)

    @Test("an activity moves pending → active → stale → active → ended → dismissed in virtual time")
    func lifecycleInVirtualTime() async throws {
        let device = try await DeviceSession.start()
        let start = try #require(
            try await device.push(
                event: "start", extra: Self.startExtra + #","input-push-token":1"#, to: Self.pushToStart))
        #expect(start.outcome == .rendered)
        #expect(start.started)
        #expect(start.lifecycle == .active)
        let token = try #require(start.updateToken)

        try await device.push(timestamp: device.now + 1, extra: #""stale-date":\#(device.now + 600)"#, to: token)
        #expect(device.activity(token)?.lifecycle == .active)
        device.clock.advance(by: .milliseconds(601_000))
        #expect(device.activity(token)?.lifecycle == .stale)

        let update = try await device.push(extra: #""stale-date":\#(device.now + 600)"#, to: token)
        #expect(update?.lifecycle == .active)

        device.clock.advance(by: .milliseconds(1000))
        let end = try await device.push(event: "end", extra: #""dismissal-date":\#(device.now + 300)"#, to: token)
        #expect(end?.lifecycle == .ended)
        device.clock.advance(by: .milliseconds(299_000))
        #expect(device.activity(token)?.lifecycle == .ended)
        device.clock.advance(by: .milliseconds(1000))
        #expect(device.activity(token)?.lifecycle == .dismissed)
        await device.stop()
    }

    @Test("the system ends an activity after 8 hours and removes it 4 hours later")
    func systemLimits() async throws {
        let device = try await DeviceSession.start()
        try await device.push()
        device.clock.advance(by: .milliseconds(8 * 3_600_000))
        #expect(device.activity()?.lifecycle == .ended)
        let late = try await device.push()
        #expect(late?.outcome == .ignoredAfterEnd)
        device.clock.advance(by: .milliseconds(4 * 3_600_000))
        #expect(device.activity()?.lifecycle == .dismissed)
        await device.stop()
    }

    @Test("an ended activity without dismissal-date stays up to 4 hours; a past dismissal-date removes it at once")
    func dismissalRules() async throws {
        let device = try await DeviceSession.start()
        try await device.push(event: "end")
        device.clock.advance(by: .milliseconds(4 * 3_600_000 - 1000))
        #expect(device.activity()?.lifecycle == .ended)
        device.clock.advance(by: .milliseconds(1000))
        #expect(device.activity()?.lifecycle == .dismissed)

        let other = String(repeating: "cd", count: 32)
        try await device.push(to: other)
        try await device.push(
            event: "end", timestamp: device.now + 1, extra: #""dismissal-date":\#(device.now - 10)"#, to: other)
        #expect(device.activity(other)?.lifecycle == .dismissed)
        await device.stop()
    }

    @Test("pushes after the end are ignored and counted")
    func pushesAfterEndAreIgnored() async throws {
        let device = try await DeviceSession.start()
        try await device.push(event: "end")
        let after = try await device.push(timestamp: device.now + 5, state: #"{"status":"back","minutes":1}"#)
        #expect(after?.outcome == .ignoredAfterEnd)
        #expect(device.activity()?.contentState?.objectValue?["status"] == .string("on-the-way"))
        #expect(device.activity()?.counters.ignoredAfterEnd == 1)
        await device.stop()
    }

    @Test("the newest timestamp wins: an older or equal timestamp is dropped and counted")
    func newestTimestampWins() async throws {
        let device = try await DeviceSession.start()
        try await device.push(timestamp: 1_000, state: #"{"status":"b","minutes":2}"#)
        let older = try await device.push(timestamp: 999, state: #"{"status":"a","minutes":1}"#)
        let equal = try await device.push(timestamp: 1_000, state: #"{"status":"a","minutes":1}"#)
        #expect(older?.outcome == .droppedOld)
        #expect(equal?.outcome == .droppedOld)
        let activity = try #require(device.activity())
        #expect(activity.counters.droppedOld == 2)
        #expect(activity.contentState?.objectValue?["status"] == .string("b"))
        await device.stop()
    }

    @Test("priority 10 spends the budget and throttles when it is empty; priority 5 is free; the budget refills")
    func budget() async throws {
        let device = try await DeviceSession.start { $0.budget = .init(perHour: 2) }
        var timestamp = device.now
        func next() -> Int64 {
            timestamp += 1
            return timestamp
        }
        #expect(try await device.push(timestamp: next(), priority: "10")?.outcome == .rendered)
        #expect(try await device.push(timestamp: next(), priority: "10")?.outcome == .rendered)
        let throttled = try await device.push(timestamp: next(), priority: "10")
        #expect(throttled?.outcome == .throttled)
        #expect(try await device.push(timestamp: next(), priority: "5")?.outcome == .rendered)
        #expect(device.activity()?.counters.throttled == 1)
        #expect(device.activity()?.budgetRemaining == 0)
        device.clock.advance(by: .milliseconds(30 * 60_000))
        #expect(device.activity()?.budgetRemaining == 1)
        #expect(try await device.push(timestamp: next(), priority: "10")?.outcome == .rendered)
        await device.stop()
    }

    @Test("frequent updates raise the default budget to the engine's")
    func frequentUpdatesBudget() async throws {
        let device = try await DeviceSession.start { $0.budget = .init(frequentUpdates: true) }
        try await device.push()
        #expect(device.activity()?.budgetRemaining == BudgetBucket.defaultPerHour(frequentUpdates: true))
        await device.stop()
    }

    @Test("relevance and alerts are recorded")
    func relevanceAndAlerts() async throws {
        let device = try await DeviceSession.start()
        try await device.push(extra: #""relevance-score":75.5,"alert":{"title":"Goal!","body":"1–0"}"#)
        let activity = try #require(device.activity())
        #expect(activity.relevanceScore == 75.5)
        #expect(activity.counters.alerts == 1)
        #expect(activity.lastAlert?.objectValue?["title"] == .string("Goal!"))
        await device.stop()
    }

    @Test("a push-to-start token makes a new activity per start, with its own update token")
    func pushToStartMakesActivities() async throws {
        let device = try await DeviceSession.start()
        let first = try #require(
            try await device.push(
                event: "start", extra: Self.startExtra + #","input-push-token":1"#, to: Self.pushToStart))
        let second = try #require(
            try await device.push(
                event: "start", timestamp: device.now + 1, extra: Self.startExtra, to: Self.pushToStart))
        #expect(first.activityID != second.activityID)
        #expect(first.updateToken != nil)
        #expect(second.updateToken == nil)
        let updateToken = try #require(first.updateToken)
        let activity = try #require(device.activity(updateToken))
        #expect(activity.attributesType == "DeliveryAttributes")
        #expect(activity.pushToStartToken == Self.pushToStart)
        #expect(device.server.activities().count == 2)
        await device.stop()
    }

    @Test("the live event stream reports each push with what the device did")
    func eventStreamFollowsPushes() async throws {
        let device = try await DeviceSession.start()
        let events = device.server.events()
        try await device.push()
        var iterator = events.makeAsyncIterator()
        let event = try #require(await iterator.next())
        #expect(event.token == Harness.token)
        #expect(event.status == 200)
        #expect(event.deliveries.first?.outcome == .rendered)
        #expect(event.deliveries.first?.lifecycle == .active)
        await device.stop()
        #expect(await iterator.next() == nil)
    }

    @Test("reset forgets activities and counters")
    func resetForgets() async throws {
        let device = try await DeviceSession.start()
        try await device.push()
        #expect(device.server.stats().activities == 1)
        device.server.reset()
        #expect(device.server.activities().isEmpty)
        #expect(device.server.stats().requests == 0)
        await device.stop()
    }
}
