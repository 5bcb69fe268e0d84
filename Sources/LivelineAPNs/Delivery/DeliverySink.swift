import Liveline

/// The sink that connects a ``ScenarioRun`` to APNs: every push goes to a ``PushDelivery``.
///
/// Rejected pushes (over the size limit) are reported through `onRejected`; they never reach
/// APNs. `onPush` sees each push as it is handed over, with the activity right after it (a live
/// view draws from it).
public struct DeliverySink: PushSink, Sendable {
    public let delivery: PushDelivery
    public var onPush: @Sendable (Push, ActivityEngine) -> Void
    public var onRejected: @Sendable (Push, PushProblem, ActivityEngine) -> Void

    public init(
        delivery: PushDelivery,
        onPush: @escaping @Sendable (Push, ActivityEngine) -> Void = { _, _ in },
        onRejected: @escaping @Sendable (Push, PushProblem, ActivityEngine) -> Void = { _, _, _ in }
    ) {
        self.delivery = delivery
        self.onPush = onPush
        self.onRejected = onRejected
    }

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        delivery.submit(push, flush: false)
        onPush(push, activity)
    }

    /// Sends the batch's pushes: one wake-up per connection for a whole burst.
    public mutating func batchEnded() {
        delivery.flush()
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        onRejected(push, problem, activity)
    }
}
