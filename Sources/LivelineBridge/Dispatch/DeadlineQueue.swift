import Foundation

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
    private var heap: [Int64] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// The earliest deadline kept.
    var earliest: Date? { heap.first.map { Date(timeIntervalSince1970: Double($0) / 1000) } }

    /// Keeps `deadline` if it is after `now` and within the horizon.
    mutating func insert(_ deadline: Date, now: Date) {
        let interval = deadline.timeIntervalSince(now)
        guard interval > 0, interval <= Double(horizon.components.seconds), heap.count < capacity else { return }
        heap.append(Int64((deadline.timeIntervalSince1970 * 1000).rounded(.up)))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Drops every deadline at or before `instant`: a pass that began then has claimed them.
    mutating func removeAll(through instant: Date) {
        let limit = Int64((instant.timeIntervalSince1970 * 1000).rounded(.down))
        while let first = heap.first, first <= limit { removeFirst() }
    }

    /// How long to wait at most: until the earliest deadline (and a millisecond, so that it is
    /// due when the pass looks), or `poll` if that comes first.
    func wait(now: Date, poll: Duration) -> Duration {
        guard let earliest else { return poll }
        let millis = max(0, Int64((earliest.timeIntervalSince(now) * 1000).rounded(.up))) + 1
        return min(poll, .milliseconds(millis))
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
