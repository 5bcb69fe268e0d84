/// What a transaction's commit must survive before it returns.
///
/// Everything the bridge acknowledges (a webhook answered 2xx, a push recorded as sent) waits
/// for the disk, so a power loss cannot undo it. Work that is simply done again if undone, like
/// deleting rows past their retention, need not: its commit returns once the database has it,
/// and the next durable commit takes it to the disk with its own. On SQLite that saves the
/// log's fsync (about 0.2 ms, most of a small prune batch's time); on PostgreSQL the wait for
/// the WAL flush.
enum CommitDurability: Sendable, Hashable {
    /// Survives power loss: the commit waits for the disk.
    case powerLoss
    /// Survives a crash of the process, not of the machine: a power loss may undo it, never
    /// half of it.
    case processCrash
}
