import Foundation
import Liveline

/// One fan-out as a watcher sees it: which push, how far it got, and when.
public struct FanOutStatus: Sendable, Hashable {
    public enum State: String, Sendable {
        /// Ranges are still handed out or answered.
        case running
        /// Every follower it covered has answered.
        case done
        /// A newer push of its key and kind took over the followers not reached yet.
        case superseded
    }

    public var id: Int64
    public var activityKey: String
    public var kind: PushEvent
    public var state: State
    /// The push's payload (its `aps`, with the content-state).
    public var payload: [UInt8]
    /// Followers answered: sent, and failed (any failure, retries included).
    public var sent: Int
    public var failed: Int
    /// When its webhook was stored (nil for a push the engine decided alone, a heartbeat), when
    /// it was decided, and when its last follower answered or a newer one superseded it.
    public var receivedAt: Millis?
    public var createdAt: Millis
    public var finishedAt: Millis?

    public var answered: Int { sent + failed }
}
