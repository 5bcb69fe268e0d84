import Liveline

/// Where one stored event stands, for `GET /v1/events/{source}/{event}`: which activity it
/// maps to, and whether a dispatch step has applied it, superseded it (and why), or not taken
/// it up yet.
public struct InboxEventStatus: Sendable, Hashable {
    /// Where the event is in its life.
    public enum State: String, Sendable, Hashable {
        /// Stored, waiting for a dispatch step (or for its activity to be registered).
        case pending
        /// Applied to the story (or recorded only, for a type no rule names).
        case applied
        /// Kept, never applied; ``InboxEventStatus/reason`` says why.
        case superseded
    }

    /// The event's place in the inbox, in arrival order.
    public var sequence: Int64
    /// The source that sent it.
    public var source: String
    /// The sender's id of the event (or the body's SHA-256 standing in).
    public var eventID: String
    /// The event's type, as the source's mapping read it.
    public var eventType: String
    /// The activity it maps to.
    public var activityKey: String
    /// Pending, applied or superseded.
    public var state: State
    /// Why it was superseded.
    public var reason: String?
    /// When the bridge stored it.
    public var receivedAt: Millis
    /// When the step that applied or superseded it ran (nil while pending, and for events a
    /// store older than migration 2 marked).
    public var appliedAt: Millis?

    /// A status with the parts given.
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
