/// Group commit for the inbox: inserts from many concurrent requests share one transaction,
/// so durability costs one fsync per batch, not one per webhook.
///
/// The first event finds the writer idle and is written at once, alone: a webhook that comes
/// by itself waits for nothing but its own commit. While a batch commits, the events that
/// arrive gather, and the next batch (up to `maxBatch`) goes the moment the commit ends. So the
/// batches grow with the load, and under load each commit carries everything that came during
/// the one before it. Each caller awaits its own event's result (or the batch's error: nothing
/// of a failed batch was stored). The actor owns the pending batch; the store owns the
/// transaction.
public actor InboxWriter {
    private let store: any InboxStore
    private let maxBatch: Int
    private var pending: [(event: InboxEvent, reply: CheckedContinuation<InsertResult, any Error>)] = []
    private var writing = false
    /// Transactions written so far (one per batch), for metrics and tests.
    public private(set) var transactions = 0
    /// Events written so far, stored or duplicate.
    public private(set) var events = 0

    /// A writer into `store`'s inbox, committing at most `maxBatch` events a transaction.
    public init(store: any InboxStore, maxBatch: Int = 256) {
        self.store = store
        self.maxBatch = max(maxBatch, 1)
    }

    /// Stores `event` durably with whatever else arrives meanwhile; returns once it is committed.
    public func insert(_ event: InboxEvent) async throws -> InsertResult {
        try await withCheckedThrowingContinuation { reply in
            pending.append((event, reply))
            startWriting()
        }
    }

    /// Writes the pending batch unless a write is under way (its end picks the batch up).
    private func startWriting() {
        guard !writing, !pending.isEmpty else { return }
        writing = true
        let batch = Array(pending.prefix(maxBatch))
        pending.removeFirst(batch.count)
        Task { await self.write(batch) }
    }

    private func write(_ batch: [(event: InboxEvent, reply: CheckedContinuation<InsertResult, any Error>)]) async {
        do {
            let results = try await store.insertEvents(batch.map(\.event))
            transactions += 1
            events += batch.count
            for (item, result) in zip(batch, results) { item.reply.resume(returning: result) }
            if results.count < batch.count {
                let error = StoreError(
                    .query, store: "inbox", cause: "\(results.count) results for \(batch.count) events")
                for item in batch.dropFirst(results.count) { item.reply.resume(throwing: error) }
            }
        } catch {
            for item in batch { item.reply.resume(throwing: error) }
        }
        writing = false
        // What gathered during this commit goes at once: it has waited one commit already.
        startWriting()
    }
}
