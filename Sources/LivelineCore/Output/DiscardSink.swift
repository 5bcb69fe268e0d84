/// Counts pushes and drops them: the engine and encoder alone, with nothing after.
///
/// `liveline load --target discard` and the engine benchmark use it. ``ScenarioRun`` has a
/// `run(until:into:)` overload for it that is specialized inside this module, so callers in
/// other modules get the fast path rather than the generic one.
///
/// Besides pushes and bytes it keeps the counts a load report shows (coalesced pushes,
/// heartbeats, budget downgrades and deferrals, starts and ends) and which activities ran out
/// of budget: a few compares per push, and a set insertion only when a budget rule fired.
public struct DiscardSink: PushSink, Sendable {
    /// Pushes received.
    public private(set) var pushes = 0
    /// Payload bytes received, summed.
    public private(set) var bytes = 0
    /// Pushes at priority 10.
    public private(set) var highPriority = 0
    /// Pushes the engine refused (over the size limit).
    public private(set) var rejected = 0
    /// Pushes that carry more than one beat (`reason.merged > 1`).
    public private(set) var coalesced = 0
    /// Pushes sent only to move the stale date.
    public private(set) var heartbeats = 0
    /// High beats sent at priority 5 because the budget was empty (deferred first or not).
    public private(set) var downgraded = 0
    /// High beats that waited for a budget token (sent at 10 later, or downgraded after all).
    public private(set) var deferred = 0
    /// Push-to-start pushes.
    public private(set) var starts = 0
    /// End pushes, for whatever reason.
    public private(set) var ends = 0
    /// Ends the engine sent because an activity reached max-duration (or a renewing story its `until`).
    public private(set) var maxDurationEnds = 0
    /// The largest payload seen, in bytes.
    public private(set) var largestPayload = 0
    /// The activities (their ``Push/activity``) that saw a downgrade or a deferral.
    public private(set) var exhaustedActivities: Set<Int> = []

    /// A sink with every count at zero.
    public init() {}

    /// Counts `push` and drops it.
    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        pushes += 1
        let size = push.payload.count
        bytes += size
        if size > largestPayload { largestPayload = size }
        if push.priority == .high { highPriority += 1 }
        let reason = push.reason
        if reason.merged > 1 { coalesced += 1 }
        switch reason.kind {
        case .beat, .event: break
        case .heartbeat: heartbeats += 1
        case .reachedMaxDuration, .reachedStoryLimit: maxDurationEnds += 1
        case .stopped, .renewalStart, .renewalEnd: break
        }
        switch push.event {
        case .update: break
        case .start: starts += 1
        case .end: ends += 1
        }
        switch reason.budget {
        case .notCharged, .spent: break
        case .downgraded:
            downgraded += 1
            exhaustedActivities.insert(push.activity)
        case .deferred:
            deferred += 1
            exhaustedActivities.insert(push.activity)
        case .deferredThenDowngraded:
            deferred += 1
            downgraded += 1
            exhaustedActivities.insert(push.activity)
        }
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        rejected += 1
    }
}

extension ScenarioRun {
    /// ``ScenarioRun/run(until:into:)-(_,Sink)`` for a ``DiscardSink``, specialized here.
    public mutating func run(until: Millis = .max, into sink: inout DiscardSink) {
        runGeneric(until: until, into: &sink)
    }
}
