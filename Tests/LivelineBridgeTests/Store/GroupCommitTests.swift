import Foundation
import Testing
@testable import LivelineBridge

@Suite struct GroupCommitTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func aThousandConcurrentInsertsShareTransactions(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            let writer = InboxWriter(store: store)
            // 1,000 events, each sent twice by "the sender": every one stored once.
            let results = try await withThrowingTaskGroup(of: (Int, InsertResult).self) { group in
                for index in 0..<2000 {
                    group.addTask {
                        let id = index % 1000
                        return (
                            id,
                            try await writer.insert(
                                F.event("evt-\(id)", activityKey: "act-\(id % 50)", order: Int64(id)))
                        )
                    }
                }
                var all: [(Int, InsertResult)] = []
                for try await result in group { all.append(result) }
                return all
            }
            let stored = results.filter { $0.1 != .duplicate }
            #expect(stored.count == 1000)
            #expect(Set(stored.map(\.0)).count == 1000)
            #expect(try await store.counts().pendingEvents == 1000)
            let transactions = await writer.transactions
            #expect(await writer.events == 2000)
            #expect(transactions < 200, "expected batches, got \(transactions) transactions for 2,000 inserts")
        }
    }
}
