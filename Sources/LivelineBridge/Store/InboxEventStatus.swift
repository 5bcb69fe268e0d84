import Liveline

/// Where one stored event stands, for `GET /v1/events/{source}/{event}`: which activity it
/// maps to, and whether a dispatch step has applied it, superseded it (and why), or not taken
/// it up yet.
public struct InboxEventStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Stored, waiting for a dispatch step (or for its activity to be registered).
        case pending
        /// Applied to the story (or recorded only, for a type no rule names).
        case applied
        /// Kept, never applied; ``InboxEventStatus/reason`` says why.
        case superseded
    }

    public var sequence: Int64
    public var source: String
    public var eventID: String
    public var eventType: String
    public var activityKey: String
    public var state: State
    /// Why it was superseded.
    public var reason: String?
    public var receivedAt: Millis
    /// When the step that applied or superseded it ran (nil while pending, and for events a
    /// store older than migration 2 marked).
    public var appliedAt: Millis?

    public init(
        sequence: Int64, source: String, eventID: String, eventType: String, activityKey: String, state: State,
        reason: String?, receivedAt: Millis, appliedAt: Millis?
    ) {
        self.sequence = sequence
        self.source = source
        self.eventID = eventID
        self.eventType = eventType
        self.activityKey = activityKey
        self.state = state
        self.reason = reason
        self.receivedAt = receivedAt
        self.appliedAt = appliedAt
    }
}
