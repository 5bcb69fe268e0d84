/// One activity's pending events, leased to the instance that claimed them.
public struct ClaimedActivity: Sendable, Hashable {
    public var activityKey: String
    /// Oldest order key first; ties in arrival order.
    public var events: [StoredEvent]
}

/// An event as stored in the inbox, with the sequence number that marks it.
public struct StoredEvent: Sendable, Hashable {
    public var sequence: Int64
    public var event: InboxEvent
}
