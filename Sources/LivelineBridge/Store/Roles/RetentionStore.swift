import Liveline

/// What ``StorePruner`` deletes once the configured retention has passed, in small batches.
public protocol RetentionStore: Sendable {
    /// Deletes up to `limit` events of `source` that a dispatch step applied or superseded and
    /// that were received before `cutoff`, oldest first, in one transaction.
    /// Pending events are never deleted, nor the source's newest event (a stream resumes from it).
    func pruneEvents(source: String, receivedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch

    /// Deletes up to `limit` dead letters that failed before `cutoff`, oldest first, and the
    /// failure summaries of up to `limit` fan-outs as old, in one transaction.
    func pruneDeadLetters(failedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch

    /// Deletes up to `limit` finished fan-outs (their payloads) that finished before `cutoff`
    /// and no catch-up can need: one a newer fan-out of its key and kind replaced (the newest is
    /// what a follower joining late is sent), or any of a key whose story has ended or whose
    /// followers are all gone. Oldest first, in one transaction.
    func pruneFanOuts(finishedBefore cutoff: Millis, limit: Int) async throws -> PruneBatch
}
