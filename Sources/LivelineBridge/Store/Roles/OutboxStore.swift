import Liveline

/// The outbox as ``OutboxSender`` and the dead-letter commands see it: due pushes claimed,
/// their answers recorded, and what could not be delivered.
public protocol OutboxStore: Sendable {
    /// See ``DispatchStore/taskExecutor``.
    var taskExecutor: (any TaskExecutor)? { get }

    /// Claims up to `limit` pushes due at `now` (or whose claim expired), earliest first: the
    /// oldest push of each activity whose target exists.
    func claimDuePushes(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> [ClaimedPush]

    /// Writes the outcomes of many sends in one transaction (one fsync for a whole pass of
    /// the sender); per outcome, nil for `.sent`, else what became of the push. A sent push
    /// leaves the outbox and becomes the activity's last push; a failed one is retried at its
    /// time or, after its last attempt, becomes a dead letter; an undeliverable one becomes a
    /// dead letter at once and may forget the token it went to.
    func writePushOutcomes(_ outcomes: [PushOutcome]) async throws -> [PushFailureOutcome?]

    /// Dead letters, oldest first.
    func deadLetters(limit: Int) async throws -> [DeadLetter]

    /// Gives back every claim `instance` holds, on pushes and on activities, so that another
    /// instance takes them at once instead of after their lease: what a stopping instance
    /// could not finish. Returns how many of each it gave back.
    func releaseClaims(instance: String) async throws -> ReleasedClaims
}
