import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// A start is delivered once: a range of a start fan-out that an instance sent and died before
/// recording is not sent again (the phone would show two Live Activities) but marked in doubt,
/// and the app's update token, or a new push-to-start token, settles it. Through a real mock
/// APNs over TLS, on both stores, in virtual time.
@Suite struct StartsInDoubtTests {
    static func starter(_ n: Int) -> Follower {
        Follower(device: "starter-\(n)", startToken: BridgeHarness.token(210 + n))
    }

    /// Runs `body` with the push-to-start story, a key of four start-only followers, ranges of
    /// two, and the start decided.
    static func withStartDecided(_ kind: StoreKind, _ body: (BridgeHarness) async throws -> Void) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: PushToStartFollowerTests.yaml, file: testConfigurationFile)
        try await StoreFixture.withStore(kind) { store in
            let bridge = try await BridgeHarness(
                store: store, configuration: configuration, fanOut: FanOutTests.stepwise)
            do {
                _ = try await store.registerActivity(
                    ActivityRegistration(activityKey: "M-1", targets: ActivityTargets(), source: "match"),
                    now: bridge.now)
                _ = try await store.putFollowers((1...4).map(Self.starter), activityKey: "M-1", now: bridge.now)
                try await bridge.receive("match", PushToStartFollowerTests.event("match.start", seq: 1))
                _ = try await bridge.dispatcher.dispatch(now: bridge.now)
                try await body(bridge)
            } catch {
                await bridge.stop()
                throw error
            }
            await bridge.stop()
        }
    }

    /// What an instance that dies after APNs' answers and before its write did: claimed a range,
    /// sent it, recorded nothing.
    static func sendAndDie(_ bridge: BridgeHarness) async throws -> FanOutRange {
        let range = try #require(
            try await bridge.store.claimFanOutRange(
                limit: 2, instance: "dead", lease: .seconds(60), now: bridge.now))
        #expect(range.push.kind == .start && range.targets.count == 2)
        for target in range.targets {
            let answer = try await bridge.client.send(
                .push(token: target.token, headers: range.push.headers, payload: range.push.payload))
            #expect(answer.status == 200)
        }
        return range
    }

    /// An Android phone's start is its app posting the notification under the activity's tag;
    /// a second post replaces the first. So in a range whose sender died, the iPhones are in
    /// doubt and the Android phones are sent the start again, not left without it.
    @Test(arguments: StoreKind.allCases)
    func aStartRangesAndroidPhonesAreSentTheStartAgain(_ kind: StoreKind) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: PushToStartFollowerTests.yaml, file: testConfigurationFile)
        try await withBridge(kind, configuration: configuration, fanOut: FanOutTests.stepwise, android: true) {
            bridge in
            _ = try await bridge.store.registerActivity(
                ActivityRegistration(activityKey: "M-1", targets: ActivityTargets(), source: "match"), now: bridge.now)
            let androids = [AndroidFollowerTests.android(1), AndroidFollowerTests.android(2)]
            _ = try await bridge.store.putFollowers(
                [Self.starter(1), androids[0], Self.starter(2), androids[1]], activityKey: "M-1", now: bridge.now)
            try await bridge.receive("match", PushToStartFollowerTests.event("match.start", seq: 1))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            // The dead instance's range: its iPhone got the start, its Android phone nothing known.
            let range = try #require(
                try await bridge.store.claimFanOutRange(
                    limit: 2, instance: "dead", lease: .seconds(60), now: bridge.now))
            #expect(range.push.kind == .start && range.targets.map(\.platform) == [.ios, .android])
            let iPhone = try #require(range.targets.first)
            _ = try await bridge.client.send(
                .push(token: iPhone.token, headers: range.push.headers, payload: range.push.payload))
            try await bridge.settle()
            bridge.advance(seconds: 121)
            try await bridge.settle()

            #expect(bridge.mock.stats().duplicateStarts == 0)
            for n in 1...2 {
                let token = try #require(Self.starter(n).startToken)
                #expect(PushToStartFollowerTests.events(bridge, token) == ["start"], "starter-\(n)")
            }
            for android in androids {
                let shown = try AndroidFollowerTests.shown(bridge, android, key: "M-1")
                #expect(shown?.content.chip == "0–0", "\(android.device) shows the started match")
                #expect(try AndroidFollowerTests.timestamps(bridge, android).count == 1, "\(android.device)")
            }
            let counts = try await bridge.store.followerCounts(activityKey: "M-1")
            #expect(counts.inDoubt == 1)
            #expect(
                try await bridge.store.followerLastPush(device: "android-1", activityKey: "M-1")?.outcome != .inDoubt)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStartRangeWhoseSenderDiedIsInDoubtNotSentTwice(_ kind: StoreKind) async throws {
        try await Self.withStartDecided(kind) { bridge in
            let range = try await Self.sendAndDie(bridge)
            try await bridge.settle()
            // The lease runs out: the range is taken over, and nothing is sent again.
            bridge.advance(seconds: 121)
            try await bridge.settle()
            for n in 1...4 {
                let token = try #require(Self.starter(n).startToken)
                #expect(PushToStartFollowerTests.events(bridge, token) == ["start"], "starter-\(n)")
            }
            #expect(bridge.mock.stats().duplicateStarts == 0)
            let counts = try await bridge.store.followerCounts(activityKey: "M-1")
            #expect(counts.inDoubt == 2 && counts.awaitingStart == 4)
            let dead = Set(range.targets.map(\.token))
            let devices = (1...4).filter { dead.contains(Self.starter($0).startToken ?? "") }.map { "starter-\($0)" }
            #expect(devices.count == 2)
            for device in devices {
                #expect(
                    try await bridge.store.followerLastPush(device: device, activityKey: "M-1")?.outcome == .inDoubt,
                    "\(device)")
            }
            let failures = try await bridge.store.fanOutFailures(activityKey: "M-1", limit: 10)
            #expect(failures.map(\.reason) == ["in-doubt"] && failures.first?.count == 2)
            let history = try #require(
                try await bridge.store.pushHistory(activityKey: "M-1", before: nil, limit: 5).first)
            #expect(history.kind == .start && history.outcome == .fannedOut)
            #expect(history.fanOut?.sent == 2 && history.fanOut?.failed == 2)
            #expect(history.fanOut?.failures.first?.devices.sorted() == devices)

            // The app reports the first one's update token: it got its start; settled.
            var reported = try #require(try await bridge.store.follower(device: devices[0], activityKey: "M-1"))
            reported.updateToken = BridgeHarness.token(230)
            _ = try await bridge.store.putFollowers([reported], activityKey: "M-1", now: bridge.now)
            #expect(try await bridge.store.followerCounts(activityKey: "M-1").inDoubt == 1)
            // The other's app says it has nothing: a new push-to-start token starts it, once.
            var restarted = try #require(try await bridge.store.follower(device: devices[1], activityKey: "M-1"))
            restarted.startToken = BridgeHarness.token(231)
            _ = try await bridge.store.putFollowers([restarted], activityKey: "M-1", now: bridge.now)
            try await bridge.settle()
            #expect(PushToStartFollowerTests.events(bridge, BridgeHarness.token(231)) == ["start"])
            #expect(try await bridge.store.followerCounts(activityKey: "M-1").inDoubt == 0)
            #expect(bridge.mock.stats().duplicateStarts == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStartCatchUpWhoseSenderDiedIsInDoubt(_ kind: StoreKind) async throws {
        try await Self.withStartDecided(kind) { bridge in
            try await bridge.settle()
            // A device joins after the start: its catch-up is claimed by an instance that dies.
            bridge.advance(seconds: 5)
            let late = Self.starter(5)
            _ = try await bridge.store.putFollowers([late], activityKey: "M-1", now: bridge.now)
            let claimed = try await bridge.store.claimCatchUps(
                limit: 10, instance: "dead", lease: .seconds(60), now: bridge.now)
            let catchUp = try #require(claimed.first)
            _ = try await bridge.client.send(
                .push(token: catchUp.target.token, headers: catchUp.push.headers, payload: catchUp.push.payload))
            bridge.advance(seconds: 61)
            try await bridge.settle()
            #expect(PushToStartFollowerTests.events(bridge, try #require(late.startToken)) == ["start"])
            #expect(try await bridge.store.followerCounts(activityKey: "M-1").inDoubt == 1)
            #expect(
                try await bridge.store.followerLastPush(device: "starter-5", activityKey: "M-1")?.outcome == .inDoubt)
        }
    }

    @Test func theMockCountsASecondStartOnOneTokenAsAPhoneWithTwoActivities() async throws {
        try await Self.withStartDecided(.sqlite) { bridge in
            let range = try await Self.sendAndDie(bridge)
            let target = try #require(range.targets.first)
            _ = try await bridge.client.send(
                .push(token: target.token, headers: range.push.headers, payload: range.push.payload))
            #expect(bridge.mock.stats().duplicateStarts == 1)
            let second = try #require(bridge.mock.pushes(token: target.token).last?.deliveries.first)
            #expect(second.reasons.contains { $0.contains("two Live Activities") }, "\(second.reasons)")
        }
    }
}
