import Foundation
import Testing
@testable import LivelineBridge

/// A stop cancels the dispatcher and the outbox sender in the middle of a transaction. The
/// transaction must roll back and leave the store usable: a SQLite connection left inside it
/// failed every later transaction ("cannot start a transaction within a transaction"), and a
/// stopping bridge could not even count what it left in the store.
@Suite struct CancellationTests {
    @Test(arguments: StoreKind.allCases)
    func aTransactionCancelledHalfwayRollsBackAndTheStoreGoesOn(_ kind: StoreKind) async throws {
        try await StoreFixture.withStore(kind) { store in
            try await store.transaction { tx in
                try await tx.run("CREATE TABLE marks (id BIGINT PRIMARY KEY)")
            }
            let inside = AsyncStream<Void>.makeStream()
            let cancelled = Task {
                try await store.transaction { tx in
                    try await tx.run("INSERT INTO marks (id) VALUES (1)")
                    inside.continuation.yield()
                    // Waits here until cancelled; the statement after it never runs.
                    try await Task.sleep(for: .seconds(60))
                    try await tx.run("INSERT INTO marks (id) VALUES (2)")
                }
            }
            var signals = inside.stream.makeAsyncIterator()
            _ = await signals.next()
            cancelled.cancel()
            await #expect(throws: (any Error).self) { try await cancelled.value }

            let marks = try await store.transaction { tx in
                try await tx.run("SELECT id FROM marks ORDER BY id").map { try $0.int(0) }
            }
            #expect(marks.isEmpty, "the cancelled transaction's first insert was rolled back")
            let counts = try await store.counts()
            #expect(counts.outbox == 0)
        }
    }
}
