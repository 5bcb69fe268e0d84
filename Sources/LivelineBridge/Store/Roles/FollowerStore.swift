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
