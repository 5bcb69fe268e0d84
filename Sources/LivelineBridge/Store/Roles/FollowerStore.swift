import Foundation

/// A key's audience as the registry API and the operator's import see it: followers added,
/// changed, removed and counted.
public protocol FollowerStore: Sendable {
    /// Adds or changes followers of `activityKey` in one transaction. A follower that joins (or
    /// gains a token) after the key's story began is marked to catch up: one push of the current
    /// state at once. Returns one change per follower, in order.
    func putFollowers(_ followers: [Follower], activityKey: String, now: Date) async throws -> [FollowerChange]

    /// One follower of `activityKey`, if it follows it.
    func follower(device: String, activityKey: String) async throws -> Follower?

    /// Removes a follower; whether it existed.
    func deleteFollower(device: String, activityKey: String) async throws -> Bool

    /// The key's followers by state.
    func followerCounts(activityKey: String) async throws -> FollowerCounts

    /// Every key's followers by state, summed, for the metrics.
    func allFollowerCounts() async throws -> FollowerCounts

    /// The newest failure summaries of a key's fan-outs, newest first.
    func fanOutFailures(activityKey: String, limit: Int) async throws -> [FanOutFailureSummary]
}

/// A key's fan-outs as ``FanOutSender`` sees them: ranges of followers claimed, sent and recorded.
public protocol FanOutStore: Sendable {
    /// See ``DispatchStore/taskExecutor``.
    var taskExecutor: (any TaskExecutor)? { get }

    /// Claims the next range of up to `limit` followers of a running fan-out (keyset by
    /// follower id), or a range whose claim expired (its instance died). A fan-out is only
    /// claimed once no older fan-out of its key and kind has a range in flight, so a device
    /// never gets an older push after a newer one. Nil when there is nothing to send.
    func claimFanOutRange(limit: Int, instance: String, lease: Duration, now: Date) async throws -> FanOutRange?

    /// Records a range's answers in one transaction and gives the range back as done.
    func recordFanOut(_ range: FanOutRange, answers: [FollowerAnswer], instance: String, now: Date) async throws -> FanOutProgress

    /// Claims up to `limit` followers whose exception is due, each with the newest push of its
    /// key and kind.
    func claimCatchUps(limit: Int, instance: String, lease: Duration, now: Date) async throws -> [FollowerCatchUp]

    /// Records catch-up answers in one transaction. A follower sent a push older than its key's
    /// newest is due again at once (with the newest).
    func recordCatchUps(_ answers: [(catchUp: FollowerCatchUp, outcome: FollowerOutcome)], now: Date) async throws -> FanOutProgress
}
