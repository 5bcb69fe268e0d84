import Liveline

/// The next deadlines the dispatcher wrote, so that it wakes when one comes instead of at its
/// next poll: a push the engine held for `min-interval` (one push a second) goes out on its
/// second, not up to a poll interval late.
///
/// A min-heap of instants in milliseconds. It is a hint, not the truth: the store's
/// `next_deadline` decides what a pass claims, so a deadline that changed since (a webhook
/// moved it) only costs a pass that finds nothing, and one left out (beyond ``horizon``, or past
/// ``capacity``) is found by the next poll as before.
struct DeadlineQueue {
    /// Deadlines further away than this are not kept: a poll comes long before them.
    var horizon: Duration = .seconds(30)
    /// At most this many are kept, so that a million activities' deadlines cost no memory here.
    var capacity = 65_536
    private var heap: [Millis] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// The earliest deadline kept.
    var earliest: Millis? { heap.first }

    /// Keeps `deadline` if it is after `now` and within the horizon.
    mutating func insert(_ deadline: Millis, now: Millis) {
        let interval = deadline - now
        guard interval > 0, interval <= horizon.millis, heap.count < capacity else { return }
        heap.append(deadline)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Drops every deadline at or before `instant`: a pass that began then has claimed them.
    mutating func removeAll(through instant: Millis) {
        while let first = heap.first, first <= instant { removeFirst() }
    }

    /// How long to wait at most: until the earliest deadline (and a millisecond, so that it is
    /// due when the pass looks), or `poll` if that comes first.
    func wait(now: Millis, poll: Duration) -> Duration {
        guard let earliest else { return poll }
        return min(poll, .milliseconds(max(0, earliest - now) + 1))
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
