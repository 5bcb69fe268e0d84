import Foundation
import Liveline
import LivelineAPNs
import Testing
@testable import LivelineBridge

/// Followers with a push-to-start token: started with the story (or at once, when it already
/// has), then taken over by the update token the app reports, which catches up in one push.
@Suite struct PushToStartFollowerTests {
    static let yaml = """
        liveline-bridge: 1
        listen: 127.0.0.1:8080
        sources:
          match:
            verify: none
            event-id: /id
            event-type: /type
            activity-key: /match
            order-key: /seq
            order: sequence
            scenario: push-to-start.yaml
            activity: kingsmere-v-redcliffe
            events:
              match.start:
                start: true
              match.kick-off:
                trigger: kick-off
        """

    static func event(_ type: String, seq: Int) -> String {
        #"{"id":"e-\#(seq)","type":"\#(type)","match":"M-1","seq":\#(seq)}"#
    }

    /// The `aps.event` of each push the mock accepted for `token`.
    static func events(_ bridge: BridgeHarness, _ token: String) -> [String] {
        bridge.mock.pushes(token: token).filter { $0.status == 200 }.compactMap { record in
            guard let data = record.payload?.data(using: .utf8),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let aps = json["aps"] as? [String: Any]
            else { return nil }
            return aps["event"] as? String
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStartTokenIsStartedWithTheStoryAndItsUpdateTokenCatchesUp(_ kind: StoreKind) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.yaml, file: testConfigurationFile)
        try await StoreFixture.withStore(kind) { store in
            let bridge = try await BridgeHarness(store: store, configuration: configuration)
            do {
                _ = try await store.registerActivity(
                    ActivityRegistration(activityKey: "M-1", targets: ActivityTargets(), source: "match"),
                    now: bridge.now)
                let starter = Follower(device: "starter", startToken: BridgeHarness.token(201))
                let running = Follower(device: "running", updateToken: BridgeHarness.token(202))
                _ = try await store.putFollowers([starter, running], activityKey: "M-1", now: bridge.now)

                try await bridge.receive("match", Self.event("match.start", seq: 1))
                try await bridge.settle()
                let starterStart = try #require(starter.startToken)
                #expect(Self.events(bridge, starterStart) == ["start"])
                let payload = try #require(bridge.mock.pushes(token: starterStart).first?.payload)
                #expect(payload.contains("\"attributes-type\":\"MatchAttributes\"") && payload.contains("\"alert\""))
                // A device that already runs the activity has nothing to start.
                #expect(Self.events(bridge, try #require(running.updateToken)).isEmpty)

                // Joining after the start: started at once.
                bridge.advance(seconds: 5)
                let late = Follower(device: "late", startToken: BridgeHarness.token(203))
                _ = try await store.putFollowers([late], activityKey: "M-1", now: bridge.now)
                try await bridge.settle()
                #expect(Self.events(bridge, try #require(late.startToken)) == ["start"])
                // A start keeps its alert, even late: the device drops a start without one.
                #expect(
                    bridge.mock.pushes(token: try #require(late.startToken)).first?.payload?.contains("\"alert\"")
                        == true)

                bridge.advance(seconds: 20)
                try await bridge.receive("match", Self.event("match.kick-off", seq: 2))
                try await bridge.settle()
                #expect(bridge.shown(try #require(running.updateToken))["phase"]?.stringValue == "first-half")
                // Still only a start token: nothing but the start went to it.
                #expect(Self.events(bridge, starterStart) == ["start"])

                // The app reports the started activity's update token: one catch-up, then it follows.
                bridge.advance(seconds: 5)
                var reported = starter
                reported.updateToken = BridgeHarness.token(204)
                #expect(try await store.putFollowers([reported], activityKey: "M-1", now: bridge.now) == [.updated])
                try await bridge.settle()
                let update = try #require(reported.updateToken)
                #expect(Self.events(bridge, update) == ["update"])
                #expect(bridge.shown(update)["phase"]?.stringValue == "first-half")
                let counts = try await store.followerCounts(activityKey: "M-1")
                #expect(counts.updating == 2 && counts.awaitingStart == 1 && counts.catchingUp == 0)
            } catch {
                await bridge.stop()
                throw error
            }
            await bridge.stop()
        }
    }
}
