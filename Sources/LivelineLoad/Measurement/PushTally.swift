import Liveline

/// Counts what the engines produced, push by push, for the paths that do not use
/// ``DiscardSink`` (which keeps the same counts inside the engine module, specialized).
public struct PushTally: Sendable {
    public private(set) var counts = LoadResult.PushCounts()
    /// Activities (their run ids) that saw a downgrade or deferral.
    public private(set) var exhaustedActivities: Set<Int> = []

    public init() {}

    public mutating func count(_ push: Push) {
        counts.produced += 1
        let size = push.payload.count
        counts.bytes += size
        if size > counts.largestPayload { counts.largestPayload = size }
        if push.priority == .high { counts.highPriority += 1 } else { counts.lowPriority += 1 }
        switch push.event {
        case .start: counts.starts += 1
        case .update: counts.updates += 1
        case .end: counts.ends += 1
        }
        let reason = push.reason
        if reason.merged > 1 { counts.coalesced += 1 }
        switch reason.kind {
        case .heartbeat: counts.heartbeats += 1
        case .reachedMaxDuration, .reachedStoryLimit: counts.maxDurationEnds += 1
        case .beat, .event, .stopped, .renewalStart, .renewalEnd: break
        }
        switch reason.budget {
        case .notCharged, .spent: break
        case .downgraded:
            counts.downgraded += 1
            exhaustedActivities.insert(push.activity)
        case .deferred:
            counts.deferred += 1
            exhaustedActivities.insert(push.activity)
        case .deferredThenDowngraded:
            counts.deferred += 1
            counts.downgraded += 1
            exhaustedActivities.insert(push.activity)
        }
    }

    public mutating func countRejected(_ push: Push) {
        counts.rejectedTooLarge += 1
    }

    /// The counts of a ``DiscardSink`` in the same shape.
    public static func counts(of sink: DiscardSink) -> LoadResult.PushCounts {
        var counts = LoadResult.PushCounts()
        counts.produced = sink.pushes
        counts.bytes = sink.bytes
        counts.highPriority = sink.highPriority
        counts.lowPriority = sink.pushes - sink.highPriority
        counts.starts = sink.starts
        counts.ends = sink.ends
        counts.updates = sink.pushes - sink.starts - sink.ends
        counts.coalesced = sink.coalesced
        counts.heartbeats = sink.heartbeats
        counts.downgraded = sink.downgraded
        counts.deferred = sink.deferred
        counts.maxDurationEnds = sink.maxDurationEnds
        counts.rejectedTooLarge = sink.rejected
        counts.largestPayload = sink.largestPayload
        return counts
    }
}

extension LoadResult.PushCounts {
    /// Adds another run's counts (a shard, a partition).
    public mutating func add(_ other: Self) {
        produced += other.produced
        bytes += other.bytes
        highPriority += other.highPriority
        lowPriority += other.lowPriority
        starts += other.starts
        updates += other.updates
        ends += other.ends
        coalesced += other.coalesced
        heartbeats += other.heartbeats
        downgraded += other.downgraded
        deferred += other.deferred
        maxDurationEnds += other.maxDurationEnds
        rejectedTooLarge += other.rejectedTooLarge
        largestPayload = Swift.max(largestPayload, other.largestPayload)
    }
}
