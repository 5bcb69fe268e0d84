import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import Testing

/// What ``PushDelivery`` keeps per activity: nothing once an activity's pushes are answered,
/// without changing where a later push goes; and targets computed instead of registered.
@Suite(.serialized) struct DeliveryStateTests {
    static let order = """
        liveline: 1
        bundle-id: com.example.matchday
        policy: { min-interval: 0, stale-after: 10m }
        activities:
          - name: order
            attributes-type: OrderAttributes
            content-state: { minute: 0, message: "Order placed" }
            beats:
              - { id: tick, every: 10s, count: 3, set: { minute: "{{ n }}" } }
              - { id: done, at: 40s, set: { message: "Delivered" }, end: { dismissal: 10m } }
        """

    /// The order's pushes under the virtual clock, starting now.
    static func pushes() throws -> [Push] {
        let scenario = try ScenarioLoader().load(yaml: order, file: "order.yaml").scenario
        var run = ScenarioRun(scenario: scenario, start: WallClock().now())
        var sink = CollectingSink()
        run.run(into: &sink)
        return sink.pushes
    }

    /// `push` for activity `activity` instead of its own.
    static func push(_ push: Push, for activity: Int) -> Push {
        var copy = push
        copy.activity = activity
        return copy
    }

    /// Submits `pushes` one after the other, each once the one before is answered (as the load
    /// runner does), and waits for the last.
    static func deliverInTurn(_ pushes: [Push], through delivery: PushDelivery) async {
        for push in pushes {
            delivery.submit(push)
            await delivery.waitUntilIdle()
        }
    }

    @Test func anEndedActivityKeepsNoDeliveryStateAndAPushForItLaterStillGoesToItsToken() async throws {
        let session = try await MockSession.start(configure: { $0.historyPerToken = 20 })
        let log = EventLog()
        let delivery = PushDelivery(client: session.client, configuration: .init(bundleID: MockSession.bundleID)) {
            log.append($0)
        }
        let token = MockSession.token(60)
        delivery.setTarget(.device(token), for: 0)
        let pushes = try Self.pushes()
        #expect(pushes.last?.event == .end)

        // Once its end is answered, nothing is left for the activity.
        delivery.submit(pushes[0])
        delivery.submit(pushes[1])
        await delivery.waitUntilIdle()
        await Self.deliverInTurn(Array(pushes.dropFirst(2)), through: delivery)
        #expect(delivery.activitiesWithUnfinishedPushes == 0)
        #expect(delivery.pendingPushes.isEmpty)
        #expect(delivery.outstanding == 0)
        #expect(log.delivered.map(\.sequence) == pushes.map(\.sequence))
        #expect(session.server.activity(token: token)?.lifecycle == .ended)

        // A push that comes after the end still goes to the activity's token, in order, and is
        // answered as before (the device ignores it, as iOS does after the end).
        var late = try #require(pushes.dropLast().last)
        late.sequence = pushes.count
        late.timestamp = try #require(pushes.last).timestamp + 1
        delivery.submit(late)
        await delivery.waitUntilIdle()
        #expect(log.delivered.last?.sequence == late.sequence)
        #expect(session.server.pushes(token: token).count == pushes.count + 1)
        #expect(session.server.activity(token: token)?.counters.ignoredAfterEnd == 1)
        #expect(delivery.activitiesWithUnfinishedPushes == 0)
        await session.stop()
    }

    @Test func aStoppedActivityKeepsItsReasonAndTakesNoMorePushes() async throws {
        let gone = MockSession.token(61)
        let session = try await MockSession.start(configure: { $0.faults = FaultPlan(unregisteredTokens: [gone]) })
        let log = EventLog()
        let delivery = PushDelivery(client: session.client, configuration: .init(bundleID: MockSession.bundleID)) {
            log.append($0)
        }
        delivery.setTarget(.device(gone), for: 0)
        let pushes = try Self.pushes()
        delivery.submit(pushes[0])
        delivery.submit(pushes[1])
        await delivery.waitUntilIdle()
        #expect(delivery.stopReason(for: 0)?.contains("410") == true)
        #expect(delivery.activitiesWithUnfinishedPushes == 0)
        delivery.submit(pushes[2])
        #expect(delivery.outstanding == 0, "a stopped activity's pushes are not accepted")
        #expect(session.server.stats().requests == 1)
        await session.stop()
    }

    @Test func aTargetResolverAddressesActivitiesThatWereNeverGivenOneAndSetTargetWins() async throws {
        let session = try await MockSession.start(configure: { $0.historyPerToken = 20 })
        let log = EventLog()
        let resolved = MockSession.token(62), registered = MockSession.token(63), late = MockSession.token(64)
        let delivery = PushDelivery(
            client: session.client,
            configuration: .init(bundleID: MockSession.bundleID, targetResolver: { $0 < 2 ? .device(resolved) : nil })
        ) { log.append($0) }
        let pushes = try Self.pushes()
        // Activity 0 follows the resolver; activity 1 was given a target of its own; activity 2
        // has neither, so its push waits until it is given one.
        delivery.setTarget(.device(registered), for: 1)
        delivery.submit(Self.push(pushes[0], for: 0))
        delivery.submit(Self.push(pushes[0], for: 1))
        delivery.submit(Self.push(pushes[0], for: 2))
        try await eventually("the first two to be delivered") { log.delivered.count == 2 }
        #expect(delivery.outstanding == 1)
        #expect(delivery.activitiesWithUnfinishedPushes == 1)
        #expect(session.server.pushes(token: resolved).count == 1)
        #expect(session.server.pushes(token: registered).count == 1)
        delivery.setTarget(.device(late), for: 2)
        await delivery.waitUntilIdle()
        #expect(session.server.pushes(token: late).count == 1)
        #expect(Set(log.delivered.map(\.activity)) == [0, 1, 2])
        #expect(delivery.activitiesWithUnfinishedPushes == 0)
        await session.stop()
    }
}
