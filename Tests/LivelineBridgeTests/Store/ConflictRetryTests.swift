import Foundation
import Testing
@testable import LivelineBridge

/// PostgreSQL aborts one of two transactions that wait on each other (a deadlock, 40P01); the
/// store runs the aborted one again instead of failing the call, so an answered push is still
/// recorded. Provoked for real: two transactions lock two rows in opposite orders.
@Suite struct ConflictRetryTests {
    @Test func aDeadlockedTransactionRunsAgainAndBothComplete() async throws {
        try await StoreFixture.withStore(.postgres) { store in
            try await store.transaction { tx in
                try await tx.run("CREATE TABLE cells (id BIGINT PRIMARY KEY, value BIGINT NOT NULL)")
                try await tx.run("INSERT INTO cells (id, value) VALUES (1, 0), (2, 0)")
            }
            let runs = RunCounter()
            let bothHoldOne = Rendezvous(parties: 2)
            // Each locks its first row, waits until the other holds its own, then asks for the
            // other. A rendezvous, not a sleep: on a busy machine one transaction could otherwise
            // finish before the other began, and nothing would deadlock.
            func crossing(_ first: Int64, _ second: Int64) async throws {
                try await store.transaction { tx in
                    await runs.add()
                    try await tx.run("UPDATE cells SET value = value + 1 WHERE id = $1", [.int(first)])
                    await bothHoldOne.arrive()
                    try await tx.run("UPDATE cells SET value = value + 1 WHERE id = $1", [.int(second)])
                }
            }
            async let one: Void = crossing(1, 2)
            async let two: Void = crossing(2, 1)
            _ = try await (one, two)

            let values = try await store.transaction { tx in
                try await tx.run("SELECT value FROM cells ORDER BY id").map { try $0.int(0) }
            }
            #expect(values == [2, 2], "each transaction's two updates counted once")
            #expect(await runs.count == 3, "one of the two was aborted by the server and ran again")
        }
    }

    actor RunCounter {
        var count = 0
        func add() { count += 1 }
    }

    /// Holds each caller until `parties` have arrived; later arrivals (the aborted transaction's
    /// second run) go on at once.
    actor Rendezvous {
        let parties: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(parties: Int) { self.parties = parties }

        func arrive() async {
            arrived += 1
            if arrived >= parties {
                waiting.forEach { $0.resume() }
                waiting = []
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}
