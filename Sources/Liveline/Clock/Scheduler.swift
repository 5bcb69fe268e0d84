import HeapModule

/// A discrete-event scheduler: a min-heap of `(deadline, activity)`.
///
/// One scheduler drives every activity of a run, 100,000 of them in a load test, instead of a
/// task per activity. Each activity has at most one live entry. Rescheduling pushes a new entry
/// and the old one is skipped when it surfaces, which keeps every operation O(log n) with no
/// search. Ties break by activity number, so runs replay identically.
public struct Scheduler: Sendable {
    struct Wake: Comparable, Sendable {
        var time: Millis
        var activity: Int32

        static func < (a: Wake, b: Wake) -> Bool {
            a.time != b.time ? a.time < b.time : a.activity < b.activity
        }
    }

    private var heap = Heap<Wake>()
    /// Each activity's live deadline, `.max` when none.
    private var deadlines: [Millis]

    /// A scheduler for activities numbered `0..<count`, none scheduled.
    public init(activities count: Int) {
        deadlines = Array(repeating: .max, count: count)
    }

    /// Schedules `activity` at `time`, replacing its previous deadline. `.max` unschedules it.
    public mutating func schedule(_ activity: Int, at time: Millis) {
        guard activity < deadlines.count, deadlines[activity] != time else { return }
        deadlines[activity] = time
        if time != .max { heap.insert(Wake(time: time, activity: Int32(activity))) }
    }

    /// The earliest live deadline, if any.
    public mutating func peek() -> (time: Millis, activity: Int)? {
        while let top = heap.min {
            if deadlines[Int(top.activity)] == top.time { return (top.time, Int(top.activity)) }
            heap.removeMin()
        }
        return nil
    }

    /// Removes and returns the earliest live deadline if it is at or before `now`.
    public mutating func popDue(at now: Millis) -> (time: Millis, activity: Int)? {
        guard let next = peek(), next.time <= now else { return nil }
        heap.removeMin()
        deadlines[next.activity] = .max
        return next
    }

    /// How many entries the heap holds, live or stale.
    public var entryCount: Int { heap.count }
}
