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
}
