import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing

/// Scenarios played in real time (compressed) through delivery, over TLS to the mock.
@Suite(.serialized) struct PlayEndToEndTests {
    /// 150 s of story (5 s of real time at 30×): ticks, a goal, a card, the end.
    static let match = """
        liveline: 1
        bundle-id: com.example.matchday
        policy: { min-interval: 0, stale-after: 10m }
        activities:
          - name: match
            attributes-type: MatchAttributes
            content-state: { minute: 0, home: 0, away: 0, event: "Kick-off" }
            beats:
              - { id: tick, every: 10s, count: 14, set: { minute: "{{ n }}" } }
              - { id: goal, at: 65s, priority: high, set: { home: "{{ state.home + 1 }}", event: "GOAL" }, alert: { title: "GOAL!" } }
              - { id: card, at: 100s, set: { event: "Yellow card" } }
              - { id: final, at: 150s, set: { event: "Full time" }, end: { dismissal: 10m } }
        """

    /// The device ends in the plan's final state, and what it received is the plan in order:
    /// every planned push arrives, except one superseded while an earlier push of the activity
    /// was still out (newest state wins, and carries the superseded push's alert), which the
    /// delivery reports.
    @Test func aWholeScenarioLeavesTheDeviceInTheFinalStateWithThePushesThePlanPredicted() async throws {
        let session = try await MockSession.start(configure: {
            $0.historyPerToken = 200; $0.keepsEveryPayload = true
        })
        let token = MockSession.token(10)
        let player = try Player(Self.match, speed: 30, session: session, targets: [.device(token)])
        let plan = player.plan()
        await player.play()
        let received = session.server.pushes(token: token).filter { $0.status == 200 }.compactMap(\.payload)
        let planned = plan.pushes.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(received.count >= 2)
        #expect(
            isOrderedSubsequence(received.map(withoutAlert), of: planned.map(withoutAlert)),
            "received \(received)\nplanned \(planned)")
        #expect(received.last.map(withoutAlert) == planned.last.map(withoutAlert), "the end arrives as planned")
        #expect(
            Set(received.compactMap(alertTitle)) == Set(planned.compactMap(alertTitle)), "no alert is lost or made up")
        #expect(received.count + player.log.superseded == planned.count)
        let device = try #require(session.server.activity(token: token))
        #expect(device.lifecycle == .ended)
        #expect(device.shownState == wire(plan.finalStates[0]))
        #expect(device.counters.rendered == received.count)
        #expect(player.log.delivered.count == received.count)
        await session.stop()
    }

    /// A push's JSON without its `aps.alert` (a superseding push carries the alert on).
    func withoutAlert(_ payload: String) -> String {
        payload.replacing(/,"alert":\{"title":"[^"]*"\}/, with: "")
    }

    func alertTitle(_ payload: String) -> String? {
        payload.firstMatch(of: /"alert":\{"title":"([^"]*)"\}/).map { String($0.1) }
    }

    /// Whether `items` appear in `sequence` in the same order (some may be missing).
    func isOrderedSubsequence(_ items: [String], of sequence: [String]) -> Bool {
        var rest = sequence[...]
        for item in items {
            guard let found = rest.firstIndex(of: item) else { return false }
            rest = rest[rest.index(after: found)...]
        }
        return true
    }

    @Test func withFaultsEverythingIsStillDeliveredInOrderAndNothingStaleIsResent() async throws {
        let session = try await MockSession.start(configure: {
            $0.historyPerToken = 500
            $0.keepsEveryPayload = true
            $0.faults = FaultPlan(
                errors: [
                    .init(error: APNsError(status: 500, reason: "InternalServerError"), rate: 0.15),
                    .init(error: APNsError(status: 429, reason: "TooManyRequests"), rate: 0.1),
                    .init(error: APNsError(status: 503, reason: "ServiceUnavailable"), rate: 0.05),
                ],
                // Every second request on a connection is reset unanswered: even a run whose
                // pushes a stalled machine superseded down to two meets a fault and a retry.
                latency: Latency("2ms-15ms"), goAwayEvery: 6, resetEvery: 2,
                shutdownWindows: [ShutdownWindow(after: .milliseconds(900), duration: .milliseconds(300))], seed: 5
            )
        })
        let token = MockSession.token(11)
        let player = try Player(Self.match, speed: 30, session: session, targets: [.device(token)])
        let plan = player.plan()
        await player.play()
        let device = try #require(session.server.activity(token: token))
        // The final state arrived, and the device never saw content older than what it showed.
        #expect(device.shownState == wire(plan.finalStates[0]))
        #expect(device.lifecycle == .ended)
        #expect(device.counters.droppedOld == 0)
        let accepted = session.server.pushes(token: token).filter { $0.status == 200 }
        let timestamps = accepted.compactMap {
            $0.payload.flatMap { APSPayload.aps(in: Array($0.utf8)) }.flatMap { aps -> Int? in
                if case .int(let t)? = aps["timestamp"] { return t } else { return nil }
            }
        }
        #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count)
        // Faults really happened, were retried, and every push is accounted for.
        #expect(player.log.retries > 0)
        #expect(session.server.stats().faultsInjected > 0)
        #expect(player.log.delivered.count + player.log.superseded == plan.pushes.count)
        #expect(session.client.connectionsMade > 1)
        await session.stop()
    }

    @Test func a410StopsThatActivityOnly() async throws {
        let gone = MockSession.token(12), fine = MockSession.token(13)
        let session = try await MockSession.start(configure: { $0.faults = FaultPlan(unregisteredTokens: [gone]) })
        let two = Self.match.replacingOccurrences(of: "  - name: match", with: "  - name: match").appending(
            """

              - name: other
                attributes-type: MatchAttributes
                content-state: { minute: 0, home: 0, away: 0, event: "Kick-off" }
                beats:
                  - { id: tick, every: 20s, count: 6, set: { minute: "{{ n }}" } }
                  - { id: final, at: 150s, end: true }
            """)
        let player = try Player(two, speed: 60, session: session, targets: [.device(gone), .device(fine)])
        let plan = player.plan()
        await player.play()
        #expect(player.delivery.stopReason(for: 0)?.contains("410 Unregistered") == true)
        #expect(player.delivery.stopReason(for: 1) == nil)
        #expect(session.server.stats().reasons["Unregistered"] == 1)
        #expect(session.server.activity(token: gone) == nil)
        let other = try #require(session.server.activity(token: fine))
        #expect(other.shownState == wire(plan.finalStates[1]))
        #expect(other.lifecycle == .ended)
        await session.stop()
    }

    @Test func aConfigurationErrorStopsDeliveryWithAMessageThatSaysHowToFixIt() async throws {
        let session = try await MockSession.start(configure: { $0.authentication = .keys([]) })
        let player = try Player(Self.match, speed: 60, session: session, targets: [.device(MockSession.token(14))])
        await player.play()
        let error = try #require(player.delivery.configurationError)
        #expect(error.contains("--key-id"))
        #expect(session.server.stats().requests == 1)
        #expect(player.log.all.contains { if case .configurationError = $0 { return true } else { return false } })
        await session.stop()
    }

    @Test func pushToStartThenUpdatesReachTheStartedActivity() async throws {
        let session = try await MockSession.start(configure: {
            $0.historyPerToken = 200; $0.keepsEveryPayload = true
        })
        let startToken = MockSession.token(15)
        let yaml = """
            liveline: 1
            bundle-id: com.example.matchday
            policy: { min-interval: 0, stale-after: 10m }
            activities:
              - name: match
                attributes-type: MatchAttributes
                attributes: { home: Kingsmere, away: Redcliffe }
                content-state: { minute: 0, home: 0, away: 0, event: "Kick-off" }
                beats:
                  - { at: 0, start: { input-push-token: true }, alert: { title: "Starting" } }
                  - { id: tick, every: 20s, count: 7, set: { minute: "{{ n }}" } }
                  - { id: goal, at: 65s, priority: high, set: { home: 1, event: "GOAL" } }
                  - { id: final, at: 150s, set: { event: "Full time" }, end: true }
            """
        let player = try Player(yaml, speed: 60, session: session, targets: [.pushToStart(startToken)])
        let plan = player.plan()
        await player.play()
        let device = try #require(session.server.activities().first { $0.pushToStartToken == startToken })
        #expect(device.updateToken != nil && device.updateToken != startToken)
        #expect(device.attributesType == "MatchAttributes")
        #expect(device.shownState == wire(plan.finalStates[0]))
        #expect(device.lifecycle == .ended)
        #expect(player.log.delivered.count == plan.pushes.count)
        await session.stop()
    }

    @Test func aBroadcastReachesEverySubscriberOfTheChannel() async throws {
        let session = try await MockSession.start()
        let channels = BroadcastChannels(client: session.client, bundleID: MockSession.bundleID)
        let channel = try await channels.create(storagePolicy: 0)
        #expect(try await channels.list().contains(channel))
        #expect(try await channels.read(channel).messageStoragePolicy == 0)

        // Three fans' activities start by push and subscribe to the channel...
        let fans = (0..<3).map { MockSession.token(20 + $0) }
        let now = Int64(Date().timeIntervalSince1970)
        for fan in fans {
            let start =
                #"{"aps":{"timestamp":\#(now),"event":"start","content-state":{"minute":0,"home":0,"away":0,"event":"Kick-off"},"attributes-type":"MatchAttributes","attributes":{},"input-push-channel":"\#(channel)","alert":{"title":"Starting"}}}"#
            let response = try await session.client.send(
                .push(
                    token: fan,
                    headers: PushHeaders(
                        topic: LiveActivityTopic.topic(forBundleID: MockSession.bundleID), priority: .high,
                        expiration: 0),
                    payload: Array(start.utf8)))
            #expect(response.status == 200)
        }
        // ...and the match is played once, to the channel.
        let player = try Player(Self.match, speed: 60, session: session, targets: [.channel(channel)])
        let plan = player.plan()
        await player.play()
        let followers = session.server.activities().filter { $0.channels.contains(channel) }
        #expect(followers.count == 3)
        for follower in followers {
            #expect(follower.shownState == wire(plan.finalStates[0]))
            #expect(follower.lifecycle == .ended)
        }
        #expect(session.server.stats().broadcasts == plan.pushes.count)
        try await channels.delete(channel)
        #expect(try await channels.list().contains(channel) == false)
        await session.stop()
    }
}
