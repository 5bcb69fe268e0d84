import Foundation
import Liveline

/// Deleting what the retention policy no longer keeps, a small batch per transaction: each
/// batch finds its rows by an index range (events by source and time of receipt) and deletes
/// them by key, so it holds the writer for milliseconds however large the store is. On SQLite
/// the freed pages are reused by new rows, so the file stops growing. A batch's commit does
/// not wait for the disk (`CommitDurability.processCrash`): a deletion a power loss undoes is
/// made again by the next round, and the webhooks' commits wait less behind the batches.
extension SQLStore {
    public func pruneEvents(source: String, receivedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch {
        try await pruneBatch { tx in
            try await tx.run(
                """
                DELETE FROM inbox_events WHERE sequence IN (
                    SELECT sequence FROM inbox_events
                    WHERE source = $1 AND received_at < $2 AND state <> 'pending'
                      AND sequence <> (SELECT n.sequence FROM inbox_events n WHERE n.source = $1
                                       ORDER BY n.received_at DESC, n.sequence DESC LIMIT 1)
                    ORDER BY received_at, sequence LIMIT \(SQLDialect.limit(limit))
                ) RETURNING sequence
                """,
                [.text(source), .int(cutoff)]
            ).count
        }
    }

    public func pruneDeadLetters(failedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch {
        try await pruneBatch { tx in
            let letters = try await tx.run(
                """
                DELETE FROM dead_letters WHERE id IN (
                    SELECT id FROM dead_letters WHERE failed_at < $1 ORDER BY id LIMIT \(SQLDialect.limit(limit))
                ) RETURNING id
                """,
                [.int(cutoff)]
            ).count
            // A fan-out's failure summary is its dead letter: kept as long.
            let summaries = try await tx.run(
                """
                DELETE FROM fanout_failures WHERE failed_at < $1 AND fanout_id IN (
                    SELECT fanout_id FROM fanout_failures WHERE failed_at < $1 ORDER BY fanout_id LIMIT \(SQLDialect.limit(limit))
                ) RETURNING fanout_id
                """,
                [.int(cutoff)]
            ).count
            return letters + summaries
        }
    }

    public func pruneFanOuts(finishedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch {
        try await pruneBatch { tx in
            try await tx.run(
                """
                DELETE FROM fanouts WHERE id IN (
                    SELECT f.id FROM fanouts f
                    WHERE f.state <> 'running' AND f.finished_at < $1
                      AND NOT EXISTS (SELECT 1 FROM fanout_claims c WHERE c.fanout_id = f.id)
                      AND (EXISTS (SELECT 1 FROM fanouts n WHERE n.activity_key = f.activity_key AND n.id > f.id
                                     AND (n.kind = 'start') = (f.kind = 'start'))
                           OR (SELECT l.kind FROM fanouts l WHERE l.activity_key = f.activity_key ORDER BY l.id DESC LIMIT 1) = 'end'
                           OR NOT EXISTS (SELECT 1 FROM followers fo WHERE fo.activity_key = f.activity_key))
                    ORDER BY f.id LIMIT \(SQLDialect.limit(limit))
                ) RETURNING id
                """,
                [.int(cutoff)]
            ).count
        }
    }

    /// One batch: `body`'s deletions in a transaction that waits for no disk, timed from its
    /// first statement to its last.
    private func pruneBatch(
        _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> Int
    ) async throws -> PruneBatch {
        try await transaction(durability: .processCrash) { tx in
            let clock = ContinuousClock()
            let started = clock.now
            let rows = try await body(tx)
            return PruneBatch(rows: rows, held: started.duration(to: clock.now))
        }
    }
}
