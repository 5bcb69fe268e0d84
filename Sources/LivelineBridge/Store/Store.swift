import Foundation

/// The bridge's durable state, by role: the inbox of verified webhooks (``InboxStore``), the
/// dispatcher's passes (``DispatchStore``), the outbox and its dead letters (``OutboxStore``),
/// the activity registry and its API keys (``RegistryStore``), audiences (``FollowerStore``,
/// ``FanOutStore``), renewals (``RenewalStore``), the delivery history (``HistoryStore``),
/// recordings (``RecordingStore``) and what retention deletes (``RetentionStore``). Each part of
/// the bridge is given the role it uses; ``BridgeService`` and the operations endpoints hold the whole.
///
/// Every method is one transaction: when it returns, what it wrote is committed. Commits wait
/// for the disk (on SQLite with `synchronous=FULL`, on PostgreSQL with its default synchronous
/// commit), except the prune batches of ``RetentionStore``, which a power loss may undo and the
/// next round deletes again (`CommitDurability.processCrash`). Times are given, never read, so
/// tests and the dispatcher's virtual clock decide what "now" is; they are stored in whole
/// milliseconds.
///
/// Implementations are `Sendable` and own their own concurrency: callers may call from any
/// task at once. Several bridge instances may share one PostgreSQL store. A dispatch pass holds
/// its activities by the locks of its one transaction; claims that outlive a transaction (a
/// replay's activity, due pushes while they are sent) are leased to an `instance` name, so that
/// no two instances work on the same activity or push at once, and a lease that expires (its
/// instance died) is taken over.
public protocol Store: InboxStore, DispatchStore, OutboxStore, RegistryStore, RecordingStore, RetentionStore,
    FollowerStore, FanOutStore, HistoryStore, RenewalStore
{
    /// Depths for metrics and `/readyz`.
    func counts() async throws -> StoreCounts
    /// Closes connections; the store is unusable afterwards. Call it before the last reference
    /// goes (sqlite-nio traps on an unclosed connection in debug builds).
    func close() async throws
}
