/// Depths of the store's queues, for metrics and readiness.
public struct StoreCounts: Sendable, Hashable {
    public var pendingEvents: Int
    public var outbox: Int
    public var deadLetters: Int
    public var activities: Int
}
