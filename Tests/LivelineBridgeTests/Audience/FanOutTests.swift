import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// One story, many devices: the dispatcher's pushes fanned out to a key's followers through a
/// real mock APNs, on both stores, in virtual time.
@Suite struct FanOutTests {
    /// A small page and one range per pass, so a test can stop a fan-out half way.
    static let stepwise = FanOutSender.Configuration(
        instance: "test", page: 2, ranges: 1, retry: RetryPolicy(base: .seconds(1), cap: .seconds(4), maxAttempts: 3))

    static func follower(_ n: Int) -> Follower {
        Follower(device: "device-\(n)", updateToken: BridgeHarness.token(100 + n))
    }

    /// Registers `key` with no target of its own (its followers take every push).
    static func registerAudience(_ bridge: BridgeHarness, _ key: String = "D-1") async throws {
        _ = try await bridge.store.registerActivity(
            ActivityRegistration(activityKey: key, targets: ActivityTargets(), source: "doordash"), now: bridge.now)
    }

    /// Registers `key` as ``registerAudience(_:_:)`` does, with followers 1 to `count`
    /// (``follower(_:)``); returns them.
    static func audience(
        _ bridge: BridgeHarness, followers count: Int, _ key: String = "D-1"
    ) async throws -> [Follower] {
        try await registerAudience(bridge, key)
        let followers = (1...count).map(follower)
        _ = try await bridge.store.putFollowers(followers, activityKey: key, now: bridge.now)
        return followers
    }

    /// Each token's accepted timestamps never go back, and none repeats.
    static func expectOrdered(
        _ bridge: BridgeHarness, _ tokens: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        for token in tokens {
            let timestamps = bridge.timestamps(token)
            #expect(
                timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count,
                "\(token): \(timestamps)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func followersJoiningBeforeDuringAndAfterTheStartAllShowTheNewestState(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: Self.stepwise) { bridge in
            try await Self.registerAudience(bridge)
            let before = (1...5).map(Self.follower)
            #expect(
                try await bridge.store.putFollowers(before, activityKey: "D-1", now: bridge.now)
                    == Array(repeating: .created, count: 5))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            // One range of two is answered; a device joins while the fan-out is under way.
            #expect(try await bridge.fanOut.send(now: bridge.now).ranges == 1)
            let during = Self.follower(6)
            _ = try await bridge.store.putFollowers([during], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            for follower in before + [during] {
                let token = try #require(follower.updateToken)
                #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya", "\(follower.device)")
                #expect(
                    bridge.timestamps(token).count == 1, "\(follower.device): one push, not the fan-out and a catch-up")
            }

            // After the start: one catch-up push at once, then it follows.
            bridge.advance(seconds: 20)
            let after = Self.follower(7)
            _ = try await bridge.store.putFollowers([after], activityKey: "D-1", now: bridge.now)
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").catchingUp == 1)
            try await bridge.settle()
            let afterToken = try #require(after.updateToken)
            #expect(bridge.shown(afterToken)["courierName"]?.stringValue == "Priya")
            #expect(bridge.timestamps(afterToken).count == 1)
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").catchingUp == 0)

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            let all = (before + [during, after]).compactMap(\.updateToken)
            for token in all {
                #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
            }
            Self.expectOrdered(bridge, all)
            let counts = try await bridge.store.followerCounts(activityKey: "D-1")
            #expect(counts.updating == 7 && counts.total == 7)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anEventArrivingMidFanOutReachesTheRestInsteadOfTheOlderState(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: Self.stepwise) { bridge in
            try await Self.registerAudience(bridge)
            let followers = (1...6).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            #expect(try await bridge.fanOut.send(now: bridge.now).sent == 2)

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            let tokens = followers.compactMap(\.updateToken)
            for (index, token) in tokens.enumerated() {
                #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
                // The first two had the older state already; the rest get only the newer one.
                #expect(bridge.timestamps(token).count == (index < 2 ? 2 : 1), "\(token)")
            }
            Self.expectOrdered(bridge, tokens)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aGoneTokenRemovesItsFollowerAndIsSummedNotDeadLetteredPerDevice(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await Self.registerAudience(bridge)
            let followers = (1...4).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            let gone = try #require(followers[1].updateToken)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [gone]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try await bridge.store.follower(device: "device-2", activityKey: "D-1") == nil)
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").updating == 3)
            let failures = try await bridge.store.fanOutFailures(activityKey: "D-1", limit: 10)
            #expect(failures.map(\.reason) == ["Unregistered"] && failures.first?.count == 1)
            #expect(failures.first?.sample == ["…" + String(gone.suffix(8))])
            #expect(try await bridge.store.deadLetters(limit: 10).isEmpty)
            for follower in followers where follower.device != "device-2" {
                #expect(bridge.shown(try #require(follower.updateToken))["courierName"]?.stringValue == "Priya")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func oneTokenAnswering429BacksOffAloneWhileTheOthersProceed(_ kind: StoreKind) async throws {
        // Patient enough to outlast the mock's minute.
        let patient = FanOutSender.Configuration(
            instance: "test", retry: RetryPolicy(base: .seconds(1), cap: .seconds(4), maxAttempts: 100))
        try await withBridge(kind, fanOut: patient) { bridge in
            try await Self.registerAudience(bridge)
            bridge.mock.setFaults(FaultPlan(tooManyRequestsAfter: 1))
            let early = (1...3).map(Self.follower)
            _ = try await bridge.store.putFollowers(early, activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            // A minute later a device joins (its catch-up is its first push of the minute), and
            // the next event is its second at once: 429 for it alone.
            bridge.advance(seconds: 61)
            let hammered = Self.follower(9)
            _ = try await bridge.store.putFollowers([hammered], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            bridge.advance(seconds: 1)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            let token = try #require(hammered.updateToken)
            for follower in early {
                #expect(bridge.shown(try #require(follower.updateToken))["status"]?.stringValue == "on-the-way")
            }
            #expect(bridge.shown(token)["status"]?.stringValue != "on-the-way")
            #expect(bridge.mock.pushes(token: token).contains { $0.status == 429 })
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").retrying == 1)

            // Its back-off passes (and the mock's minute): it gets the newest state.
            try await bridge.run(for: 70, step: 5)
            #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").retrying == 0)
            Self.expectOrdered(bridge, (early + [hammered]).compactMap(\.updateToken))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRangeOfADeadInstanceIsSentAgainWithTheSameTimestamp(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: Self.stepwise) { bridge in
            try await Self.registerAudience(bridge)
            let followers = (1...4).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            // Another instance claims the first range and dies (kill -9) without answering.
            let lost = try #require(
                try await bridge.store.claimFanOutRange(
                    limit: 2, instance: "dead", lease: .seconds(60), now: bridge.now))
            #expect(lost.targets.count == 2 && !lost.resumed)
            try await bridge.settle()
            #expect(bridge.timestamps(try #require(followers[0].updateToken)).isEmpty)
            #expect(bridge.shown(try #require(followers[3].updateToken))["courierName"]?.stringValue == "Priya")

            // Its lease ends: the range is resumed with the fan-out's own payload.
            bridge.advance(seconds: 61)
            let resumed = try #require(
                try await bridge.store.claimFanOutRange(
                    limit: 2, instance: "test", lease: .seconds(60), now: bridge.now))
            #expect(resumed.resumed && resumed.fromID == lost.fromID && resumed.toID == lost.toID)
            #expect(resumed.push.payload == lost.push.payload)
            _ = try await bridge.store.writeFanOut(resumed, answers: [], instance: "test", now: bridge.now)
            #expect(
                try await bridge.store.claimFanOutRange(
                    limit: 2, instance: "test", lease: .seconds(60), now: bridge.now) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aMessyEventStreamNeverMovesAFollowerBackwards(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: Self.stepwise) { bridge in
            try await Self.registerAudience(bridge)
            let followers = (1...5).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            #expect(try await bridge.receive("doordash", doordash("DASHER_CONFIRMED")) == .duplicate)
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            _ = try await bridge.fanOut.send(now: bridge.now)
            bridge.advance(seconds: 5)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            _ = try await bridge.fanOut.send(now: bridge.now)
            // A late, older status and a repeat arrive while the fan-out is under way.
            bridge.advance(seconds: 5)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", eta: "2027-01-15T18:45:00Z"))
            #expect(
                try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
                    == .duplicate)
            try await bridge.run(for: 10)
            let tokens = followers.compactMap(\.updateToken)
            for token in tokens {
                #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way", "\(token)")
            }
            Self.expectOrdered(bridge, tokens)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedFollowerIsSentNothingMore(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await Self.registerAudience(bridge)
            let followers = (1...2).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            #expect(try await bridge.store.deleteFollower(device: "device-1", activityKey: "D-1"))
            #expect(!(try await bridge.store.deleteFollower(device: "device-1", activityKey: "D-1")))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(bridge.timestamps(try #require(followers[0].updateToken)).isEmpty)
            #expect(bridge.timestamps(try #require(followers[1].updateToken)).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func instancesShareOneFanOutRangeByRangeAndAStoppingOneGivesItsRangeBack(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await Self.registerAudience(bridge)
            _ = try await bridge.store.putFollowers((1...6).map(Self.follower), activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let store = bridge.store
            let a = try #require(
                try await store.claimFanOutRange(limit: 2, instance: "a", lease: .seconds(60), now: bridge.now))
            // While a's range is in flight, b takes the next one of the same fan-out.
            let b = try #require(
                try await store.claimFanOutRange(limit: 2, instance: "b", lease: .seconds(60), now: bridge.now))
            #expect(b.fanOutID == a.fanOutID && b.fromID == a.toID && b.targets.count == 2)
            #expect(Set(a.targets.map(\.followerID)).isDisjoint(with: b.targets.map(\.followerID)))
            // a stops without its answers: its range goes to the next claim at once, not after its lease.
            #expect(try await store.releaseFanOutClaims(instance: "a") == 1)
            let again = try #require(
                try await store.claimFanOutRange(limit: 2, instance: "b", lease: .seconds(60), now: bridge.now))
            #expect(again.resumed && again.fromID == a.fromID && again.targets == a.targets)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theMetricsCountPushesByKeyAndTheFanOutLag(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let metrics = BridgeMetrics()
            let sender = FanOutSender(
                store: bridge.store, clients: APNsClients(bridge.client), configuration: .init(instance: "metered"),
                observer: metrics)
            try await Self.registerAudience(bridge)
            let followers = (1...3).map(Self.follower)
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [try #require(followers[2].updateToken)]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let report = try await sender.send(now: bridge.now)
            #expect(report.sent == 2 && report.failed == 1 && report.pruned == 1 && report.finished == 1)
            metrics.setFollowers(try await bridge.store.allFollowerCounts())
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            #expect(text.contains(#"liveline_fanout_pushes_total{key="D-1"} 3"#), "\(text)")
            #expect(text.contains("liveline_fanout_lag_seconds_count 1"))
            #expect(text.contains("liveline_followers_pruned_total 1"))
            #expect(text.contains(#"liveline_followers{state="updating"} 2"#))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aPassServesEachKeysFanOutBeforeASecondRangeOfOne(_ kind: StoreKind) async throws {
        let two = FanOutSender.Configuration(instance: "test", page: 2, ranges: 2)
        try await withBridge(kind, fanOut: two) { bridge in
            try await Self.registerAudience(bridge, "D-1")
            try await Self.registerAudience(bridge, "D-2")
            let big = (1...6).map(Self.follower)
            let small = (7...8).map(Self.follower)
            _ = try await bridge.store.putFollowers(big, activityKey: "D-1", now: bridge.now)
            _ = try await bridge.store.putFollowers(small, activityKey: "D-2", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-1"))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            #expect(try await bridge.fanOut.send(now: bridge.now).sent == 4)
            for follower in small {
                #expect(bridge.timestamps(try #require(follower.updateToken)).count == 1, "\(follower.device)")
            }
            try await bridge.settle()
            for follower in big {
                #expect(bridge.timestamps(try #require(follower.updateToken)).count == 1, "\(follower.device)")
            }
        }
    }
}
