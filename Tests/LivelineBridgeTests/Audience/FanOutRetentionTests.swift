import Foundation
import Liveline
import Logging
import Testing
@testable import LivelineBridge

/// A key's fan-outs hold each decided push's payload. Only the newest of a live story is needed
/// after it is sent (a follower who joins late is sent it); retention deletes the rest once
/// older than the events retention, and the newest too once the story has ended or nobody
/// follows it, so a store with a key per match does not keep every match's last push for good.
@Suite struct FanOutRetentionTests {
    static let hour: TimeInterval = 3600

    /// The key's fan-outs: kind and state, oldest first.
    static func fanOuts(_ store: SQLStore, _ key: String) async throws -> [String] {
        try await store.transaction { tx in
            try await tx.run("SELECT kind, state FROM fanouts WHERE activity_key = $1 ORDER BY id", [.text(key)]).map {
                "\(try $0.text(0)) \(try $0.text(1))"
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theNewestOfALiveStoryStaysAndEverythingElseGoesAfterTheRetention(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: FanOutTests.stepwise) { bridge in
            let store = try #require(bridge.store as? SQLStore)
            try await FanOutTests.registerAudience(bridge, "D-1")
            try await FanOutTests.registerAudience(bridge, "D-2")
            _ = try await store.putFollowers((1...4).map(FanOutTests.follower), activityKey: "D-1", now: bridge.now)
            _ = try await store.putFollowers((5...6).map(FanOutTests.follower), activityKey: "D-2", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
            try await bridge.settle()
            #expect(try await Self.fanOuts(store, "D-1") == ["update done"])

            // A newer push of a kind replaces the finished one at once (as before), but one still
            // in flight when it is replaced stays behind: an instance holds a range of it and
            // dies; the next push supersedes it, and its range is given up after the lease.
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            _ = try #require(
                try await store.claimFanOutRange(limit: 2, instance: "dead", lease: .seconds(60), now: bridge.now))
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED_DROPOFF_ARRIVAL"))
            try await bridge.run(for: 70, step: 5)
            #expect(try await Self.fanOuts(store, "D-1") == ["update superseded", "update done"])
            #expect(
                try await store.pruneFanOuts(finishedBefore: bridge.now - Millis(Self.hour * 1000), limit: 10).rows
                    == 0)

            // Past the retention (an hour here): the superseded one goes; the newest of the live
            // story stays, and a device that joins now still catches up with it.
            bridge.advance(seconds: 2 * Self.hour)
            let pruner = StorePruner(
                store: store, policy: RetentionPolicy(events: .seconds(3600), deadLetters: nil, batch: 1, pause: .zero),
                sources: ["doordash"], logger: Logger(label: "liveline.tests.pruner")
            )
            #expect(try await pruner.prune(now: bridge.now).fanOuts == 1)
            #expect(try await Self.fanOuts(store, "D-1") == ["update done"])
            let late = FanOutTests.follower(9)
            _ = try await store.putFollowers([late], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            #expect(bridge.shown(try #require(late.updateToken))["status"]?.stringValue == "arriving")

            // The story ends: past the retention, its last push goes too, and a device joining then is
            // sent nothing (there is no story to catch up with).
            try await bridge.receive("doordash", doordash("DELIVERY_CANCELLED"))
            try await bridge.settle()
            #expect(try await Self.fanOuts(store, "D-1") == ["end done"])
            #expect(try await pruner.prune(now: bridge.now).fanOuts == 0)
            bridge.advance(seconds: 2 * Self.hour)
            // D-2's story is live but nobody follows it any more: its last push goes as well.
            for device in ["device-5", "device-6"] {
                #expect(try await store.deleteFollower(device: device, activityKey: "D-2"))
            }
            #expect(try await pruner.prune(now: bridge.now).fanOuts == 2)
            #expect(try await Self.fanOuts(store, "D-1").isEmpty)
            #expect(try await Self.fanOuts(store, "D-2").isEmpty)
            let after = FanOutTests.follower(10)
            _ = try await store.putFollowers([after], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            #expect(try await store.followerCounts(activityKey: "D-1").catchingUp == 0)
            #expect(bridge.timestamps(try #require(after.updateToken)).isEmpty)
        }
    }

    /// The newest fan-out must stay the newest push: when every follower of a key with a token
    /// of its own has left, its pushes (which still go to that token) are kept as fan-outs with
    /// no one to send them to, so a fan who joins later catches up with the current state, not
    /// the one of when the others left. (A key with no token of its own waits for a follower
    /// before it applies its events.)
    @Test(arguments: StoreKind.allCases)
    func aFollowerJoiningAfterTheOthersLeftCatchesUpWithTheCurrentState(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let store = try #require(bridge.store as? SQLStore)
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: "D-1", targets: ActivityTargets(updateToken: BridgeHarness.token(50)),
                    source: "doordash"),
                now: bridge.now)
            _ = try await store.putFollowers((1...2).map(FanOutTests.follower), activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            for device in ["device-1", "device-2"] {
                #expect(try await store.deleteFollower(device: device, activityKey: "D-1"))
            }

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            #expect(bridge.shown(BridgeHarness.token(50))["status"]?.stringValue == "on-the-way")
            #expect(try await Self.fanOuts(store, "D-1") == ["update done"])

            let late = FanOutTests.follower(3)
            _ = try await store.putFollowers([late], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            let token = try #require(late.updateToken)
            #expect(bridge.timestamps(token) == bridge.timestamps(BridgeHarness.token(50)).suffix(1))
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
        }
    }
}
