/// Depths of the store's queues, for metrics and readiness.
public struct StoreCounts: Sendable, Hashable {
    /// Events stored and not yet taken up by a dispatch step.
    public var pendingEvents: Int
    /// Pushes waiting to be sent.
    public var outbox: Int
    /// Pushes whose attempts ran out.
    public var deadLetters: Int
    /// Registered activities.
    public var activities: Int
    /// Activities' own starts in doubt (``RegistryStore/startInDoubt(for:)``).
    public var startsInDoubt = 0
}
