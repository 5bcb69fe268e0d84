import LivelineCore

/// The engines' sink inside a ``LiveSession``: each push becomes a ``SessionEvent/decided(_:engine:)``
/// and goes to ``PushDelivery``; a whole wake's pushes are flushed at once.
struct SessionSink: PushSink {
    let delivery: PushDelivery
    let hub: SessionEventHub

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        hub.emit(.decided(push, engine: activity))
        delivery.submit(push, flush: false)
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        hub.emit(.refused(push, problem: problem, engine: activity))
    }

    /// One event-loop wake-up per connection for a whole burst.
    mutating func batchEnded() {
        delivery.flush()
    }
}
