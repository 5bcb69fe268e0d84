/// What ``VirtualRelease`` holds of one kind (APNs pushes, or Android messages): each busy
/// activity's, in order, waiting for the one it has out, and those free to go, oldest first.
///
/// A value owned by the runner's task. Whether an activity is busy is the caller's, shared by
/// both kinds (an activity plays on one platform, so only one of them ever holds its items).
struct ReleaseQueue<Item> {
    /// Items of busy activities, in order.
    private var queued: [Int: [Item]] = [:]
    /// Items free to go, from `readyHead` on; those before it were moved out (nil). Items are
    /// moved in and out, never copied: a push holds its payload and strings, and a copy is a
    /// retain and a release of each.
    private var ready: [Item?] = []
    private var readyHead = 0

    /// Whether an item is free to go.
    var hasReady: Bool { readyHead < ready.count }

    /// Queues `item` of `activity`: free to go when the activity has nothing out (it is then
    /// busy), else behind what it has.
    mutating func add(_ item: consuming Item, activity: Int, busy: inout [Bool]) {
        if busy[activity] {
            queued[activity, default: []].append(item)
        } else {
            busy[activity] = true
            ready.append(item)
        }
    }

    /// Queues every item of `batch`, oldest first, each of the activity `activity(of:)` names,
    /// moving them out of `batch` (left empty, its storage kept): the items are not copied.
    /// Returns how many were queued.
    mutating func add(
        movingAll batch: inout [Item], activity: (Item) -> Int, busy: inout [Bool]
    ) -> Int {
        let count = batch.count
        batch.reverse()
        while let item = batch.popLast() {
            let owner = activity(item)
            add(item, activity: owner, busy: &busy)
        }
        return count
    }

    /// `activity`'s item out was answered: its next one is free to go. Returns whether it had one
    /// (it stays busy).
    mutating func advance(_ activity: Int) -> Bool {
        // The list is changed where it is stored: taken out of the table first, it would be
        // copied whole by its first change, as the table still holds it.
        guard let index = queued.index(forKey: activity), !queued.values[index].isEmpty else { return false }
        ready.append(queued.values[index].removeFirst())
        if queued.values[index].isEmpty { queued.remove(at: index) }
        return true
    }

    /// The oldest item free to go.
    mutating func next() -> Item? {
        guard readyHead < ready.count else { return nil }
        defer {
            readyHead += 1
            if readyHead > 4096, readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
        }
        return ready[readyHead].take()
    }
}
