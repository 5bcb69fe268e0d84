/// An event as stored in the inbox, with the sequence number that marks it.
public struct StoredEvent: Sendable, Hashable {
    /// The event's place in the inbox, in arrival order.
    public var sequence: Int64
    /// The event.
    public var event: InboxEvent
}
