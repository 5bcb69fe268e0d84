import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// An activity's own start is delivered once: a start the outbox's sender sent and died before
/// recording is not sent again when its claim runs out (the phone would show two Live
/// Activities) but marked in doubt, and the app's update token, or a new push-to-start token,
/// settles it. Through a real mock APNs over TLS, on both stores, in virtual time.
@Suite struct OutboxStartInDoubtTests {
    static let startToken = BridgeHarness.token(240)
    static let updateToken = BridgeHarness.token(241)

    /// Runs `body` with M-1 registered with a push-to-start token and its start in the outbox.
    static func withStartQueued(_ kind: StoreKind, _ body: (BridgeHarness) async throws -> Void) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: PushToStartFollowerTests.yaml, file: testConfigurationFile)
        try await withBridge(kind, configuration: configuration) { bridge in
            try await bridge.register("M-1", pushToStartToken: Self.startToken, source: "match")
            try await bridge.receive("match", PushToStartFollowerTests.event("match.start", seq: 1))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            try await body(bridge)
        }
    }

    /// What an instance killed between APNs' 200 and its write did: claimed the start, sent it,
    /// recorded nothing.
    static func sendAndDie(_ bridge: BridgeHarness) async throws {
        let claimed = try await bridge.store.claimDuePushes(
            limit: 10, instance: "dead", lease: .seconds(60), now: bridge.now)
        let start = try #require(claimed.first)
        #expect(claimed.count == 1 && start.push.kind == .start)
        let answer = try await bridge.client.send(
            .push(token: Self.startToken, headers: start.push.headers, payload: start.push.payload))
        #expect(answer.status == 200)
    }

    @Test(arguments: StoreKind.allCases)
    func aStartWhoseSenderDiedIsInDoubtNotSentTwiceAndTheUpdateTokenSettlesIt(_ kind: StoreKind) async throws {
        try await Self.withStartQueued(kind) { bridge in
            try await Self.sendAndDie(bridge)
            // While the claim lasts, nobody else takes it.
            try await bridge.run(for: 30)
            #expect(try await bridge.store.startInDoubt(for: "M-1") == false)

            // The claim runs out: the start may have arrived, so it is not sent again.
            try await bridge.run(for: 60)
            #expect(PushToStartFollowerTests.events(bridge, Self.startToken) == ["start"])
            #expect(bridge.mock.stats().duplicateStarts == 0)
            #expect(try await bridge.store.startInDoubt(for: "M-1"))
            #expect(try await bridge.store.counts().startsInDoubt == 1)
            let marked = try #require(
                try await bridge.store.pushHistory(activityKey: "M-1", before: nil, limit: 10).first)
            #expect(marked.kind == .start && marked.outcome == .inDoubt && marked.instances == ["dead"])

            // Nothing more goes to the phone while in doubt, not even the kick-off.
            try await bridge.receive("match", PushToStartFollowerTests.event("match.kick-off", seq: 2))
            try await bridge.run(for: 30)
            #expect(PushToStartFollowerTests.events(bridge, Self.startToken) == ["start"])

            // The app reports the started activity's update token: it got its start; settled,
            // and the kick-off reaches the activity.
            try await bridge.register(
                "M-1", updateToken: Self.updateToken, pushToStartToken: Self.startToken, source: "match")
            #expect(try await bridge.store.startInDoubt(for: "M-1") == false)
            #expect(try await bridge.store.counts().startsInDoubt == 0)
            try await bridge.run(for: 30)
            #expect(PushToStartFollowerTests.events(bridge, Self.startToken) == ["start"])
            #expect(PushToStartFollowerTests.events(bridge, Self.updateToken).contains("update"))
            #expect(bridge.mock.stats().duplicateStarts == 0)
            let history = try await bridge.store.pushHistory(activityKey: "M-1", before: nil, limit: 10)
            #expect(
                history.contains {
                    $0.kind == .start && $0.outcome == .delivered
                        && $0.error == SQLStore.outboxStartSettledError
                })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aNewPushToStartTokenStartsTheActivityAgainOnce(_ kind: StoreKind) async throws {
        try await Self.withStartQueued(kind) { bridge in
            try await Self.sendAndDie(bridge)
            try await bridge.run(for: 90)
            #expect(try await bridge.store.startInDoubt(for: "M-1"))

            // The same push-to-start token again says nothing new: still in doubt.
            try await bridge.register("M-1", pushToStartToken: Self.startToken, source: "match")
            try await bridge.run(for: 5)
            #expect(try await bridge.store.startInDoubt(for: "M-1"))

            // A new one says the app has no activity: started again, once.
            let fresh = BridgeHarness.token(242)
            try await bridge.register("M-1", pushToStartToken: fresh, source: "match")
            try await bridge.run(for: 30)
            #expect(PushToStartFollowerTests.events(bridge, fresh) == ["start"])
            #expect(PushToStartFollowerTests.events(bridge, Self.startToken) == ["start"])
            #expect(try await bridge.store.startInDoubt(for: "M-1") == false)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStartADrainGaveUpOnIsInDoubtAtOnce(_ kind: StoreKind) async throws {
        try await Self.withStartQueued(kind) { bridge in
            // Sent, and the drain's cutoff gave up on the answer: the claim is not given back.
            try await Self.sendAndDie(bridge)
            let released = try await bridge.store.releaseClaims(instance: "dead")
            #expect(released.pushes == 0)
            #expect(try await bridge.store.startInDoubt(for: "M-1"))
            try await bridge.run(for: 90)
            #expect(PushToStartFollowerTests.events(bridge, Self.startToken) == ["start"])
        }
    }
}
