import Liveline

/// A push that failed its last attempt. Replay resends the activity's current state, so the
/// payload here is kept for inspection, not to be sent again as is.
public struct DeadLetter: Sendable, Hashable {
    /// The dead letter's id, for replay and deletion.
    public var id: Int64
    /// The push as it was last tried.
    public var push: OutboxPush
    /// Attempts made in all.
    public var attempts: Int
    /// The last attempt's failure: APNs's status and reason, or the transport error.
    public var lastError: String
    /// When the last attempt failed.
    public var failedAt: Millis
}
