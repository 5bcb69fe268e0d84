import Foundation
import Liveline
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// What the dashboard shows of a key's audience, read from the store by ``AudienceWatch`` while
/// a fan-out runs through a real mock APNs, on both stores, in virtual time.
@Suite struct AudienceWatchTests {
    @Test(arguments: StoreKind.allCases)
    func aFanOutsProgressRateLagAndFailuresAreReadFromTheStore(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: FanOutTests.stepwise) { bridge in
            try await FanOutTests.registerAudience(bridge, "D-1")
            try await FanOutTests.registerAudience(bridge, "D-2")
            let followers =
                (1...5).map(FanOutTests.follower) + [
                    Follower(device: "device-6", updateToken: nil, startToken: BridgeHarness.token(106))
                ]
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            _ = try await bridge.store.putFollowers([FanOutTests.follower(7)], activityKey: "D-2", now: bridge.now)
            let gone = try #require(followers[4].updateToken)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [gone]))
            let watch = AudienceWatch(store: bridge.store, configuration: .init(keys: 8))

            // Before any event: the audiences, their counts and a sample, no fan-out.
            let before = try await watch.refresh(now: bridge.now)
            #expect(before.map(\.activityKey).sorted() == ["D-1", "D-2"])
            let quiet = try #require(before.first { $0.activityKey == "D-1" })
            #expect(quiet.followers.updating == 5 && quiet.followers.awaitingStart == 1 && quiet.followers.total == 6)
            #expect(quiet.sample?.device == "device-1" && quiet.fanOut == nil && quiet.pushesPerSecond == nil)
            #expect(try await bridge.store.audienceKeys(limit: 1) == ["D-1"], "no fan-out yet: by key")

            // The webhook is stored; two seconds later the push is decided and one range of two sent.
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            bridge.advance(seconds: 2)
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            #expect(try await bridge.fanOut.send(now: bridge.now).sent == 2)
            let running = try #require(try await watch.refresh(now: bridge.now).first)
            #expect(running.activityKey == "D-1", "a fan-out under way comes first")
            let fanOut = try #require(running.fanOut)
            #expect(fanOut.state == .running && fanOut.kind == .update && fanOut.answered == 2)
            #expect(running.audience == 5)
            #expect(running.lagSeconds.map { abs($0 - 2) < 0.01 } == true, "\(String(describing: running.lagSeconds))")
            #expect(running.contentState?.contains("Priya") == true, "\(running.contentState ?? "nil")")
            #expect(
                running.pushesPerSecond == 1,
                "two answers in the two seconds since the last read (the fan-out began after it)")

            // Half a second later, two more answered: four pushes a second.
            bridge.advance(seconds: 0.5)
            #expect(try await bridge.fanOut.send(now: bridge.now).sent == 2)
            let faster = try #require(try await watch.refresh(now: bridge.now).first { $0.activityKey == "D-1" })
            #expect(faster.fanOut?.answered == 4 && faster.pushesPerSecond == 4)
            #expect(faster.lagSeconds.map { abs($0 - 2.5) < 0.01 } == true)

            // The last range: one token is gone, its follower removed and counted by reason.
            bridge.advance(seconds: 0.5)
            try await bridge.settle()
            let done = try #require(
                try await watch.refresh(now: bridge.now + 10_000).first { $0.activityKey == "D-1" })
            #expect(done.fanOut?.state == .done && done.fanOut?.answered == 5 && done.fanOut?.failed == 1)
            #expect(done.failures == ["Unregistered": 1] && done.removed == 1)
            // The finish is the last pass's time plus what its answers took (real milliseconds).
            #expect(
                done.lagSeconds.map { $0 >= 3 && $0 < 3.5 } == true,
                "to the last answer, not to now: \(String(describing: done.lagSeconds))")
            #expect(
                done.pushesPerSecond.map { $0 > 3.3 && $0 <= 5 } == true,
                "five answers in about one second: \(String(describing: done.pushesPerSecond))")
            // Counted again after the counts' interval: the removed follower is gone.
            #expect(done.followers.updating == 4)

            // Another key's fan-out under way comes first, in the store's order and the watch's.
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            #expect(try await bridge.store.audienceKeys(limit: 1) == ["D-2"])
            #expect(try await bridge.store.audienceKeys(limit: 5) == ["D-2", "D-1"])
            #expect(
                try await watch.refresh(now: bridge.now + 11_000).map(\.activityKey) == ["D-2", "D-1"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aPageAsksFromMemoryAndTheReadHappensBehindIt(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await FanOutTests.registerAudience(bridge, "D-1")
            _ = try await bridge.store.putFollowers(
                (1...3).map(FanOutTests.follower), activityKey: "D-1", now: bridge.now)
            let watch = AudienceWatch(store: bridge.store)
            #expect(watch.current().isEmpty, "nothing read yet: the first ask starts the read and does not wait for it")
            let deadline = ContinuousClock.now + .seconds(10)
            var seen: [AudienceStatus] = []
            while seen.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                seen = watch.current()
            }
            #expect(seen.map(\.activityKey) == ["D-1"] && seen.first?.followers.updating == 3)
        }
    }

    @Test func theContentStateIsCompactAndShort() {
        let payload = Array(
            #"{"aps":{"timestamp":1,"event":"update","content-state":{"score":"1 – 0","minute":12}}}"#.utf8)
        #expect(AudienceWatch.contentState(of: payload) == #"{"minute":12,"score":"1 – 0"}"#)
        let long = Array(#"{"aps":{"content-state":{"text":"\#(String(repeating: "x", count: 300))"}}}"#.utf8)
        #expect(AudienceWatch.contentState(of: long)?.count == 160)
        #expect(AudienceWatch.contentState(of: Array("not json".utf8)) == nil)
    }
}
