import Foundation
import Testing
@testable import LivelineBridge

@Suite struct InboxTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func duplicatesAreStoredOnce(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            let first = try await store.insertEvents([F.event("a"), F.event("b"), F.event("a")])
            #expect(first.count == 3)
            guard case .stored = first[0], case .stored = first[1] else {
                Issue.record("expected two stored events, got \(first)")
                return
            }
            #expect(first[2] == .duplicate)
            // The same id from another source is another event.
            let again = try await store.insertEvents([F.event("b"), F.event("a", source: "uber")])
            #expect(again[0] == .duplicate)
            #expect(again[1] != .duplicate)
            #expect(try await store.counts().pendingEvents == 3)

            // A batch larger than one statement's chunk (256 rows), repeating ids across chunks.
            let big = (0..<600).map { F.event("big-\($0 % 550)", activity: "act-\($0 % 300)", order: Int64($0)) }
            let results = try await store.insertEvents(big)
            #expect(results.count == 600)
            #expect(results.prefix(550).allSatisfy { $0 != .duplicate })
            #expect(results.suffix(50).allSatisfy { $0 == .duplicate })
            let sequences = results.compactMap { result -> Int64? in
                if case .stored(let sequence) = result { return sequence } else { return nil }
            }
            #expect(Set(sequences).count == 550)
            #expect(try await store.counts().pendingEvents == 553)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func claimsComeInOrderPerActivityWithBodyAndHeaders(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            _ = try await store.insertEvents([
                F.event("3", activity: "A", order: 30), F.event("1", activity: "A", order: 10),
                F.event("x", activity: "B", order: 5), F.event("2", activity: "A", order: 20),
            ])
            let claimed = try await store.claimNextEvents(limit: 10, instance: "i1", lease: .seconds(30), now: F.epoch)
            #expect(claimed.map(\.activityKey).sorted() == ["A", "B"])
            let a = try #require(claimed.first { $0.activityKey == "A" })
            #expect(a.events.map(\.event.orderKey) == [10, 20, 30])
            #expect(a.events[0].event == F.event("1", activity: "A", order: 10))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func twoInstancesNeverHoldTheSameActivity(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            let events = (0..<40).map { F.event("e\($0)", activity: "act-\($0 % 10)", order: Int64($0)) }
            _ = try await store.insertEvents(events)
            async let one = store.claimNextEvents(limit: 6, instance: "one", lease: .seconds(30), now: F.epoch)
            async let two = store.claimNextEvents(limit: 6, instance: "two", lease: .seconds(30), now: F.epoch)
            let (first, second) = try await (one, two)
            let firstKeys = Set(first.map(\.activityKey))
            let secondKeys = Set(second.map(\.activityKey))
            #expect(firstKeys.isDisjoint(with: secondKeys))
            #expect(firstKeys.count + secondKeys.count == 10)
            // Nothing is left to claim while both leases live.
            #expect(try await store.claimNextEvents(limit: 10, instance: "three", lease: .seconds(30), now: F.epoch).isEmpty)
            // The other instance cannot mark events it does not lease.
            let foreign = try #require(second.first).events.map(\.sequence)
            #expect(try await store.markApplied(foreign, instance: "one") == 0)
            #expect(try await store.markApplied(foreign, instance: "two") == foreign.count)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anExpiredLeaseIsTakenOverAndReleasedWorkIsNotClaimedAgain(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            _ = try await store.insertEvents([F.event("1", order: 1), F.event("2", order: 2)])
            let died = try await store.claimNextEvents(limit: 1, instance: "died", lease: .seconds(5), now: F.epoch)
            #expect(died.first?.events.count == 2)
            #expect(try await store.claimNextEvents(limit: 1, instance: "heir", lease: .seconds(5), now: F.epoch.addingTimeInterval(4)).isEmpty)
            let later = F.epoch.addingTimeInterval(6)
            let taken = try await store.claimNextEvents(limit: 1, instance: "heir", lease: .seconds(5), now: later)
            let sequences = try #require(taken.first).events.map(\.sequence)
            #expect(sequences == died.first?.events.map(\.sequence))
            // The dead instance lost its lease: its late marks change nothing.
            #expect(try await store.markApplied(sequences, instance: "died") == 0)
            #expect(try await store.markApplied([sequences[0]], instance: "heir") == 1)
            #expect(try await store.markSuperseded([sequences[1]], reason: "older than applied order 2", instance: "heir") == 1)
            try await store.releaseActivities(["order-1"], instance: "heir")
            #expect(try await store.claimNextEvents(limit: 5, instance: "heir", lease: .seconds(5), now: later).isEmpty)
            // A new event makes the released activity claimable again, with only that event.
            _ = try await store.insertEvents([F.event("3", order: 3)])
            let next = try await store.claimNextEvents(limit: 5, instance: "other", lease: .seconds(5), now: later)
            #expect(next.first?.events.map(\.event.eventID) == ["3"])
            #expect(try await store.counts().pendingEvents == 1)
        }
    }
}

/// Where a stream source resumes after a restart, on both stores.
@Suite struct SourcePositionTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func theNewestEventAndTheActivitiesStillOpen(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            #expect(try await store.sourcePosition("feed", activityLimit: 10) == nil)
            _ = try await store.insertEvents([
                F.event("e1", activity: "m1", source: "feed", at: 1),
                F.event("e2", activity: "m2", source: "feed", at: 2),
                F.event("other", activity: "m3", source: "uber", at: 9),
                F.event("e3", activity: "m1", source: "feed", at: 3),
                F.event("e4", activity: "m4", source: "feed", at: 4),
            ])
            try await store.upsertActivity(ActivityRecord(key: "m4", scenario: "feed", lifecycle: .ended, updatedAt: F.epoch))
            let position = try #require(try await store.sourcePosition("feed", activityLimit: 10))
            #expect(position.lastEventID == "e4")
            #expect(position.lastReceivedAt == F.epoch.addingTimeInterval(4))
            #expect(position.openActivityKeys == ["m1", "m2"], "newest first; m4 has ended, m3 is another source's")
            #expect(try await store.sourcePosition("feed", activityLimit: 1)?.openActivityKeys == ["m1"])
        }
    }
}
