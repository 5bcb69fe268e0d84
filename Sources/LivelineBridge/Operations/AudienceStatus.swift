import Foundation

/// One key's audience as a watcher (the dashboard) shows it: followers by state, one of them as
/// a sample, and the newest fan-out with its progress, rate and lag. Counts only.
public struct AudienceStatus: Sendable, Hashable {
    /// The key the audience follows.
    public var activityKey: String
    /// How its followers stand: updating, awaiting a start, on the channel, retrying.
    public var followers: FollowerCounts
    /// Followers the key's recent fan-outs found gone (410, `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`), by their failure summaries.
    public var removed: Int
    /// The device a dashboard draws for the whole audience.
    public var sample: Follower?
    /// The Android phone a dashboard draws beside it; nil when no follower is one.
    public var androidSample: Follower?
    /// The newest fan-out of the key, with its progress; nil before the first.
    public var fanOut: FanOutStatus?
    /// The newest fan-out's content-state as compact JSON, shortened.
    public var contentState: String?
    /// Followers the newest fan-out goes to (update tokens not on the channel; push-to-start
    /// tokens for a start), as last counted; never below those already answered.
    public var audience: Int
    /// The newest fan-out's failed pushes by APNs reason.
    public var failures: [String: Int]
    /// Pushes answered per second: between the last two reads while the fan-out runs, on
    /// average once it has finished; nil when not measured yet.
    public var pushesPerSecond: Double?
    /// Seconds from the newest fan-out's webhook stored to its last range answered (to now
    /// while it runs); nil for a push no webhook caused (a heartbeat, a push the story's
    /// min-interval held back).
    public var lagSeconds: Double?
}
