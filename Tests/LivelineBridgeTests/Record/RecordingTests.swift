import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// Real webhooks through the bridge (HTTP, verification, the store, the dispatcher, a real mock
/// APNs in virtual time), then `BridgeRecorder`: the recording loads as a scenario without
/// errors, and played under the virtual clock from its first start it sends exactly the pushes
/// the mock received, byte for byte, in order.
@Suite struct RecordingTests {
    static let delivery = BridgeHarness.token(70)
    static let uber = BridgeHarness.token(71)
    static let orders = BridgeHarness.token(72)

    /// An evening of three orders on the example configuration's three senders, with what makes
    /// a recording hard: coalesced events, a late event superseded, a retry, a heartbeat in a
    /// quiet stretch, an ETA storm, a beat whose template reads the webhook, an event no rule
    /// names, ends.
    static func playEvening(_ bridge: ReadyMadeBridge) async throws {
        let harness = bridge.harness
        try await bridge.register("D-1", token: delivery, source: "doordash")
        try await bridge.register("U-1", token: uber, source: "uber")
        try await bridge.register("O-1", token: orders, source: "orders")

        try await bridge.send("doordash", doordash("DASHER_CONFIRMED", eta: "2027-01-15T18:40:00Z"))
        harness.advance(seconds: 5)
        try await bridge.send("doordash", doordash("DASHER_CONFIRMED_PICKUP_ARRIVAL", eta: "2027-01-15T18:39:00Z"))
        harness.advance(seconds: 5)
        try await bridge.send("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:35:00Z"))
        harness.advance(seconds: 3)
        try await bridge.send("doordash", doordash("DASHER_CONFIRMED", eta: "2027-01-15T18:50:00Z"))
        try await bridge.send("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:35:00Z"))
        try await bridge.send("doordash", doordash("DASHER_ENROUTE_TO_DROPOFF"))

        harness.advance(seconds: 20)
        let start = Int(harness.clock.now() / 1000)
        for index in 0..<12 {
            let body =
                #"{"kind":"event.delivery_status","id":"evt-\#(index)","status":"on-the-way","created":\#(start + index),"delivery_id":"U-1","data":{"dropoff_eta":"2027-01-15T19:\#(10 + index):00Z"}}"#
            try await bridge.send("uber", body)
            harness.advance(seconds: 1)
        }

        harness.advance(seconds: 30)
        let note =
            #"{"type":"order.note","data":{"order_id":"O-1","sequence":1,"note":"Leaving it with the concierge {{ not a template }}"}}"#
        try await bridge.send("orders", note)
        harness.advance(seconds: 40)
        try await bridge.send(
            "orders",
            #"{"type":"order.eta","data":{"order_id":"O-1","sequence":2,"eta":"2027-01-15T19:30:00Z","minutes_left":9}}"#
        )

        // A quiet stretch: heartbeats keep the activities fresh.
        try await harness.run(for: 720, step: 30)
        try await bridge.send("doordash", doordash("DASHER_DROPPED_OFF"))
        try await bridge.send("orders", #"{"type":"order.delivered","data":{"order_id":"O-1","sequence":3}}"#)
        try await harness.run(for: 60, step: 30)
    }

    @Test(arguments: StoreKind.allCases)
    func aRecordedEveningReplaysTheBridgesPushesExactly(_ kind: StoreKind) async throws {
        try await ReadyMadeBridge.with("bridge.example.yaml", store: kind) { bridge in
            let from = BridgeClock.now()
            try await Self.playEvening(bridge)
            let harness = bridge.harness
            let recording = try await BridgeRecorder(configuration: harness.configuration, store: harness.store)
                .record(BridgeRecorder.Selection(from: from, to: BridgeClock.now()), file: "evening.yaml")
            #expect(recording.warnings.isEmpty, "\(recording.warnings)")
            #expect(recording.activities.map(\.activityKey) == ["D-1", "U-1", "O-1"])

            // liveline validate: no errors.
            let loaded = try ScenarioLoader().load(yaml: recording.yaml, file: "evening.yaml")
            #expect(loaded.scenario.activities.map(\.name) == ["d-1", "u-1", "o-1"])
            // The story's android: block comes with it, so the recording plays to Android phones too.
            for activity in loaded.scenario.activities {
                let android = try #require(activity.android, "\(activity.name) has no android: block")
                #expect(android.channel == "delivery-live" && android.segments.count == 3 && android.points.count == 1)
            }
            #expect(
                recording.yaml.contains(
                    "    android:\n      channel: delivery-live\n      small-icon: ic_stat_delivery"))

            // liveline plan --start <the first start>: the pushes the mock received, in order.
            var run = ScenarioRun(scenario: loaded.scenario, start: recording.start)
            var sink = PushCollector()
            run.run(into: &sink)
            for (index, (key, token)) in [("D-1", Self.delivery), ("U-1", Self.uber), ("O-1", Self.orders)].enumerated()
            {
                let sent = harness.mock.pushes(token: token).filter { $0.status == 200 }.compactMap(\.payload)
                let planned = sink.pushes.filter { $0.activity == index }.map {
                    String(decoding: $0.payload, as: UTF8.self)
                }
                #expect(sent.count >= 2, "\(key) sent \(sent.count)")
                #expect(
                    Array(planned.prefix(sent.count)) == sent,
                    "\(key):\nsent    \(sent.joined(separator: "\n        "))\nplanned \(planned.prefix(sent.count + 1).joined(separator: "\n        "))"
                )
            }
            // The delivered orders end in the recording as they did: nothing after.
            #expect(sink.pushes.filter { $0.activity == 0 }.count == harness.mock.pushes(token: Self.delivery).count)
            #expect(recording.activities[0].ended && recording.activities[2].ended && !recording.activities[1].ended)

            // What the file says: each beat under the event it came from; the others as comments.
            #expect(recording.yaml.contains("# received "))
            #expect(recording.yaml.contains("doordash DASHER_CONFIRMED, event sha256:"))
            #expect(recording.yaml.contains("superseded: older than an event already applied"))
            #expect(recording.yaml.contains("no rule for it: recorded only"))
            #expect(
                recording.yaml.contains(
                    #"message: "Priya: Leaving it with the concierge {{ \"{\" }}{{ \"{\" }} not a template {{ \"}\" }}{{ \"}\" }}""#
                ))
            #expect(recording.yaml.contains("eta: !date start"))
        }
    }

    /// Recording one key, by `--source`, and what is not there.
    @Test func keysSourcesAndTimeRangesSelect() async throws {
        try await ReadyMadeBridge.with("bridge.example.yaml") { bridge in
            try await Self.playEvening(bridge)
            let recorder = BridgeRecorder(configuration: bridge.harness.configuration, store: bridge.harness.store)
            #expect(
                try await recorder.record(.init(activityKeys: ["U-1"]), file: "u.yaml").activities.map(\.activityKey)
                    == ["U-1"])
            #expect(
                try await recorder.record(.init(source: "orders"), file: "o.yaml").activities.map(\.activityKey) == [
                    "O-1"
                ])
            await #expect(
                throws: RecordingError.nothingSelected(
                    "the store has no events of source uber, received until 2001-01-01T00:00:00Z")
            ) {
                _ = try await recorder.record(
                    .init(source: "uber", to: 978_307_200_000), file: "x.yaml")
            }
            await #expect(throws: RecordingError.nothingDispatched(activityKey: "nobody")) {
                _ = try await recorder.record(.init(activityKeys: ["nobody"]), file: "x.yaml")
            }
            await #expect(throws: RecordingError.self) {
                _ = try await recorder.record(.init(source: "lyft"), file: "x.yaml")
            }
        }
    }

    /// A recording made with a configuration that no longer maps the events as the bridge did
    /// says so.
    @Test func aChangedConfigurationIsReported() async throws {
        try await ReadyMadeBridge.with("bridge.example.yaml") { bridge in
            try await Self.playEvening(bridge)
            var configuration = bridge.harness.configuration
            let index = try #require(configuration.sources.firstIndex { $0.name == "doordash" })
            configuration.sources[index].events["DASHER_PICKED_UP"] = nil
            let recording = try await BridgeRecorder(configuration: configuration, store: bridge.harness.store)
                .record(.init(activityKeys: ["D-1"]), file: "d.yaml")
            #expect(
                recording.warnings.contains { $0.contains("the configuration may have changed") },
                "\(recording.warnings)")
        }
    }
}
