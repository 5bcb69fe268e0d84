import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// A messy stream delivers a delivery's events out of order. What a user saw when a late
/// event was superseded whole: a delivery whose `DASHER_CONFIRMED` (the event that names the
/// courier) came after `DASHER_PICKED_UP` never showed the courier at all.
@Suite struct LateEventTests {
    /// DoorDash's events of one delivery, each with its own ETA, in their order in the delivery's life.
    static let events = [
        ("DASHER_CONFIRMED", "2027-01-15T18:40:00Z"),
        ("DASHER_CONFIRMED_PICKUP_ARRIVAL", "2027-01-15T18:41:00Z"),
        ("DASHER_PICKED_UP", "2027-01-15T18:42:00Z"),
    ]
    static let fields = ["courierName", "status", "message", "eta", "progress", "minutesLeft"]

    @Test(arguments: StoreKind.allCases)
    func everyOrderOfADeliverysEventsEndsShowingWhatTheOrderedStreamShows(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let orders = permutations(Array(0..<Self.events.count))
            for index in orders.indices {
                try await bridge.register("D-\(index)", updateToken: BridgeHarness.token(40 + index))
            }
            // Each event in its own step, 20 s apart (past the story's 15 s between pushes).
            for step in 0..<Self.events.count {
                for (index, order) in orders.enumerated() {
                    let (type, eta) = Self.events[order[step]]
                    try await bridge.receive("doordash", doordash(type, delivery: "D-\(index)", eta: eta))
                }
                try await bridge.run(for: 20, step: 5)
            }
            try await bridge.run(for: 20, step: 5)
            let expected = bridge.shown(BridgeHarness.token(40))
            #expect(expected["courierName"]?.stringValue == "Priya")
            #expect(expected["status"]?.stringValue == "on-the-way")
            for index in orders.indices.dropFirst() {
                let shown = bridge.shown(BridgeHarness.token(40 + index))
                for field in Self.fields {
                    #expect(
                        shown[field] == expected[field],
                        "events in the order \(orders[index]): \(field) shows \(String(describing: shown[field])), in order \(String(describing: expected[field]))"
                    )
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLateEventAppliesOnlyTheFieldsNoNewerEventSetAndIsSupersededWhenThereAreNone(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            let token = BridgeHarness.token(60)
            try await bridge.register("D-60", updateToken: token)
            try await bridge.receive(
                "doordash", doordash("DASHER_PICKED_UP", delivery: "D-60", eta: "2027-01-15T18:42:00Z"))
            try await bridge.run(for: 20, step: 5)
            let picked = bridge.shown(token)
            #expect(picked["courierName"] == .null)

            // Late: its name is new, its ETA and message are older than what is shown.
            try await bridge.receive(
                "doordash", doordash("DASHER_CONFIRMED", delivery: "D-60", eta: "2027-01-15T18:30:00Z"))
            try await bridge.run(for: 20, step: 5)
            let shown = bridge.shown(token)
            #expect(shown["courierName"]?.stringValue == "Priya")
            for field in ["status", "message", "eta", "progress"] {
                #expect(shown[field] == picked[field], "the late event changed \(field)")
            }

            // Late again, with nothing left that no newer event set: superseded, nothing sent.
            let pushes = bridge.timestamps(token).count
            try await bridge.receive(
                "doordash", doordash("DASHER_CONFIRMED_PICKUP_ARRIVAL", delivery: "D-60", eta: "2027-01-15T18:20:00Z"))
            try await bridge.run(for: 20, step: 5)
            #expect(bridge.timestamps(token).count == pushes)
            let events = try await bridge.store.dispatchedEvents(activityKey: "D-60")
            #expect(
                events.map(\.event.eventType) == [
                    "DASHER_PICKED_UP", "DASHER_CONFIRMED", "DASHER_CONFIRMED_PICKUP_ARRIVAL",
                ])
            #expect(events.map { $0.supersededReason == nil } == [true, true, false])
        }
    }

    /// A state written before per-field order keys (layout 1) is read, and late events for it are
    /// superseded whole, as they were.
    @Test func aStateFromBeforeFieldOrderKeysIsReadWithoutThem() throws {
        let story = try #require(StoryCatalog(sources: try loadExample().sources)["doordash"])
        let engine = ActivityEngine(
            program: story.program, id: 0, scenarioStart: 0, payloadLimit: 4096, followsTimeline: false)
        var state = BridgeActivityState(source: "doordash", engine: engine.snapshot)
        state.lastOrderKeys = ["doordash": 3]
        state.lastEventIDs = ["doordash": "e-3"]
        var layout1 = state.encoded()
        layout1[3] = 1
        // Layout 1 ended after the event ids: drop the absent Android memory's flag (layout 3)
        // and the empty field section's count (layout 2).
        #expect(layout1.removeLast() == 0)
        #expect(layout1.removeLast() == 0)
        let read = try BridgeActivityState.decode(layout1)
        #expect(read.lastOrderKeys == state.lastOrderKeys && read.fieldOrderKeys.isEmpty)

        state.markFieldsSet(["courierName", "courier.phone"], source: "doordash", orderKey: 2)
        #expect(try BridgeActivityState.decode(state.encoded()) == state)
        #expect(state.newerSetter(of: "courier", source: "doordash", than: 1) == 2)
        #expect(state.newerSetter(of: "courierName", source: "doordash", than: 2) == nil)
        #expect(state.newerSetter(of: "eta", source: "doordash", than: 1) == nil)
    }
}

/// Every order of `items`.
func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index -> [[T]] in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(rest).map { [first] + $0 }
    }
}
