/// Counts pushes and drops them: the engine and encoder alone, with nothing after.
///
/// `liveline load --target discard` and the engine benchmark use it. ``ScenarioRun`` has a
/// `run(until:into:)` overload for it that is specialized inside this module, so callers in
/// other modules get the fast path rather than the generic one.
public struct DiscardSink: PushSink, Sendable {
    public private(set) var pushes = 0
    public private(set) var bytes = 0
    public private(set) var highPriority = 0
    public private(set) var rejected = 0

    public init() {}

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        pushes += 1
        bytes += push.payload.count
        if push.priority == .high { highPriority += 1 }
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        rejected += 1
    }
}

extension ScenarioRun {
    /// ``run(until:into:)`` for a ``DiscardSink``, specialized here.
    public mutating func run(until: Millis = .max, into sink: inout DiscardSink) {
        runGeneric(until: until, into: &sink)
    }
}
