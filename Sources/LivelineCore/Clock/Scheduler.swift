/// A discrete-event scheduler: a binary min-heap of `(deadline, activity)`.
///
/// One scheduler drives every activity of a run, 100,000 of them in a load test, instead of a
/// task per activity. Each activity has at most one live entry. Rescheduling pushes a new entry
/// and the old one is skipped when it surfaces, which keeps every operation O(log n) with no
/// search. Ties break by activity number, so runs replay identically.
///
/// It is a plain binary heap rather than swift-collections' `Heap`, which is a min-max heap:
/// the scheduler only ever needs the minimum, and the simpler heap halves the cost of a wake in
/// the engine benchmark (see BENCHMARKS.md).
public struct Scheduler: Sendable {
    struct Wake: Sendable {
        var time: Millis
        var activity: Int32

        @inline(__always)
        static func < (a: Wake, b: Wake) -> Bool {
            a.time != b.time ? a.time < b.time : a.activity < b.activity
        }
    }

    private var heap: [Wake] = []
    /// Each activity's live deadline, `.max` when none.
    private var deadlines: [Millis]

    /// A scheduler for activities numbered `0..<count`, none scheduled.
    public init(activities count: Int) {
        deadlines = Array(repeating: .max, count: count)
        heap.reserveCapacity(count)
    }

    /// Makes room for one more activity, numbered `count` before the call; returns its number.
    public mutating func addActivity() -> Int {
        deadlines.append(.max)
        return deadlines.count - 1
    }

    /// Schedules `activity` at `time`, replacing its previous deadline. `.max` unschedules it.
    public mutating func schedule(_ activity: Int, at time: Millis) {
        guard deadlines.indices.contains(activity), deadlines[activity] != time else { return }
        deadlines[activity] = time
        if time != .max { insert(Wake(time: time, activity: Int32(activity))) }
    }

    /// The earliest live deadline, if any.
    public mutating func peek() -> (time: Millis, activity: Int)? {
        while let top = heap.first {
            if deadlines[Int(top.activity)] == top.time { return (top.time, Int(top.activity)) }
            removeMin()
        }
        return nil
    }

    /// Removes and returns the earliest live deadline if it is at or before `now`.
    public mutating func popDue(at now: Millis) -> (time: Millis, activity: Int)? {
        guard let next = peek(), next.time <= now else { return nil }
        removeMin()
        deadlines[next.activity] = .max
        return next
    }

    /// Moves the earliest entry, which must belong to `activity` (from ``peek()``), to `time`:
    /// one sift instead of a removal and an insertion, the common case of a run.
    public mutating func rescheduleEarliest(_ activity: Int, at time: Millis) {
        guard deadlines.indices.contains(activity), !heap.isEmpty else { return }
        deadlines[activity] = time
        if time == .max {
            removeMin()
        } else {
            siftDown(Wake(time: time, activity: Int32(activity)), from: 0)
        }
    }

    /// How many entries the heap holds, live or stale.
    public var entryCount: Int { heap.count }

    // MARK: The heap

    private mutating func insert(_ wake: Wake) {
        heap.append(wake)
        heap.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard wake < h[parent] else { break }
                h[i] = h[parent]
                i = parent
            }
            h[i] = wake
        }
    }

    private mutating func removeMin() {
        guard let last = heap.popLast() else { return }
        if !heap.isEmpty { siftDown(last, from: 0) }
    }

    /// Puts `wake` at the hole `start` and moves it down to its place.
    private mutating func siftDown(_ wake: Wake, from start: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            let count = h.count
            var i = start
            while true {
                var child = 2 * i + 1
                guard child < count else { break }
                if child + 1 < count, h[child + 1] < h[child] { child += 1 }
                guard h[child] < wake else { break }
                h[i] = h[child]
                i = child
            }
            h[i] = wake
        }
    }
}
