import Foundation
import Liveline
import Logging

/// Deletes what the ``RetentionPolicy`` no longer keeps, in the background, so the store stays
/// the same size at a steady rate: every `interval`, for each table, one short transaction
/// after another until a batch finds fewer rows than it could take. Batches are sized to take
/// about the policy's `batchTime` (`PruneBatchSizer`), and each is followed by a pause at
/// least three times as long (by default), so the writers have the store most of the round.
///
/// The pruner never runs two batches at once, so webhooks and dispatch passes wait at most one
/// short batch for the store's writer (SQLite has one); on PostgreSQL the deleted rows are ones
/// no writer touches any more.
public final class StorePruner: Sendable {
    /// What one round deleted.
    public struct Report: Sendable, Hashable {
        /// Events deleted from the inbox.
        public var events = 0
        /// Dead letters deleted.
        public var deadLetters = 0
        /// Finished fan-outs deleted.
        public var fanOuts = 0
        /// Delivery history entries and followers' own answers deleted.
        public var history = 0
        /// Transactions the round took.
        public var batches = 0
    }

    /// How long each kind of row is kept, and how the pruning is paced.
    public let policy: RetentionPolicy
    private let store: any RetentionStore & HistoryStore
    private let sources: [String]
    private let metrics: BridgeMetrics?
    private let logger: Logger

    /// A pruner of `store` by `policy`; ``run()`` starts its rounds.
    ///
    /// - Parameters:
    ///   - store: the store to prune.
    ///   - policy: how long each kind of row is kept, and how the pruning is paced.
    ///   - sources: whose events to prune (the configured sources).
    ///   - metrics: where the rows deleted are counted; nil counts nowhere.
    ///   - logger: where each round's deletions and failures are logged.
    public init(
        store: any RetentionStore & HistoryStore, policy: RetentionPolicy, sources: [String],
        metrics: BridgeMetrics? = nil, logger: Logger
    ) {
        self.store = store
        self.policy = policy
        self.sources = sources
        self.metrics = metrics
        self.logger = logger
    }

    /// Prunes every `interval` until the task is cancelled; a store error is logged and the
    /// round tried again at the next interval.
    public func run() async {
        guard policy.events != nil || policy.deadLetters != nil else { return }
        while !Task.isCancelled {
            do {
                let report = try await prune(now: BridgeClock.now())
                if report.events + report.deadLetters + report.fanOuts + report.history > 0 {
                    logger.info(
                        "pruned the store",
                        metadata: [
                            "events": "\(report.events)", "dead-letters": "\(report.deadLetters)",
                            "fan-outs": "\(report.fanOuts)", "history": "\(report.history)",
                            "batches": "\(report.batches)",
                        ])
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("pruning the store failed; trying again later", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: policy.interval)
        }
    }

    /// One round at `now`: everything older than the policy keeps, batch by batch.
    @discardableResult
    public func prune(now: Millis) async throws -> Report {
        var report = Report()
        if let keep = policy.events {
            let cutoff = now - keep.millis
            for source in sources {
                let (rows, batches) = try await batches(table: "inbox_events") { size in
                    try await self.store.pruneEvents(source: source, receivedBefore: cutoff, limit: size)
                }
                report.events += rows
                report.batches += batches
            }
            // A fan-out's push is kept as long as the events: the newest of a key's live story
            // stays for the followers who join late.
            let (fanOuts, fanOutBatches) = try await batches(table: "fanouts") { size in
                try await self.store.pruneFanOuts(finishedBefore: cutoff, limit: size)
            }
            report.fanOuts = fanOuts
            report.batches += fanOutBatches
            // The delivery history is kept as long as the events that caused its pushes.
            let (history, historyBatches) = try await batches(table: "push_history") { size in
                try await self.store.prunePushHistory(before: cutoff, limit: size)
            }
            report.history = history
            report.batches += historyBatches
        }
        if let keep = policy.deadLetters {
            let cutoff = now - keep.millis
            let (rows, batches) = try await batches(table: "dead_letters") { size in
                try await self.store.pruneDeadLetters(failedBefore: cutoff, limit: size)
            }
            report.deadLetters = rows
            report.batches += batches
        }
        return report
    }

    /// Runs `batch` with the sizer's row count until it deletes fewer than it asked for,
    /// pausing between; the rows deleted and the batches run. Each batch is counted in the
    /// metrics as it commits, with the time it held the store, so a scrape during a round sees
    /// the round under way.
    private func batches(
        table: String, _ batch: @Sendable (Int) async throws -> PruneBatch
    ) async throws -> (rows: Int, batches: Int) {
        var rows = 0, batches = 0
        var sizer = PruneBatchSizer(policy: policy)
        while !Task.isCancelled {
            let size = sizer.size
            let done = try await batch(size)
            batches += 1
            rows += done.rows
            if done.rows > 0 { metrics?.pruned(table: table, rows: done.rows, took: done.held) }
            guard done.rows >= size else { break }
            let pause = sizer.pause(after: done.held)
            if pause > .zero { try await Task.sleep(for: pause) }
        }
        return (rows, batches)
    }
}
