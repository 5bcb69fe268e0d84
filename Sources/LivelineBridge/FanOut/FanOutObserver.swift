import Liveline

/// What ``FanOutSender`` reports as it works: the metrics listen. Called from the sending
/// task; keep it quick.
public protocol FanOutObserver: Sendable {
    /// `count` pushes of `activityKey`'s fan-outs were answered (any answer).
    func fanOutPushes(activityKey: String, count: Int)
    /// A fan-out reached its last follower: seconds from its webhook's receipt to then.
    func fanOutFinished(lagSeconds: Double)
    /// A range was sent again after its instance died (its devices may see duplicates).
    func fanOutResumed(duplicates: Int)
    /// Followers removed because their token was gone.
    func followersPruned(_ count: Int)
    /// Followers on `platform` answered: how many were sent the push, and each failure's reason
    /// (APNs' or FCM's), one entry per follower.
    func fanOutAnswered(platform: Platform, sent: Int, failures: [String])
}

extension FanOutObserver {
    /// Nothing, for an observer that does not count by platform.
    public func fanOutAnswered(platform: Platform, sent: Int, failures: [String]) {}
}

/// Reports nowhere.
public struct SilentFanOutObserver: FanOutObserver {
    /// An observer that reports nothing.
    public init() {}
    public func fanOutPushes(activityKey: String, count: Int) {}
    public func fanOutFinished(lagSeconds: Double) {}
    public func fanOutResumed(duplicates: Int) {}
    public func followersPruned(_ count: Int) {}
}
