import Foundation

/// How long the store keeps what it no longer needs to work (the `retention` section), so it
/// stops growing at a steady rate. A ``StorePruner`` deletes older rows in small batches.
///
/// - `events`: inbox events that a dispatch step applied or superseded, by when they were
///   received; `liveline bridge record` reads them, and a webhook sent again after this long
///   is no longer recognised as a repeat. Events still pending are never deleted.
/// - `dead-letters`: pushes that failed for good, by when they failed (a replayed dead letter
///   leaves at its replay).
///
/// Sent pushes need no retention: they leave the outbox when APNs' answer is recorded (the
/// answer stays on the activity as its last push).
public struct RetentionPolicy: Sendable, Hashable {
    /// nil keeps them for good.
    public var events: Duration?
    public var deadLetters: Duration?
    /// Rows deleted per transaction: small, so the writer (the webhooks' inbox, the dispatcher)
    /// never waits long behind a prune.
    public var batch: Int
    /// The pause between two batches, for the writer to run.
    public var pause: Duration
    /// How often a round of pruning starts.
    public var interval: Duration

    public init(
        events: Duration? = RetentionPolicy.standard.events, deadLetters: Duration? = RetentionPolicy.standard.deadLetters,
        batch: Int = 500, pause: Duration = .milliseconds(50), interval: Duration = .seconds(60)
    ) {
        self.events = events
        self.deadLetters = deadLetters
        self.batch = max(1, batch)
        self.pause = pause
        self.interval = interval
    }

    /// 7 days of events (past the 3 days the most patient senders retry for, so a late repeat
    /// is still recognised), 30 days of dead letters (time to look at them and replay).
    public static let standard = RetentionPolicy(events: .seconds(7 * 86_400), deadLetters: .seconds(30 * 86_400), batch: 500)

    /// Nothing is deleted.
    public static let keepEverything = RetentionPolicy(events: nil, deadLetters: nil)
}
