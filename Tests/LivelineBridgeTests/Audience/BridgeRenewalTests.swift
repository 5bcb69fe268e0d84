import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import Testing
@testable import LivelineBridge

/// Renewals in the bridge, end to end on loopback: a real store (SQLite, PostgreSQL), the
/// registry and followers APIs over HTTP, the mock APNs over TLS with its device model, all on
/// one virtual clock. A 20-hour flight (Scenarios/overnight-flight.yaml) renews the key's own
/// activity and its followers', each device moving to its successor's token as its app reports it.
@Suite(.serialized) struct BridgeRenewalTests {
    static let yaml = """
        liveline-bridge: 1
        listen: 127.0.0.1:8080
        api-keys:
          - sha256:c48a01f49fd0f2cc404bc3cbbc80e91457a3d41bb429a695243de4c61794155c
        sources:
          flight:
            verify: none
            event-id: /id
            event-type: /type
            activity-key: /flight
            order-key: /seq
            order: sequence
            scenario: overnight-flight.yaml
            events:
              flight.start: { start: true }
              flight.delayed: { trigger: delayed }
              flight.boarding: { trigger: boarding }
              flight.landed: { trigger: landed }
        """

    static func event(_ type: String, seq: Int, key: String = "LL-204") -> String {
        #"{"id":"e-\#(key)-\#(seq)","type":"\#(type)","flight":"\#(key)","seq":\#(seq)}"#
    }

    /// The harness with the registry and followers APIs served on loopback, on its clock.
    struct Bridge {
        let harness: BridgeHarness
        let port: Int
        /// Where the store is, for another reader of it (`liveline bridge history`).
        let location: StoreLocation

        func call(
            _ method: HTTPRequest.Method, _ path: String, _ body: String = ""
        ) async throws
            -> WebhookSender.Answer
        {
            var headers = HTTPFields()
            headers[.authorization] = "Bearer demo-key"
            if !body.isEmpty { headers[.contentType] = "application/json" }
            return try await WebhookSender().send(
                to: "http://127.0.0.1:\(port)/v1/activities/\(path)", method: method, headers: headers,
                body: Array(body.utf8))
        }

        func json(_ path: String) async throws -> [String: Any] {
            let answer = try await call(.get, path)
            return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        }
    }

    static func withBridge(
        _ kind: StoreKind, keepsHistory: Bool = true, _ body: (Bridge) async throws -> Void
    ) async throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.yaml, file: testConfigurationFile)
        try await StoreFixture.withLocation(kind) { location in
            let store = try await SQLStore.open(location, now: StoreFixture.epoch, keepsHistory: keepsHistory)
            let harness: BridgeHarness
            do {
                harness = try await BridgeHarness(store: store, configuration: configuration)
            } catch {
                try? await store.close()
                throw error
            }
            let clock = harness.clock
            let server = BridgeHTTPServer(
                configuration: configuration, store: store, inbox: InboxWriter(store: store), metrics: BridgeMetrics(),
                logger: CapturedLog().logger(label: "liveline.tests.renewal"),
                listen: ListenAddress(host: "127.0.0.1", port: 0), clock: { clock.now() }, wake: {},
                contentState: { harness.dispatcher.contentState(of: $0) })
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.run() }
                    defer { group.cancelAll() }
                    try await body(
                        Bridge(harness: harness, port: try await server.listeningPort(), location: location))
                }
            } catch {
                await harness.stop()
                try? await store.close()
                throw error
            }
            await harness.stop()
            try await store.close()
        }
    }

    /// What the device behind `startToken` shows now: its activities that neither ended nor left.
    static func current(_ mock: MockAPNsServer, _ startToken: String) -> [ActivitySnapshot] {
        mock.activities().filter {
            $0.pushToStartToken == startToken && ($0.lifecycle == .active || $0.lifecycle == .stale)
        }
    }

    /// Does what each app does: reports the update token of the activity its device shows, when
    /// it has a new one (after the start, and after each renewal). Returns how many it reported.
    @discardableResult
    static func reportTokens(
        _ bridge: Bridge, key start: String, followers: [(device: String, start: String)],
        reported: inout [String: String]
    ) async throws -> Int {
        var count = 0
        for (device, startToken) in [("", start)] + followers {
            guard let token = current(bridge.harness.mock, startToken).last?.updateToken, reported[startToken] != token
            else { continue }
            let answer =
                device.isEmpty
                ? try await bridge.call(.put, "LL-204", #"{"update-token": "\#(token)"}"#)
                : try await bridge.call(.put, "LL-204/followers/\(device)", #"{"update-token": "\#(token)"}"#)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            reported[startToken] = token
            count += 1
        }
        return count
    }

    @Test(arguments: StoreKind.allCases)
    func aTwentyHourFlightRenewsTheKeyAndItsFollowersAndEachMovesToItsSuccessor(_ kind: StoreKind) async throws {
        try await Self.withBridge(kind) { bridge in
            let harness = bridge.harness
            let mock = harness.mock
            let keyStart = BridgeHarness.token(160)
            let followers = [("a", BridgeHarness.token(161)), ("b", BridgeHarness.token(162))]
            let appStarted = BridgeHarness.token(163)
            #expect(
                try await bridge.call(.put, "LL-204", #"{"push-to-start-token": "\#(keyStart)", "source": "flight"}"#)
                    .status == 201)
            for (device, start) in followers {
                #expect(
                    try await bridge.call(.put, "LL-204/followers/\(device)", #"{"push-to-start-token": "\#(start)"}"#)
                        .status == 201)
            }
            // A device whose app started its own activity: nothing to start a successor with.
            #expect(
                try await bridge.call(.put, "LL-204/followers/c", #"{"update-token": "\#(appStarted)"}"#).status
                    == 201)

            let began = harness.now
            try await harness.receive("flight", Self.event("flight.start", seq: 1))
            try await harness.settle()
            var reported: [String: String] = [:]
            #expect(try await Self.reportTokens(bridge, key: keyStart, followers: followers, reported: &reported) == 3)
            try await harness.settle()

            var seq = 1
            var shownCounts: [Int] = []
            let starts = [keyStart] + followers.map(\.1)
            // 20 hours in 5-minute steps; the story's events at their times; each app reports
            // its successor's token as soon as its device shows one.
            while harness.now < began + 20 * 3_600_000 {
                harness.advance(seconds: 300)
                let elapsed = harness.now - began
                for (at, type) in [(6_000_000, "flight.delayed"), (59_400_000, "flight.boarding")]
                where elapsed >= at && elapsed < at + 300_000 {
                    seq += 1
                    try await harness.receive("flight", Self.event(type, seq: seq))
                }
                try await harness.settle()
                try await Self.reportTokens(bridge, key: keyStart, followers: followers, reported: &reported)
                try await harness.settle()
                for start in starts {
                    let shown = Self.current(mock, start)
                    shownCounts.append(shown.count)
                    for activity in shown {
                        let age = harness.now - (activity.startedAt ?? harness.now)
                        #expect(age < 8 * 3_600_000, "\(activity.id) is \(age) ms old")
                    }
                }
            }
            // Every renewing device showed exactly one current activity at every step, and the
            // mock saw no second start of one story.
            #expect(shownCounts.allSatisfy { $0 == 1 }, "\(shownCounts)")
            #expect(mock.stats().duplicateStarts == 0)

            // Two renewals, each to the key's own device and both followers'.
            for start in starts {
                let activities = mock.activities().filter { $0.pushToStartToken == start }
                #expect(activities.count == 3, "\(start): \(activities.map(\.id))")
                for predecessor in activities.dropLast() {
                    // Ended by its end, dismissed at once, well before the system's 8 hours.
                    #expect(predecessor.lifecycle == .dismissed)
                    let ended = try #require(predecessor.endedAt)
                    #expect(ended - (predecessor.startedAt ?? 0) < 8 * 3_600_000)
                    // Nothing went to it after its end, and everything it was sent rendered.
                    #expect(predecessor.counters.ignoredAfterEnd == 0 && predecessor.counters.wouldNotRender == 0)
                }
                // The successors started quietly: an alert, never a sound, and the state shown.
                let startPayloads = mock.pushes(token: start).filter { $0.status == 200 }.compactMap(\.payload)
                #expect(startPayloads.count == 3)
                #expect(startPayloads.first?.contains(#""sound":"default""#) == true)
                #expect(startPayloads.dropFirst().allSatisfy { $0.contains(#""alert":{"#) && !$0.contains("sound") })
                #expect(startPayloads.last?.contains(#""status":"Delayed""#) == true)
                let newest = try #require(activities.last)
                #expect(newest.contentState?.objectValue?["status"] == .string("Boarding"))
            }
            // The app-started device was not renewed: it has its one activity, which the system ended.
            let plain = try #require(mock.activity(token: appStarted))
            #expect(plain.lifecycle == .ended || plain.lifecycle == .dismissed)
            #expect(mock.activities().filter { $0.updateToken == appStarted }.count == 1)

            seq += 1
            try await harness.receive("flight", Self.event("flight.landed", seq: seq))
            try await harness.settle()
            for start in starts {
                #expect(Self.current(mock, start).isEmpty)
                let last = try #require(mock.activities().last { $0.pushToStartToken == start })
                #expect(last.contentState?.objectValue?["status"] == .string("Landed"))
            }

            let status = try await bridge.json("LL-204")
            let renewal = try #require(status["renewal"] as? [String: Any])
            #expect(renewal["generation"] as? Int == 2)
            #expect(renewal["state"] as? String == "done")
            #expect(renewal["renewed"] as? Int == 3 && renewal["refused"] as? Int == 0)
            #expect(renewal["in-doubt"] as? Int == 0)
            let renew = try #require(status["renew"] as? [String: Any])
            #expect(renew["before"] as? String == "7h30m" && renew["from"] as? String == "scenario")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefusedSuccessorLeavesTheDeviceOnItsActivityAndItsUpdatesGoOn(_ kind: StoreKind) async throws {
        try await Self.withBridge(kind) { bridge in
            let harness = bridge.harness
            let keyStart = BridgeHarness.token(170)
            let follower = ("a", BridgeHarness.token(171))
            _ = try await bridge.call(.put, "LL-204", #"{"push-to-start-token": "\#(keyStart)", "source": "flight"}"#)
            _ = try await bridge.call(.put, "LL-204/followers/a", #"{"push-to-start-token": "\#(follower.1)"}"#)
            try await harness.receive("flight", Self.event("flight.start", seq: 1))
            try await harness.settle()
            var reported: [String: String] = [:]
            try await Self.reportTokens(bridge, key: keyStart, followers: [follower], reported: &reported)
            try await harness.settle()
            let first = try #require(Self.current(harness.mock, follower.1).first)

            // The follower's push-to-start token is gone by the renewal.
            harness.mock.setFaults(FaultPlan(unregisteredTokens: [follower.1]))
            try await harness.run(for: 7 * 3600 + 40 * 60, step: 600)
            #expect(Self.current(harness.mock, follower.1).map(\.id) == [first.id])
            // Its update token stays, and its next update reaches the activity it still shows.
            let stored = try #require(try await harness.store.follower(device: "a", activityKey: "LL-204"))
            #expect(stored.updateToken == first.updateToken && stored.startToken == nil)
            try await harness.receive("flight", Self.event("flight.delayed", seq: 2))
            try await harness.settle()
            #expect(harness.shown(try #require(first.updateToken))["status"]?.stringValue == "Delayed")
            // The key's own device was renewed as usual.
            #expect(Self.current(harness.mock, keyStart).count == 1)
            #expect(harness.mock.activities().filter { $0.pushToStartToken == keyStart }.count == 2)
            let renewal = try #require(try await bridge.json("LL-204")["renewal"] as? [String: Any])
            #expect(renewal["renewed"] as? Int == 1 && renewal["refused"] as? Int == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRangeWhoseInstanceDiedIsInDoubtAndNeverStartedTwice(_ kind: StoreKind) async throws {
        try await Self.withBridge(kind) { bridge in
            let harness = bridge.harness
            let follower = ("a", BridgeHarness.token(181))
            _ = try await bridge.call(.put, "LL-204", #"{"audience": true, "source": "flight"}"#)
            _ = try await bridge.call(.put, "LL-204/followers/a", #"{"push-to-start-token": "\#(follower.1)"}"#)
            try await harness.receive("flight", Self.event("flight.start", seq: 1))
            try await harness.settle()
            var reported: [String: String] = [:]
            try await Self.reportTokens(
                bridge, key: BridgeHarness.token(180), followers: [follower], reported: &reported)
            try await harness.settle()
            let first = try #require(Self.current(harness.mock, follower.1).first)

            // Up to the renewal's instant: the dispatcher decides it, and an instance that then
            // dies claims its range and sends (here: nothing is recorded).
            try await harness.run(for: 7 * 3600 + 20 * 60, step: 1200)
            harness.advance(seconds: 600)
            _ = try await harness.dispatcher.dispatch(now: harness.now)
            let claimed = try #require(
                try await harness.store.claimRenewalRange(
                    limit: 10, instance: "dead", lease: .seconds(60), now: harness.now))
            #expect(claimed.targets.map(\.followerID).count == 1)
            // Its lease ends; the range is taken over and counted in doubt, never sent again.
            harness.advance(seconds: 61)
            try await harness.settle()
            #expect(harness.mock.activities().filter { $0.pushToStartToken == follower.1 }.count == 1)
            #expect(Self.current(harness.mock, follower.1).map(\.id) == [first.id])
            let renewal = try #require(try await bridge.json("LL-204")["renewal"] as? [String: Any])
            #expect(renewal["in-doubt"] as? Int == 1 && renewal["state"] as? String == "done")
            // The follower keeps its token: the story goes on to the activity it shows.
            try await harness.receive("flight", Self.event("flight.delayed", seq: 2))
            try await harness.settle()
            #expect(harness.shown(try #require(first.updateToken))["status"]?.stringValue == "Delayed")
        }
    }

    @Test func aKeyMayAskForItsOwnRenewalOrNone() async throws {
        try await Self.withBridge(.sqlite) { bridge in
            let put = try await bridge.call(
                .put, "K-1", #"{"push-to-start-token": "\#(BridgeHarness.token(190))", "renew": {"before": "5h"}}"#)
            #expect(put.status == 201, "\(String(decoding: put.body, as: UTF8.self))")
            let renew = try #require(try await bridge.json("K-1")["renew"] as? [String: Any])
            #expect(renew["before"] as? String == "5h" && renew["until"] as? String == "24h")
            #expect(renew["from"] as? String == "key")
            #expect(try await bridge.call(.put, "K-1", #"{"renew": false}"#).status == 200)
            #expect(try await bridge.json("K-1")["renew"] is NSNull)
            #expect(try await bridge.call(.put, "K-1", #"{"renew": null}"#).status == 200)
            #expect((try await bridge.json("K-1")["renew"] as? [String: Any])?["from"] as? String == "scenario")

            // The key's own renewal is the one its story plays: at 5h, not the scenario's 7h30m.
            #expect(try await bridge.call(.put, "K-1", #"{"renew": {"before": "5h"}}"#).status == 200)
            let harness = bridge.harness
            let began = harness.now
            try await harness.receive("flight", Self.event("flight.start", seq: 1, key: "K-1"))
            try await harness.settle()
            let token = try #require(Self.current(harness.mock, BridgeHarness.token(190)).last?.updateToken)
            #expect(try await bridge.call(.put, "K-1", #"{"update-token": "\#(token)"}"#).status == 200)
            try await harness.run(for: 5 * 3600 + 600, step: 1200)
            let renewal = try #require(try await bridge.json("K-1")["renewal"] as? [String: Any])
            #expect(renewal["generation"] as? Int == 1 && renewal["renewed"] as? Int == 1)
            let decided = try #require((renewal["at"] as? String).flatMap(UTCTime.parse))
            #expect(decided - began == 5 * 3_600_000)
            #expect(Self.current(harness.mock, BridgeHarness.token(190)).count == 1)

            for (body, status, fragment) in [
                (#"{"renew": {"before": "30m"}}"#, 422, "too soon"),
                (#"{"renew": {"before": "8h"}}"#, 422, "is not under max-duration (8h)"),
                (#"{"renew": {"before": "7h", "until": "6h"}}"#, 422, "is not after before"),
                (#"{"renew": {"befor": "7h"}}"#, 400, "renew takes before and until"),
                (#"{"renew": "7h"}"#, 400, "renew must be"),
            ] {
                let answer = try await bridge.call(.put, "K-1", body)
                #expect(answer.status == status, "\(body)")
                #expect(String(decoding: answer.body, as: UTF8.self).contains(fragment), "\(body)")
            }
        }
    }
}
