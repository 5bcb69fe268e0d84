import Foundation
import Liveline

/// One fan-out as a watcher sees it: which push, how far it got, and when.
public struct FanOutStatus: Sendable, Hashable {
    /// Where a fan-out is in its life.
    public enum State: String, Sendable {
        /// Ranges are still handed out or answered.
        case running
        /// Every follower it covered has answered.
        case done
        /// A newer push of its key and kind took over the followers not reached yet.
        case superseded
    }

    /// The fan-out's id in the store.
    public var id: Int64
    /// The key whose followers it goes to.
    public var activityKey: String
    /// Whether its push starts, updates or ends the followers' activities.
    public var kind: PushEvent
    /// Running, done or superseded.
    public var state: State
    /// The push's payload (its `aps`, with the content-state).
    public var payload: [UInt8]
    /// Followers answered: sent, and failed (any failure, retries included).
    public var sent: Int
    /// Followers whose push failed.
    public var failed: Int
    /// When its webhook was stored (nil for a push the engine decided alone, a heartbeat), when
    /// it was decided, and when its last follower answered or a newer one superseded it.
    public var receivedAt: Millis?
    /// When the dispatcher decided its push.
    public var createdAt: Millis
    /// When its last follower answered or a newer push superseded it; nil while it runs.
    public var finishedAt: Millis?

    /// Followers that have answered, sent or failed.
    public var answered: Int { sent + failed }
}
