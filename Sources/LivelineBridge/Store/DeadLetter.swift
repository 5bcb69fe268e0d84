import Liveline

/// A push that failed its last attempt. Replay resends the activity's current state, so the
/// payload here is kept for inspection, not to be sent again as is.
public struct DeadLetter: Sendable, Hashable {
    public var id: Int64
    public var push: OutboxPush
    public var attempts: Int
    public var lastError: String
    public var failedAt: Millis
}
