import Liveline

/// A key's audience as the registry API, the operator's import and the dashboard see it:
/// followers added, changed, removed and counted, and the key's fan-outs as they progress.
public protocol FollowerStore: Sendable {
    /// Adds or changes followers of `activityKey` in one transaction. A follower that joins (or
    /// gains a token) after the key's story began is marked to catch up: one push of the current
    /// state at once. Returns one change per follower, in order.
    func putFollowers(_ followers: [Follower], activityKey: String, now: Millis) async throws -> [FollowerChange]

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

    /// Up to `limit` keys with an audience: those with a fan-out under way first, then by their
    /// newest fan-out, then keys with followers and no fan-out yet, by key. Reads the fan-outs
    /// (a few rows per key) and one index entry per key (a skip over the followers' index), not
    /// every follower.
    func audienceKeys(limit: Int) async throws -> [String]

    /// The newest `limit` fan-outs of a key, newest first (the store keeps the newest of each
    /// kind and those still running).
    func fanOuts(activityKey: String, limit: Int) async throws -> [FanOutStatus]

    /// One follower of the key, the oldest with an update token, else with a push-to-start token:
    /// the device a dashboard draws as the audience's sample.
    func sampleFollower(activityKey: String) async throws -> Follower?

    /// The key's oldest Android follower (an FCM token): the phone a dashboard draws beside the
    /// sample's Lock Screen.
    func sampleAndroidFollower(activityKey: String) async throws -> Follower?
}
