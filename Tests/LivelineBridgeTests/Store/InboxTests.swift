import Foundation
import Liveline
import Synchronization
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
            let big = (0..<600).map { F.event("big-\($0 % 550)", activityKey: "act-\($0 % 300)", order: Int64($0)) }
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

    /// Registers `keys` with an update token each, so a dispatch pass can claim them.
    static func register(_ keys: [String], in store: SQLStore) async throws {
        for key in keys {
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: key, targets: ActivityTargets(updateToken: "ab" + key), source: "delivery"),
                now: F.epoch)
        }
    }

    /// A step that applies every event it is given and changes nothing else.
    static func applyAll(_ work: ActivityWork, now: Millis) -> DispatchCommit {
        DispatchCommit(
            activityKey: work.activity.activityKey, applied: work.events.map(\.sequence),
            lifecycle: work.activity.lifecycle,
            engineState: work.activity.engineState ?? [], nextDeadline: nil, now: now)
    }

    @Test(arguments: StoreKind.allCases)
    func aDispatchPassGetsEachActivitysEventsInOrderWithBodyAndHeaders(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await Self.register(["A", "B"], in: store)
            _ = try await store.insertEvents([
                F.event("3", activityKey: "A", order: 30), F.event("1", activityKey: "A", order: 10),
                F.event("x", activityKey: "B", order: 5), F.event("2", activityKey: "A", order: 20),
            ])
            let seen = Mutex<[ActivityWork]>([])
            let written = try await store.dispatchPass(limit: 10, now: F.epoch) { work in
                seen.withLock { $0.append(work) }
                return Self.applyAll(work, now: F.epoch)
            }
            #expect(written.map(\.activityKey).sorted() == ["A", "B"])
            let a = try #require(seen.withLock { $0 }.first { $0.activity.activityKey == "A" })
            #expect(a.events.map(\.event.orderKey) == [10, 20, 30])
            #expect(a.events[0].event == F.event("1", activityKey: "A", order: 10))
            // Applied: the next pass has nothing to do.
            #expect(try await store.dispatchPass(limit: 10, now: F.epoch) { Self.applyAll($0, now: F.epoch) }.isEmpty)
            #expect(try await store.counts().pendingEvents == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func twoInstancesPassesNeverStepTheSameActivity(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await Self.register((0..<10).map { "act-\($0)" }, in: store)
            _ = try await store.insertEvents(
                (0..<40).map { F.event("e\($0)", activityKey: "act-\($0 % 10)", order: Int64($0)) })
            async let one = store.dispatchPass(limit: 6, now: F.epoch) { Self.applyAll($0, now: F.epoch) }
            async let two = store.dispatchPass(limit: 6, now: F.epoch) { Self.applyAll($0, now: F.epoch) }
            let (first, second) = try await (one, two)
            let firstKeys = Set(first.map(\.activityKey))
            let secondKeys = Set(second.map(\.activityKey))
            #expect(firstKeys.isDisjoint(with: secondKeys))
            // Each event applied once, whichever pass took its activity.
            #expect(
                first.flatMap(\.applied).count + second.flatMap(\.applied).count == (firstKeys.count + secondKeys.count)
                    * 4)
            _ = try await store.dispatchPass(limit: 10, now: F.epoch) { Self.applyAll($0, now: F.epoch) }
            #expect(try await store.counts().pendingEvents == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aReplaysExpiredLeaseIsTakenOverAndTheDeadInstancesLateCommitRefused(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await Self.register(["order-1"], in: store)
            _ = try await store.insertEvents([F.event("1", order: 1), F.event("2", order: 2)])
            // An instance leases the activity for a replay and dies.
            let died = try #require(
                try await store.claimActivity("order-1", instance: "died", lease: .seconds(5), now: F.epoch))
            #expect(died.events.count == 2)
            // While the lease lives, neither a pass nor another replay gets it.
            #expect(
                try await store.dispatchPass(limit: 5, now: F.epoch + 4000) {
                    Self.applyAll($0, now: F.epoch)
                }.isEmpty)
            #expect(
                try await store.claimActivity(
                    "order-1", instance: "heir", lease: .seconds(5), now: F.epoch + 4000) == nil)
            // After it, a pass takes the activity over with the same events.
            let later = F.epoch + 6000
            let taken = try await store.dispatchPass(limit: 5, now: later) { work in
                DispatchCommit(
                    activityKey: work.activity.activityKey, applied: [work.events[0].sequence],
                    superseded: [(work.events[1].sequence, "older than applied order 2")],
                    lifecycle: work.activity.lifecycle,
                    engineState: [], nextDeadline: nil, now: later)
            }
            #expect(taken.first?.applied == [died.events[0].sequence])
            // The dead instance's late commit changes nothing.
            #expect(try await !store.commitDispatch(Self.applyAll(died, now: later), instance: "died"))
            #expect(try await store.counts().pendingEvents == 0)
            // A new event makes the activity work again, with only that event.
            _ = try await store.insertEvents([F.event("3", order: 3)])
            let seen = Mutex<[String]>([])
            _ = try await store.dispatchPass(limit: 5, now: later) { work in
                seen.withLock { $0 += work.events.map(\.event.eventID) }
                return Self.applyAll(work, now: later)
            }
            #expect(seen.withLock { $0 } == ["3"])
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
                F.event("e1", activityKey: "m1", source: "feed", at: 1),
                F.event("e2", activityKey: "m2", source: "feed", at: 2),
                F.event("other", activityKey: "m3", source: "uber", at: 9),
                F.event("e3", activityKey: "m1", source: "feed", at: 3),
                F.event("e4", activityKey: "m4", source: "feed", at: 4),
            ])
            try await store.upsertActivity(
                RegisteredActivity(activityKey: "m4", source: "feed", lifecycle: .ended, updatedAt: F.epoch))
            let position = try #require(try await store.sourcePosition("feed", activityLimit: 10))
            #expect(position.lastEventID == "e4")
            #expect(position.lastReceivedAt == F.epoch + 4000)
            #expect(position.openActivityKeys == ["m1", "m2"], "newest first; m4 has ended, m3 is another source's")
            #expect(try await store.sourcePosition("feed", activityLimit: 1)?.openActivityKeys == ["m1"])
        }
    }
}
