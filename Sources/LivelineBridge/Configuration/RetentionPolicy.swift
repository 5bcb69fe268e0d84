import Foundation

/// How long the store keeps what it no longer needs to work (the `retention` section), so it
/// stops growing at a steady rate. A ``StorePruner`` deletes older rows in short batches.
///
/// - `events`: inbox events that a dispatch step applied or superseded, by when they were
///   received; `liveline bridge record` reads them, and a webhook sent again after this long
///   is no longer recognised as a repeat. Events still pending are never deleted. Finished
///   fan-outs go by the same cutoff, except the newest of a key whose story goes on (the push a
///   follower joining late is sent), and so does the delivery history (`GET
///   /v1/activities/{key}/pushes`), by when each push was stored.
/// - `dead-letters`: pushes that failed for good, by when they failed (a replayed dead letter
///   leaves at its replay), with the fan-outs' failure summaries as old.
///
/// Sent pushes need no retention: they leave the outbox when APNs' answer is recorded (the
/// answer stays on the activity as its last push).
public struct RetentionPolicy: Sendable, Hashable {
    /// nil keeps them for good.
    public var events: Duration?
    /// Whether the delivery history is written at all (`history: off` keeps no record of sent
    /// pushes, nor their content-state, once answered); it is kept as long as ``events``.
    public var keepsHistory = true
    /// How long dead letters (and the fan-outs' failure summaries) are kept; nil keeps them for good.
    public var deadLetters: Duration?
    /// The most rows one transaction deletes.
    public var batch: Int
    /// How long one batch may hold the store's writer: the pruner sizes its batches to take
    /// about this long (`PruneBatchSizer`), so a webhook that arrives during a batch waits at
    /// most that. A delete's cost is mostly the index pages it touches, which depends on the
    /// store, the disk and the machine's load, so a fixed row count could not promise a time.
    public var batchTime: Duration
    /// The least pause between two batches, for the writers to run.
    public var pause: Duration
    /// At most this share of a round's time is spent deleting: after a batch that took `t`,
    /// the pause is at least `t × (1 − share) / share`.
    public var share: Double
    /// How often a round of pruning starts.
    public var interval: Duration

    /// A policy with the parts given.
    public init(
        events: Duration? = RetentionPolicy.standard.events,
        deadLetters: Duration? = RetentionPolicy.standard.deadLetters,
        batch: Int = 500, batchTime: Duration = .microseconds(500), pause: Duration = .milliseconds(20),
        share: Double = 0.25,
        interval: Duration = .seconds(60)
    ) {
        self.events = events
        self.deadLetters = deadLetters
        self.batch = max(1, batch)
        self.batchTime = batchTime
        self.pause = pause
        self.share = min(1, max(0.01, share))
        self.interval = interval
    }

    /// 7 days of events (past the 3 days the most patient senders retry for, so a late repeat
    /// is still recognised), 30 days of dead letters (time to look at them and replay).
    public static let standard = RetentionPolicy(events: .seconds(7 * 86_400), deadLetters: .seconds(30 * 86_400))

    /// Nothing is deleted.
    public static let keepEverything = RetentionPolicy(events: nil, deadLetters: nil)
}
