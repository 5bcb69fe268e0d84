import Liveline

/// An event a dispatch step took up, as a recording reads it back: the stored event, when its
/// step ran, and whether it was applied or superseded (with why).
public struct DispatchedEvent: Sendable, Hashable {
    public var stored: StoredEvent
    /// The step's time; events with the same time were applied in the same step.
    public var dispatchedAt: Millis
    /// nil when applied; else why it was superseded.
    public var supersededReason: String?

    public init(stored: StoredEvent, dispatchedAt: Millis, supersededReason: String? = nil) {
        self.stored = stored
        self.dispatchedAt = dispatchedAt
        self.supersededReason = supersededReason
    }

    public var event: InboxEvent { stored.event }
}
