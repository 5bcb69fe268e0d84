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
            // Each locks its first row, waits until the other holds its own, then asks for the other.
            func crossing(_ first: Int64, _ second: Int64) async throws {
                try await store.transaction { tx in
                    await runs.add()
                    try await tx.run("UPDATE cells SET value = value + 1 WHERE id = $1", [.int(first)])
                    try await tx.run("SELECT pg_sleep(0.3)")
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
}
