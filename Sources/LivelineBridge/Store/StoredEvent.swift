/// An event as stored in the inbox, with the sequence number that marks it.
public struct StoredEvent: Sendable, Hashable {
    public var sequence: Int64
    public var event: InboxEvent
}
