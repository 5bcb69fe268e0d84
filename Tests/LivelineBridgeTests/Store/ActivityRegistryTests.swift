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
            var record = ActivityRecord(key: "order-9", pushToStartToken: "abcd", scenario: "delivery", frequentUpdates: true, updatedAt: F.epoch)
            try await store.upsertActivity(record)
            #expect(try await store.activity("order-9") == record)

            record.updateToken = "80f7"
            record.lifecycle = .active
            record.engineState = [0, 1, 2, 255]
            record.nextDeadline = F.epoch.addingTimeInterval(30)
            record.lastPush = PushAnswer(at: F.epoch.addingTimeInterval(1), status: 410, reason: "Unregistered", apnsID: "X")
            record.lastError = "token unregistered"
            record.updatedAt = F.epoch.addingTimeInterval(2)
            try await store.upsertActivity(record)
            #expect(try await store.activity("order-9") == record)
            #expect(try await store.counts().activities == 1)

            #expect(try await store.deleteActivity("order-9"))
            #expect(try await !store.deleteActivity("order-9"))
            #expect(try await store.activity("order-9") == nil)
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
