import Foundation
import Liveline
import Testing
@testable import LivelineBridge

@Suite struct ActivityRegistryTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func upsertGetDelete(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            #expect(try await store.activity("order-9") == nil)
            var record = RegisteredActivity(
                activityKey: "order-9", pushToStartToken: "abcd", source: "delivery", frequentUpdates: true,
                updatedAt: F.epoch)
            try await store.upsertActivity(record)
            #expect(try await store.activity("order-9") == record)

            record.updateToken = "80f7"
            record.lifecycle = .active
            record.engineState = [0, 1, 2, 255]
            record.nextDeadline = F.epoch + 30_000
            record.lastPush = PushAnswer(
                at: F.epoch + 1000, status: 410, reason: "Unregistered", apnsID: "X")
            record.lastError = "token unregistered"
            record.updatedAt = F.epoch + 2000
            try await store.upsertActivity(record)
            #expect(try await store.activity("order-9") == record)
            #expect(try await store.counts().activities == 1)

            #expect(try await store.deleteActivity("order-9"))
            #expect(try await !store.deleteActivity("order-9"))
            #expect(try await store.activity("order-9") == nil)
        }
    }

    /// Keys, tokens and errors reach SQL only as bound parameters: text made to break out of a
    /// quoted string or end a statement is stored and read back as it is, and the table stays.
    @Test(arguments: StoreKind.allCases)
    func textThatLooksLikeSQLIsStoredAsText(_ kind: StoreKind) async throws {
        let hostile = [
            "order'; DROP TABLE activities; --", "o\"r\"d", "x' OR '1'='1", "$1", "?", "back\\slash",
        ]
        try await F.withStore(kind) { store in
            for (index, key) in hostile.enumerated() {
                var record = RegisteredActivity(
                    activityKey: key, pushToStartToken: "ab'cd", source: "delivery'); --", updatedAt: F.epoch)
                record.lastError = "error with ' and ; and -- \(index)"
                try await store.upsertActivity(record)
                #expect(try await store.activity(key) == record)
            }
            #expect(try await store.counts().activities == hostile.count)
            #expect(try await store.activity("x' OR '1'='1") != nil)
            #expect(try await store.activity("anything' OR '1'='1") == nil)
            #expect(try await store.deleteActivity("order'; DROP TABLE activities; --"))
            #expect(try await store.counts().activities == hostile.count - 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRegistrationChangesTargetsAndStoryButNeverTheEngineState(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            let first = ActivityRegistration(
                activityKey: "order-7", targets: ActivityTargets(pushToStartToken: "aa11"), source: "doordash")
            #expect(try await store.registerActivity(first, now: F.epoch))
            let fresh = try #require(try await store.activity("order-7"))
            #expect(
                fresh
                    == RegisteredActivity(
                        activityKey: "order-7", pushToStartToken: "aa11", source: "doordash", updatedAt: F.epoch))

            // The dispatcher moves the activity on…
            var played = fresh
            played.lifecycle = .active
            played.engineState = [9, 8, 7]
            played.nextDeadline = F.epoch + 60_000
            played.lastPush = PushAnswer(at: F.epoch + 1000, status: 200, apnsID: "A")
            played.lastError = "late event"
            try await store.upsertActivity(played)

            // …and a registration that comes later changes only what it registers.
            let second = ActivityRegistration(
                activityKey: "order-7", targets: ActivityTargets(updateToken: "bb22", channelID: "Y2hhbm5lbA=="),
                source: "uber", frequentUpdates: true)
            #expect(try await !store.registerActivity(second, now: F.epoch + 5000))
            var expected = played
            expected.updateToken = "bb22"
            expected.pushToStartToken = nil
            expected.channelID = "Y2hhbm5lbA=="
            expected.source = "uber"
            expected.frequentUpdates = true
            expected.updatedAt = F.epoch + 5000
            #expect(try await store.activity("order-7") == expected)
        }
    }

    /// A dispatch pass claims registered activities with pending events, never the keys whose
    /// events wait for a registration (an order whose customer has no app), however many there
    /// are; a deleted activity's later events wait until it is registered again.
    @Test(arguments: StoreKind.allCases)
    func onlyRegisteredActivitiesWithPendingEventsAreClaimed(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            func claim() async throws -> [String] {
                let written = try await store.dispatchPass(limit: 100, now: F.epoch) {
                    DispatchCommit(
                        activityKey: $0.activity.activityKey, applied: $0.events.map(\.sequence), lifecycle: .active,
                        engineState: [],
                        nextDeadline: nil, now: F.epoch)
                }
                return written.map(\.activityKey).sorted()
            }
            func register(_ key: String) async throws {
                _ = try await store.registerActivity(
                    ActivityRegistration(
                        activityKey: key, targets: ActivityTargets(updateToken: "aa11"), source: "doordash"),
                    now: F.epoch)
            }
            _ = try await store.insertEvents((0..<50).map { F.event("waiting-\($0)", activityKey: "nobody-\($0)") })
            _ = try await store.insertEvents([F.event("a1", activityKey: "order-a")])
            try await register("order-a")
            #expect(try await claim() == ["order-a"], "the 50 unregistered keys are not claimed")
            #expect(try await claim() == [], "order-a's event was applied")

            #expect(try await store.deleteActivity("order-a"))
            _ = try await store.insertEvents([
                F.event("a2", activityKey: "order-a"), F.event("b1", activityKey: "order-b"),
            ])
            #expect(try await claim() == [])
            try await register("order-a")
            try await register("order-b")
            #expect(try await claim() == ["order-a", "order-b"])
            #expect(try await store.counts().pendingEvents == 50, "only the unregistered keys' events still wait")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pendingEventsAreCountedPerActivity(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            #expect(try await store.pendingEvents(for: "order-1") == 0)
            _ = try await store.insertEvents([
                F.event("1", activityKey: "order-1", order: 1), F.event("2", activityKey: "order-1", order: 2),
                F.event("3", activityKey: "order-2", order: 1),
            ])
            #expect(try await store.pendingEvents(for: "order-1") == 2)
            #expect(try await store.pendingEvents(for: "order-2") == 1)
            let claimed = try await store.claimNextEvents(limit: 1, instance: "i", lease: .seconds(30), now: F.epoch)
            let work = try #require(claimed.first { $0.activityKey == "order-1" } ?? claimed.first)
            #expect(try await store.markApplied([try #require(work.events.first).sequence], instance: "i") == 1)
            #expect(try await store.pendingEvents(for: work.activityKey) == work.events.count - 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func apiKeysAreHashedAndVerified(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await store.addAPIKey(name: "ops", key: "llk_secret_one", now: F.epoch)
            try await store.addAPIKey(name: "ci", key: "llk_secret_two", now: F.epoch)
            #expect(try await store.verifyAPIKey("llk_secret_one") == "ops")
            #expect(try await store.verifyAPIKey("llk_secret_two") == "ci")
            #expect(try await store.verifyAPIKey("llk_secret_on") == nil)
            #expect(try await store.verifyAPIKey("") == nil)
            // Replacing a key under the same name retires the old one.
            try await store.addAPIKey(name: "ops", key: "llk_secret_three", now: F.epoch)
            #expect(try await store.verifyAPIKey("llk_secret_one") == nil)
            #expect(try await store.verifyAPIKey("llk_secret_three") == "ops")
        }
    }
}
