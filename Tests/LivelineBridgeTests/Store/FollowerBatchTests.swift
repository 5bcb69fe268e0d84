import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// A batch of followers stored in one call: on PostgreSQL as array parameters (`unnest`), on
/// SQLite in chunks of placeholders; both must store and answer the same.
@Suite struct FollowerBatchTests {
    typealias F = StoreFixture

    static func token(_ seed: String) -> String {
        String(repeating: String(format: "%02x", seed.utf8.reduce(0) { ($0 &+ $1) & 0xFF }), count: 32)
    }

    @Test(arguments: StoreKind.allCases)
    func aBatchWithMissingTokensEnvironmentsAndRepeatsIsStoredAsSentOneByOne(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await InboxTests.register(["K-1"], in: store)
            // More than one chunk of 256, with every kind of column: no start token, no update
            // token, on the channel, an environment or none, and a device repeated (the last wins).
            var batch = (0..<600).map { index in
                Follower(
                    device: "d-\(index)", updateToken: index % 5 == 0 ? nil : Self.token("u\(index)"),
                    startToken: index % 3 == 0 ? Self.token("s\(index)") : nil, onChannel: index % 7 == 0,
                    environment: index % 4 == 0 ? .sandbox : index % 4 == 1 ? .production : nil)
            }
            batch.append(Follower(device: "d-10", updateToken: Self.token("again"), environment: .production))
            let changes = try await store.putFollowers(batch, activityKey: "K-1", now: F.epoch)
            #expect(changes.count == 601)
            #expect(changes.prefix(600).allSatisfy { $0 == .created })
            #expect(try await store.follower(device: "d-10", activityKey: "K-1") == batch[600])
            for index in [0, 1, 2, 3, 255, 256, 257, 511, 599] {
                #expect(try await store.follower(device: "d-\(index)", activityKey: "K-1") == batch[index])
            }
            let counts = try await store.followerCounts(activityKey: "K-1")
            #expect(counts.updating + counts.awaitingStart + counts.onChannel == 600)

            // Again: unchanged, but for the ones that change.
            var next = Array(batch[0..<600])
            next[10] = batch[600]
            next[20].updateToken = Self.token("new")
            next[21].environment = .sandbox
            let again = try await store.putFollowers(next, activityKey: "K-1", now: F.epoch + 1)
            #expect(again.enumerated().filter { $0.element != .unchanged }.map(\.offset) == [20, 21])
            #expect(again[20] == .updated)
            #expect(try await store.follower(device: "d-20", activityKey: "K-1") == next[20])
            #expect(try await store.follower(device: "d-21", activityKey: "K-1") == next[21])
        }
    }

    /// A batch of devices already stored (changed or not) and new ones: on PostgreSQL, with the
    /// key's row held, the new ones are plain inserts and the changed ones an upsert; a follower
    /// stored exactly so is not written at all. Without the key's row (a key not registered, or
    /// deleted meanwhile) every write stays an upsert. Both answer and store the same.
    @Test(arguments: StoreKind.allCases)
    func knownAndNewDevicesInOneBatchAreStoredOnceEach(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await InboxTests.register(["K-1"], in: store)
            for key in ["K-1", "unregistered"] {
                let first = (0..<100).map { Follower(device: "d-\($0)", updateToken: Self.token("u\($0)")) }
                #expect(
                    try await store.putFollowers(first, activityKey: key, now: F.epoch).allSatisfy { $0 == .created })
                var batch = Array(first[0..<75])
                for index in 50..<75 { batch[index].updateToken = Self.token("changed-\(index)") }
                batch += (100..<150).map { Follower(device: "d-\($0)", startToken: Self.token("s\($0)")) }
                // A new device twice: the last entry wins, and both are new to the store.
                batch.append(Follower(device: "d-149", updateToken: Self.token("last")))
                let changes = try await store.putFollowers(batch, activityKey: key, now: F.epoch + 1)
                #expect(changes.count == 126, "\(key)")
                #expect(changes[0..<50].allSatisfy { $0 == .unchanged }, "\(key)")
                #expect(changes[50..<75].allSatisfy { $0 == .updated }, "\(key)")
                #expect(changes[75...].allSatisfy { $0 == .created }, "\(key)")
                for index in [0, 49, 50, 74, 75, 99, 100, 148] {
                    let expected = index < 75 ? batch[index] : index < 100 ? first[index] : batch[index - 25]
                    #expect(
                        try await store.follower(device: "d-\(index)", activityKey: key) == expected,
                        "\(key) d-\(index)")
                }
                #expect(try await store.follower(device: "d-149", activityKey: key) == batch.last)
                let counts = try await store.followerCounts(activityKey: key)
                #expect(counts.updating == 101, "\(key)")
                #expect(counts.awaitingStart == 49, "\(key)")
                // The same followers again: nothing to write, nothing changed.
                let again = try await store.putFollowers(Array(batch.dropLast(2)), activityKey: key, now: F.epoch + 2)
                #expect(again.allSatisfy { $0 == .unchanged }, "\(key)")
                #expect(try await store.followerCounts(activityKey: key) == counts)
            }
        }
    }
}
