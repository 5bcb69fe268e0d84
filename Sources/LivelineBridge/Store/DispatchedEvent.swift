import Liveline

/// An event a dispatch step took up, as a recording reads it back: the stored event, when its
/// step ran, and whether it was applied or superseded (with why).
public struct DispatchedEvent: Sendable, Hashable {
    /// The event as the inbox stored it.
    public var stored: StoredEvent
    /// The step's time; events with the same time were applied in the same step.
    public var dispatchedAt: Millis
    /// nil when applied; else why it was superseded.
    public var supersededReason: String?

    /// A dispatched event with the parts given.
    public init(stored: StoredEvent, dispatchedAt: Millis, supersededReason: String? = nil) {
        self.stored = stored
        self.dispatchedAt = dispatchedAt
        self.supersededReason = supersededReason
    }

    /// The event itself: its source, id, type, key and body.
    public var event: InboxEvent { stored.event }
}
