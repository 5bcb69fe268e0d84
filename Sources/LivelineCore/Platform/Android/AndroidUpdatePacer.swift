/// Spaces an app's Live Update messages so the phone never drops one for its update rate.
///
/// Android sheds notification updates of an app that posts faster than it allows
/// (``AndroidRules/updateSpacing``), across all of the app's notifications: five activities
/// ticking in the same second would lose updates on the phone. The pacer gives every message a
/// slot at least `spacing` after the previous one; a message that has to wait and is joined by a
/// newer one for the same activity is replaced by it (the newer carries the whole state), so the
/// newest content takes the earliest free slot and nothing is lost.
///
/// A value for one app on one phone; messages must be offered in time order.
public struct AndroidUpdatePacer<Item: Sendable>: Sendable {
    /// An item with its slot.
    public struct Slot: Sendable {
        /// The item, or the newest of those that replaced one another while it waited.
        public var item: Item
        /// The activity it belongs to: a newer offer for it replaces a held item.
        public var activity: Int
        /// When it was offered (its first offer, when newer items replaced it).
        public var offeredAt: Millis
        /// When it goes.
        public var time: Millis
        /// How many offers it carries.
        public var merged: Int
    }

    /// The least time between two slots.
    public let spacing: Millis
    private var held: [Slot] = []
    private var lastSlot: Millis = .min

    /// A pacer with nothing held, its slots `spacing` apart (Android's rate by default).
    public init(spacing: Millis = AndroidRules.updateSpacing) {
        self.spacing = spacing
    }

    /// Whether nothing waits.
    public var isEmpty: Bool { held.isEmpty }

    /// When the next held item goes, if any.
    public var nextRelease: Millis? { held.first?.time }

    /// Offers `item` for `activity` at `now`. Returns the items whose slot came by `now` (in
    /// slot order), this one included when it may go at once. `merge` combines a held item with
    /// a newer one for the same activity.
    public mutating func offer(
        _ item: Item, activity: Int, at now: Millis, merge: (_ held: Item, _ newer: Item) -> Item
    ) -> [Slot] {
        var due = release(until: now)
        if let index = held.firstIndex(where: { $0.activity == activity }) {
            held[index].item = merge(held[index].item, item)
            held[index].merged += 1
            return due
        }
        let previous = held.last?.time ?? lastSlot
        let time = previous == .min ? now : max(now, previous + spacing)
        let slot = Slot(item: item, activity: activity, offeredAt: now, time: time, merged: 1)
        if time <= now, held.isEmpty {
            lastSlot = time
            due.append(slot)
        } else {
            held.append(slot)
        }
        return due
    }

    /// The held items whose slot is at or before `now`, in slot order.
    public mutating func release(until now: Millis) -> [Slot] {
        var count = 0
        while count < held.count, held[count].time <= now { count += 1 }
        guard count > 0 else { return [] }
        let due = Array(held[..<count])
        held.removeFirst(count)
        lastSlot = due[due.count - 1].time
        return due
    }

    /// Every held item, in slot order.
    public mutating func releaseAll() -> [Slot] { release(until: .max) }
}
