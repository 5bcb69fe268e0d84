import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// The dispatcher and the outbox sender on both stores against a real mock APNs, in virtual time.
@Suite struct DispatcherTests {
    @Test(arguments: StoreKind.allCases)
    func aDeliveryStoryReachesTheDeviceInOrderAndALateEventIsSuperseded(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(1)
            try await bridge.register("D-1", updateToken: token)
            #expect(try await bridge.receive("doordash", doordash("DASHER_CONFIRMED")) != .duplicate)
            // DoorDash has no event id: a retry of the same body is a duplicate.
            #expect(try await bridge.receive("doordash", doordash("DASHER_CONFIRMED")) == .duplicate)
            try await bridge.settle()
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")

            // A late, older status (another body, so not a duplicate) never moves it back.
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", eta: "2027-01-15T18:45:00Z"))
            try await bridge.settle()
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_DROPPED_OFF"))
            try await bridge.settle()
            let snapshot = try #require(bridge.mock.activity(token: token))
            #expect(snapshot.lifecycle == .ended)
            #expect(bridge.shown(token)["status"]?.stringValue == "delivered")
            let timestamps = bridge.timestamps(token)
            #expect(timestamps.count == 3)
            #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count)
            let record = try #require(try await bridge.store.activity("D-1"))
            #expect(record.lifecycle == .ended)
            #expect(record.lastPush?.status == 200)
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func eventsBeforeRegistrationWaitAndApplyWhenTheTokenArrives(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", delivery: "D-2"))
            try await bridge.run(for: 5)
            #expect(try await bridge.store.counts().pendingEvents == 2)
            let token = BridgeHarness.token(2)
            try await bridge.register("D-2", updateToken: token)
            try await bridge.settle()
            #expect(try await bridge.store.counts().pendingEvents == 0)
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way", "\(bridge.mock.pushes(token: token))")
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")
            // Both events in one step: one push carries them.
            #expect(bridge.timestamps(token).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRestartResumesTheStoryAndItsHeartbeats(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(3)
            try await bridge.register("D-3", updateToken: token)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-3"))
            try await bridge.settle()
            let before = try #require(try await bridge.store.activity("D-3"))
            let deadline = try #require(before.nextDeadline)
            // The stale date is 10 minutes out; the heartbeat comes before it.
            #expect(deadline - bridge.now > 60_000 && deadline - bridge.now < 600_000)

            // A new dispatcher and sender (a restarted process) on the same store.
            let restarted = BridgeDispatcher(
                store: bridge.store, catalog: bridge.catalog, configuration: .init(instance: "after-restart"))
            let sender = OutboxSender(
                store: bridge.store, clients: APNsClients(bridge.client),
                configuration: .init(instance: "after-restart"))
            bridge.clock.set(deadline + 1)
            try await restarted.dispatch(now: bridge.now)
            try await sender.send(now: bridge.now)
            let timestamps = bridge.timestamps(token)
            #expect(timestamps.count == 2, "the heartbeat was sent after the restart")
            #expect(bridge.mock.activity(token: token)?.staleDate ?? 0 > bridge.clock.now())
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")

            // The next event continues the same story (the state carried over).
            bridge.advance(seconds: 30)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", delivery: "D-3"))
            try await restarted.dispatch(now: bridge.now)
            try await sender.send(now: bridge.now)
            #expect(
                bridge.shown(token)["status"]?.stringValue == "on-the-way",
                "\(bridge.mock.pushes(token: token).map(\.payload))")
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anOutageRetriesThenDeadLettersAndReplaySendsTheCurrentState(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(4)
            try await bridge.register("D-4", updateToken: token)
            bridge.mock.setFaults(
                FaultPlan(errors: [.init(error: APNsError(status: 503, reason: "ServiceUnavailable"), rate: 1)]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-4"))
            try await bridge.run(for: 20)
            // Three attempts (the harness's policy), then the dead letters.
            let letters = try await bridge.store.deadLetters(limit: 10)
            #expect(letters.count == 1)
            #expect(letters.first?.attempts == 3)
            #expect(letters.first?.lastError.contains("503") == true)
            #expect(try await bridge.store.activity("D-4")?.lastError?.contains("ServiceUnavailable") == true)

            // Meanwhile the story went on (APNs still down).
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", delivery: "D-4"))
            try await bridge.run(for: 20)

            bridge.mock.setFaults(FaultPlan())
            let replayAt = bridge.clock.now() / 1000
            for letter in try await bridge.store.deadLetters(limit: 10) {
                #expect(try await bridge.dispatcher.replay(letter, now: bridge.now) == .queued(pushes: 1))
            }
            try await bridge.settle()
            #expect(try await bridge.store.deadLetters(limit: 10).isEmpty)
            // The device shows the newest state, sent with a fresh timestamp.
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
            #expect(bridge.timestamps(token).allSatisfy { $0 >= replayAt })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDeadTokenIsForgottenAndANewOneTakesOver(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let old = BridgeHarness.token(5)
            try await bridge.register("D-5", updateToken: old)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [old]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-5"))
            try await bridge.settle()
            #expect(try await bridge.store.activity("D-5")?.updateToken == nil)
            #expect(try await bridge.store.deadLetters(limit: 10).first?.lastError.contains("410") == true)

            bridge.advance(seconds: 30)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", delivery: "D-5"))
            try await bridge.settle()
            #expect(try await bridge.store.counts().pendingEvents == 1, "waits for a token")
            let new = BridgeHarness.token(6)
            try await bridge.register("D-5", updateToken: new)
            try await bridge.settle()
            #expect(bridge.shown(new)["status"]?.stringValue == "on-the-way")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anETAStormCoalescesWithinTheMinimumInterval(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(7)
            try await bridge.register("U-1", updateToken: token, source: "uber")
            let start = Int(bridge.clock.now() / 1000)
            // Sixty ETA updates over thirty seconds, two a second.
            for index in 0..<60 {
                let body = uberETA(
                    id: "evt-\(index)", delivery: "U-1", created: start + index / 2, etaMinute: 10 + index % 40)
                try await bridge.receive("uber", body)
                if index % 2 == 1 {
                    bridge.advance(seconds: 1)
                    try await bridge.settle()
                }
            }
            try await bridge.run(for: 30)
            let timestamps = bridge.timestamps(token)
            // min-interval 15s: the first at once, then one per 15 s carrying the newest ETA.
            #expect(timestamps.count >= 2 && timestamps.count <= 4, "\(timestamps)")
            #expect(try await bridge.store.counts().pendingEvents == 0)
            #expect(bridge.shown(token)["eta"] != nil)
        }
    }

    /// The receipt-to-APNs metric measures the bridge: the push sent at once for a webhook
    /// carries its receipt; one the policy held (min-interval) carries none, and the pass
    /// reports its deadline so the loop wakes then.
    @Test(arguments: StoreKind.allCases)
    func onlyAPushSentAtOnceCarriesItsWebhooksReceipt(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(9)
            try await bridge.register("U-9", updateToken: token, source: "uber")
            let start = Int(bridge.clock.now() / 1000)
            func eta(_ index: Int) -> String {
                uberETA(id: "evt-9-\(index)", delivery: "U-9", created: start + index, etaMinute: 10 + index)
            }
            try await bridge.receive("uber", eta(0))
            let received = bridge.now
            try await bridge.dispatcher.dispatch(now: bridge.now)
            let first = try await bridge.store.claimDuePushes(
                limit: 10, instance: "test", lease: .seconds(30), now: bridge.now)
            #expect(first.count == 1)
            #expect(first.first?.push.receivedAt == received)

            bridge.advance(seconds: 2)
            try await bridge.receive("uber", eta(1))
            let held = try await bridge.dispatcher.dispatch(now: bridge.now)
            #expect(held.pushes == 0, "min-interval holds the second ETA")
            let deadline = try #require(held.deadlines.first)
            #expect(deadline > bridge.now && deadline <= bridge.now + 15_000)

            bridge.advance(seconds: 30)
            _ = try await bridge.store.writePushOutcomes(
                first.map { .sent($0.id, answer: PushAnswer(at: bridge.now, status: 200, reason: nil, apnsID: nil)) })
            #expect(try await bridge.dispatcher.dispatch(now: bridge.now).pushes == 1)
            let later = try await bridge.store.claimDuePushes(
                limit: 10, instance: "test", lease: .seconds(30), now: bridge.now)
            #expect(later.count == 1)
            #expect(later.first?.push.receivedAt == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDeadInstancesActivityIsTakenOverAndItsLateCommitRefused(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(8)
            try await bridge.register("D-8", updateToken: token)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-8"))
            // Instance "a" leases the activity (as a dead letter's replay does) and dies before committing.
            let a = BridgeDispatcher(
                store: bridge.store, catalog: bridge.catalog, configuration: .init(instance: "a", lease: .seconds(5)))
            let b = BridgeDispatcher(
                store: bridge.store, catalog: bridge.catalog, configuration: .init(instance: "b", lease: .seconds(5)))
            let claimed = try await bridge.store.claimActivity(
                "D-8", instance: "a", lease: .seconds(5), now: bridge.now)
            #expect(claimed?.activity.activityKey == "D-8")
            // While a's lease lives, b finds nothing to do.
            #expect(try await b.dispatch(now: bridge.now).activities == 0)
            bridge.advance(seconds: 6)
            #expect(try await b.dispatch(now: bridge.now).applied == 1)
            // a wakes up and tries to commit what it decided: refused, nothing doubled.
            let late = a.step(try #require(claimed), now: bridge.now)
            #expect(try await !bridge.store.commitDispatch(late, instance: "a"))
            try await bridge.sender.send(now: bridge.now)
            #expect(bridge.timestamps(token).count == 1)
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")
        }
    }
}
