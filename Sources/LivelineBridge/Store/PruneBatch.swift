/// What one prune batch did: the rows it deleted, and how long its statements held the store.
///
/// `held` leaves out the wait for the connection (a batch queued behind a webhooks' group
/// commit did not slow anyone down by waiting) and the commit, which waits for no disk
/// (`CommitDurability.processCrash`). It is what `PruneBatchSizer` sizes the next batch by,
/// so that a busy store makes the batches no smaller than their own cost asks for.
public struct PruneBatch: Sendable, Hashable {
    /// The rows the batch deleted.
    public var rows: Int
    /// How long its statements held the store.
    public var held: Duration

    /// A batch that deleted `rows` in `held`.
    public init(rows: Int, held: Duration) {
        self.rows = rows
        self.held = held
    }
}
