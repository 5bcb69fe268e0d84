import Foundation
import HTTPTypes
import Liveline
import LivelineMockAPNs
import Logging
import Testing
@testable import LivelineBridge

/// The delivery history: what the bridge sent each activity and its followers, why, and what
/// APNs said, through a real mock APNs over TLS and the bridge's HTTP server on loopback, on
/// both stores, in virtual time.
@Suite struct PushHistoryTests {
    /// Serves the harness's store over HTTP on a free loopback port for `body`.
    static func withServer(
        _ kind: StoreKind, fanOut: FanOutSender.Configuration? = nil,
        _ body: (BridgeHarness, _ base: String) async throws -> Void
    ) async throws {
        try await withBridge(kind, fanOut: fanOut) { bridge in
            let server = BridgeHTTPServer(
                configuration: bridge.configuration, store: bridge.store, inbox: InboxWriter(store: bridge.store),
                metrics: BridgeMetrics(),
                logger: Logger(label: "liveline.tests.history", factory: { _ in SwiftLogNoOpLogHandler() }),
                listen: ListenAddress(host: "127.0.0.1", port: 0), wake: {},
                contentState: { bridge.dispatcher.contentState(of: $0) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                do {
                    try await body(bridge, "http://127.0.0.1:\(try await server.listeningPort())")
                } catch {
                    group.cancelAll()
                    throw error
                }
                group.cancelAll()
            }
        }
    }

    static func get(_ url: String) async throws -> (status: Int, json: [String: Any]) {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(RunningBridge.apiKey)"
        let answer = try await WebhookSender().send(to: url, method: .get, headers: headers, body: [])
        return (answer.status, try jsonObject(answer.text))
    }

    @Test(arguments: StoreKind.allCases)
    func eachPushIsRecordedWithItsReasonStateAnswerInstanceAndTimes(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { bridge, base in
            let token = BridgeHarness.token(7)
            try await bridge.register("D-1", updateToken: token)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            let stored = bridge.now
            try await bridge.settle()
            bridge.advance(seconds: 30)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", created: "2027-01-15T18:05:00Z"))
            try await bridge.settle()

            let records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records.count == 2)
            let first = try #require(records.last)
            #expect(records.first.map { $0.id > first.id } == true, "newest first")
            #expect(first.kind == .update && [5, 10].contains(first.priority) && first.outcome == .delivered)
            #expect(first.status == 200 && first.apnsReason == nil && first.instances == ["test"])
            #expect(first.reason.contains("DASHER_CONFIRMED") || first.reason.contains("beat"), "\(first.reason)")
            // Stored and sent on the virtual clock; answered on the wall clock the sender reads.
            #expect(first.storedAt == stored && first.sentAt == stored && first.answeredAt != nil)
            // The apns-id is the one the mock gave the push.
            let accepted = bridge.mock.pushes(token: token).filter { $0.status == 200 }
            #expect(accepted.count == 2)
            #expect(first.apnsID != nil && first.apnsID == accepted.first?.id)

            // Over HTTP, paged newest first, with the content-state it carried.
            let page = try await Self.get("\(base)/v1/activities/D-1/pushes?limit=1")
            #expect(page.status == 200)
            let pushes = try #require(page.json["pushes"] as? [[String: Any]])
            let newest = try #require(records.first)
            #expect(pushes.count == 1 && pushes.first?["id"] as? Int == Int(newest.id))
            let state = try #require(pushes.first?["content-state"] as? [String: Any])
            #expect(state["status"] as? String == "picked-up" || state["courierName"] as? String == "Priya", "\(state)")
            let next = try #require(page.json["next"] as? String)
            let second = try await Self.get(base + next)
            let older = try #require(second.json["pushes"] as? [[String: Any]])
            #expect(older.count == 1 && older.first?["id"] as? Int == Int(first.id))
            #expect(older.first?["status"] as? Int == 200 && older.first?["instance"] as? String == "test")
            #expect(older.first?["apns-id"] as? String == first.apnsID)
            #expect((older.first?["content-state"] as? [String: Any])?["courierName"] as? String == "Priya")
            #expect(try await Self.get("\(base)/v1/activities/D-1/pushes?limit=0").status == 400)
            #expect(try await Self.get("\(base)/v1/activities/nobody/pushes").status == 404)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefusedTokenIsRecordedWithAPNsReasonAndTheRetriesCount(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(8)
            try await bridge.register("D-1", updateToken: token)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [token]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            let records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records.map(\.outcome) == [.tokenGone])
            #expect(records.first?.status == 410 && records.first?.apnsReason == "Unregistered")
            #expect(records.first?.error?.contains("no longer valid") == true)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFanOutIsOneEntryWithItsCountsAndFailuresLinkingToFollowers(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { bridge, base in
            let followers = try await FanOutTests.audience(bridge, followers: 4)
            let gone = try #require(followers[1].updateToken)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [gone]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()

            let records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records.count == 1, "one entry for the whole audience, not one per device")
            let entry = try #require(records.first)
            #expect(entry.outcome == .fannedOut && entry.instances == ["test"])
            #expect(entry.fanOut?.sent == 3 && entry.fanOut?.failed == 1)
            #expect(entry.fanOut?.failures.map(\.reason) == ["Unregistered"])
            #expect(entry.fanOut?.failures.first?.devices == ["device-2"])

            let page = try await Self.get("\(base)/v1/activities/D-1/pushes")
            let fanOut = try #require((page.json["pushes"] as? [[String: Any]])?.first?["fan-out"] as? [String: Any])
            let failure = try #require((fanOut["failures"] as? [[String: Any]])?.first)
            #expect(failure["followers"] as? [String] == ["/v1/activities/D-1/followers/device-2"])

            // A follower's own view: its last push, delivered.
            let one = try await Self.get("\(base)/v1/activities/D-1/followers/device-1")
            #expect(one.status == 200)
            let last = try #require(one.json["last-push"] as? [String: Any])
            #expect(last["delivery"] as? String == "delivered" && last["id"] as? Int == Int(entry.id))
            // The gone follower was removed with its last token.
            #expect(try await Self.get("\(base)/v1/activities/D-1/followers/device-2").status == 404)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFollowerShowsQueuedRetryingAndItsCatchUp(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: FanOutTests.stepwise) { bridge in
            _ = try await FanOutTests.audience(bridge, followers: 4)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            // One range of two answered: the other two are still to come.
            #expect(try await bridge.fanOut.send(now: bridge.now).ranges == 1)
            let reached = try #require(try await bridge.store.followerLastPush(device: "device-1", activityKey: "D-1"))
            #expect(reached.outcome == .delivered)
            let waiting = try #require(try await bridge.store.followerLastPush(device: "device-4", activityKey: "D-1"))
            #expect(waiting.outcome == .queued && waiting.push.outcome == .fanningOut)
            try await bridge.settle()
            #expect(
                try await bridge.store.followerLastPush(device: "device-4", activityKey: "D-1")?.outcome == .delivered)

            // A device that joins later is sent its catch-up: its own answer.
            bridge.advance(seconds: 20)
            _ = try await bridge.store.putFollowers([FanOutTests.follower(5)], activityKey: "D-1", now: bridge.now)
            #expect(
                try await bridge.store.followerLastPush(device: "device-5", activityKey: "D-1")?.outcome != .delivered)
            try await bridge.settle()
            let late = try #require(try await bridge.store.followerLastPush(device: "device-5", activityKey: "D-1"))
            #expect(late.outcome == .delivered && late.answeredAt == bridge.now)

            // 429s: the device waits for its retry, and says so.
            bridge.mock.setFaults(FaultPlan(tooManyRequestsAfter: 0))
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", created: "2027-01-15T18:05:00Z"))
            try await bridge.settle()
            let retrying = try #require(try await bridge.store.followerLastPush(device: "device-3", activityKey: "D-1"))
            guard case .retrying(let error, _) = retrying.outcome else {
                Issue.record("device-3: \(retrying.outcome)")
                return
            }
            #expect(error?.contains("429") == true || error?.contains("TooManyRequests") == true, "\(error ?? "")")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theHistorySurvivesARestartIsSharedAndIsPrunedByRetention(_ kind: StoreKind) async throws {
        try await StoreFixture.withLocation(kind) { location in
            let store = try await SQLStore.open(location, now: StoreFixture.epoch)
            let harness = try await BridgeHarness(store: store)
            do {
                try await harness.register("D-1", updateToken: BridgeHarness.token(9))
                try await harness.receive("doordash", doordash("DASHER_CONFIRMED"))
                try await harness.settle()
            } catch {
                await harness.stop()
                try? await store.close()
                throw error
            }
            await harness.stop()
            let written = try await store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(written.count == 1)
            // Another open of the store (a restarted instance, or another on PostgreSQL) reads it.
            let other = try await SQLStore.open(location, now: StoreFixture.epoch)
            #expect(try await other.pushHistory(activityKey: "D-1", before: nil, limit: 10) == written)
            try await store.close()

            let stored = try #require(written.first).storedAt
            let pruner = StorePruner(
                store: other, policy: RetentionPolicy(events: .seconds(60)), sources: ["doordash"],
                logger: Logger(label: "liveline.tests.history", factory: { _ in SwiftLogNoOpLogHandler() }))
            #expect(try await pruner.prune(now: stored + 59_000).history == 0)
            #expect(try await pruner.prune(now: stored + 61_000).history == 1)
            #expect(try await other.pushHistory(activityKey: "D-1", before: nil, limit: 10).isEmpty)
            try await other.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func historyOffWritesNoneAndStillDelivers(_ kind: StoreKind) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: PushToStartFollowerTests.yaml.replacingOccurrences(
                of: "listen: 127.0.0.1:8080\n", with: "listen: 127.0.0.1:8080\nretention: { history: off }\n"),
            file: testConfigurationFile)
        #expect(configuration.retention.keepsHistory == false)
        #expect(
            throws: (any Error).self,
            performing: {
                try BridgeConfigurationLoader(environment: [:]).load(
                    yaml: "liveline-bridge: 1\nretention: { history: sometimes }\nsources: {}\n",
                    file: testConfigurationFile)
            })
        try await StoreFixture.withLocation(kind) { location in
            let store = try await SQLStore.open(location, now: StoreFixture.epoch, keepsHistory: false)
            let bridge = try await BridgeHarness(store: store)
            do {
                try await bridge.register("D-1", updateToken: BridgeHarness.token(11))
                try await FanOutTests.registerAudience(bridge, "D-2")
                _ = try await store.putFollowers([FanOutTests.follower(1)], activityKey: "D-2", now: bridge.now)
                try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
                try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
                try await bridge.settle()
                #expect(bridge.shown(BridgeHarness.token(11))["courierName"]?.stringValue == "Priya")
                #expect(bridge.shown(try #require(FanOutTests.follower(1).updateToken))["courierName"] != nil)
                #expect(try await store.pushHistory(activityKey: "D-1", before: nil, limit: 10).isEmpty)
                #expect(try await store.pushHistory(activityKey: "D-2", before: nil, limit: 10).isEmpty)
            } catch {
                await bridge.stop()
                try? await store.close()
                throw error
            }
            await bridge.stop()
            try await store.close()
        }
    }
}
