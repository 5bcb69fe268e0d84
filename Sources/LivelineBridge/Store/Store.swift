import Foundation

/// The bridge's durable state: the inbox of verified webhooks, the activity registry, the
/// outbox of pushes with its dead letters, and the registry's API keys.
///
/// Every method is one transaction: when it returns, what it wrote is committed (on SQLite
/// with `synchronous=FULL`, on PostgreSQL with its default synchronous commit). Times are
/// given, never read, so tests and the dispatcher's virtual clock decide what "now" is;
/// they are stored in whole milliseconds.
///
/// Implementations are `Sendable` and own their own concurrency: callers may call from any
/// task at once. Several bridge instances may share one PostgreSQL store. A dispatch pass holds
/// its activities by the locks of its one transaction; claims that outlive a transaction (a
/// replay's activity, due pushes while they are sent) are leased to an `instance` name, so that
/// no two instances work on the same activity or push at once, and a lease that expires (its
/// instance died) is taken over.
public protocol Store: Sendable {
    /// The thread the store works on, when it has one of its own (SQLite): the bridge's loops
    /// that call the store all the time prefer it, so their calls need no thread hop each way.
    /// nil (PostgreSQL, over the network): they run on Swift's shared pool.
    var taskExecutor: (any TaskExecutor)? { get }

    // MARK: Inbox

    /// Stores events durably in one transaction, deduplicated on (source, eventID). The
    /// results are in the order of `events`; a repeat within the same call is a duplicate.
    func insertEvents(_ events: [InboxEvent]) async throws -> [InsertResult]

    /// Claims up to `limit` activities that have pending events and no live lease of another
    /// instance, leases them to `instance` until `now + lease`, and returns their pending
    /// events, oldest order key first (ties: arrival order).
    func claimNextEvents(limit: Int, instance: String, lease: Duration, now: Date) async throws -> [ClaimedActivity]

    /// Marks claimed events applied. Only events of activities that `instance` still leases
    /// change; returns how many did (fewer than asked: the lease was lost).
    func markApplied(_ sequences: [Int64], instance: String) async throws -> Int

    /// Marks claimed events superseded (kept, reported, never applied), with the reason.
    func markSuperseded(_ sequences: [Int64], reason: String, instance: String) async throws -> Int

    /// Gives back the leases `instance` holds on these activities.
    func releaseActivities(_ keys: [String], instance: String) async throws

    /// Where `source`'s events stand: the newest one stored, and the activities with events of
    /// it that have not ended (at most `activityLimit`, newest first). Nil when it has none.
    /// A stream source resumes from here after a restart.
    func sourcePosition(_ source: String, activityLimit: Int) async throws -> SourcePosition?

    // MARK: Recordings

    /// The activities with events of `source` received in `from..<to` (an open end when nil),
    /// by their first such event.
    func activityKeys(source: String, receivedFrom from: Date?, to: Date?) async throws -> [String]

    /// The events of `activityKey` that dispatch steps took up, applied or superseded, in the
    /// order the steps took them: by step, then order key, then arrival. Events still pending
    /// are left out, as are those a store older than migration 2 marked without a time.
    func dispatchedEvents(activityKey: String) async throws -> [DispatchedEvent]

    // MARK: Dispatch

    /// Claims up to `limit` registered activities that have work (pending events, or a
    /// deadline at or before `now`), a target their next push can go to, and no live lease of
    /// another instance; leases them to `instance` until `now + lease`.
    func claimActivities(limit: Int, instance: String, lease: Duration, now: Date) async throws -> [ActivityWork]

    /// Leases one activity to `instance` whether or not it has work (a dead letter's replay);
    /// nil when it is not registered or another instance holds it.
    func claimActivity(_ key: String, instance: String, lease: Duration, now: Date) async throws -> ActivityWork?

    /// Writes dispatch steps of several activities in one transaction (one fsync for a whole
    /// pass): each only if `instance` still holds that activity's lease. Returns, per commit,
    /// whether it was written; a step whose lease was lost to another instance writes nothing.
    func commitDispatch(_ commits: [DispatchCommit], instance: String) async throws -> [Bool]

    /// One dispatch pass in one transaction: claims up to `limit` activities as
    /// ``claimActivities(limit:instance:lease:now:)`` would, runs `step` on each, and writes
    /// what it returns. The transaction's locks hold the activities while `step` runs, so no
    /// lease is written and none can be lost; `step` must be quick and must not call the
    /// store. Returns the commits written, in claim order.
    func dispatchPass(limit: Int, now: Date, step: @escaping @Sendable (ActivityWork) -> DispatchCommit) async throws -> [DispatchCommit]

    /// How many events of this activity wait in the inbox (neither applied nor superseded).
    func pendingEvents(for activityKey: String) async throws -> Int

    // MARK: Activity registry

    /// Registers an activity or changes its targets and story, leaving its engine state alone.
    /// Returns whether it is new.
    func registerActivity(_ registration: ActivityRegistration, now: Date) async throws -> Bool

    /// Inserts or replaces the activity with `record.key`.
    func upsertActivity(_ record: ActivityRecord) async throws
    /// The activity with this key, if registered.
    func activity(_ key: String) async throws -> ActivityRecord?
    /// Deletes the activity; whether it existed.
    func deleteActivity(_ key: String) async throws -> Bool

    // MARK: Outbox and dead letters

    /// Adds a push to the outbox; returns its id.
    func enqueuePush(_ push: OutboxPush) async throws -> Int64
    /// Claims up to `limit` pushes due at `now` (or whose claim expired), earliest first.
    func claimDuePushes(limit: Int, instance: String, lease: Duration, now: Date) async throws -> [ClaimedPush]
    /// Removes a delivered push and records APNs' answer as the activity's last push.
    func markPushSent(_ id: Int64, answer: PushAnswer) async throws
    /// Counts a failed attempt: retried at `retryAt`, or moved to the dead letters once
    /// `maxAttempts` attempts have failed (keeping the push's last due time; failed at the
    /// answer's time, or `retryAt` when nothing answered). Records the error on the activity.
    func markPushFailed(_ id: Int64, answer: PushAnswer?, error: String, retryAt: Date, maxAttempts: Int) async throws -> PushFailureOutcome
    /// Counts a failed attempt that no retry can fix (the token is gone, the push is refused):
    /// moves the push to the dead letters at once and, with `forgetToken`, clears the token it
    /// went to, so nothing more is sent there until a new one is registered. Returns the dead
    /// letter's id, or nil when the push is no longer in the outbox.
    func markPushUndeliverable(_ id: Int64, answer: PushAnswer?, error: String, forgetToken: Bool, now: Date) async throws -> Int64?
    /// Records the outcomes of many sends in one transaction (one fsync for a whole pass of
    /// the sender); per outcome, nil for `.sent`, else what became of the push.
    func recordPushOutcomes(_ outcomes: [PushOutcome]) async throws -> [PushFailureOutcome?]
    /// Gives back every claim `instance` holds, on pushes and on activities, so that another
    /// instance takes them at once instead of after their lease: what a stopping instance
    /// could not finish. Returns how many of each it gave back.
    func releaseClaims(instance: String) async throws -> ReleasedClaims
    /// Dead letters, oldest first.
    func deadLetters(limit: Int) async throws -> [DeadLetter]
    /// Deletes a dead letter; whether it existed.
    func deleteDeadLetter(_ id: Int64) async throws -> Bool

    // MARK: API keys

    /// Stores the SHA-256 of `key` under `name` (replacing a key of that name). The key itself
    /// is never stored.
    func addAPIKey(name: String, key: String, now: Date) async throws
    /// The name of the stored key that `presented` hashes to, compared in constant time.
    func verifyAPIKey(_ presented: String) async throws -> String?

    // MARK: Housekeeping

    /// Deletes up to `limit` events of `source` that a dispatch step applied or superseded and
    /// that were received before `cutoff`, oldest first, in one transaction; returns how many.
    /// Pending events are never deleted, nor the source's newest event (a stream resumes from it).
    func pruneEvents(source: String, receivedBefore cutoff: Date, limit: Int) async throws -> Int
    /// Deletes up to `limit` dead letters that failed before `cutoff`, oldest first, in one
    /// transaction; returns how many.
    func pruneDeadLetters(failedBefore cutoff: Date, limit: Int) async throws -> Int

    /// Depths for metrics and `/readyz`.
    func counts() async throws -> StoreCounts
    /// Schema versions applied, ascending.
    func appliedMigrations() async throws -> [Int]
    /// Closes connections; the store is unusable afterwards. Call it before the last reference
    /// goes (sqlite-nio traps on an unclosed connection in debug builds).
    func close() async throws
}

extension Store {
    /// Writes one dispatch step (see ``commitDispatch(_:instance:)-([DispatchCommit],_)``).
    public func commitDispatch(_ commit: DispatchCommit, instance: String) async throws -> Bool {
        try await commitDispatch([commit], instance: instance).first ?? false
    }
}
