import Liveline

/// The delivery history as the operations API and `liveline bridge history` read it: what the
/// bridge sent for a key, why, and what APNs said, shared by every instance on the store. The
/// outbox, the fan-outs and the renewals write it themselves, in the transactions that record
/// their answers.
public protocol HistoryStore: Sendable {
    /// Up to `limit` entries of the key's history, newest first, older than the entry `before`
    /// (nil: from the newest). A fan-out's entry comes with its failure summaries.
    func pushHistory(activityKey: String, before: Int64?, limit: Int) async throws -> [PushRecord]

    /// The newest push that went (or is going) to one follower of `activityKey`, and its
    /// outcome for that device; nil when the device does not follow the key or was sent nothing.
    func followerLastPush(device: String, activityKey: String) async throws -> FollowerLastPush?

    /// Deletes up to `limit` history entries (and followers' answers) older than `cutoff`,
    /// oldest first, in one transaction: entries answered before it, never a fan-out under way.
    func prunePushHistory(before cutoff: Millis, limit: Int) async throws -> PruneBatch
}
