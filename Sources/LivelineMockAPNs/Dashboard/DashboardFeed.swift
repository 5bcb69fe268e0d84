/// The last pushes the mock answered, kept for the dashboard: a ring of every push and a ring of
/// the notable ones (rejected by APNs, not rendered by the device, or a second start), so a flood of good pushes
/// does not push a problem out of view.
///
/// Lives inside ``MockAPNsState``'s storage and is written under its lock, one append per push
/// and only when a dashboard is served; readers copy what is newer than the sequence they saw.
struct DashboardFeed {
    /// A push with its place in the order the mock answered them.
    struct Entry {
        var sequence: UInt64
        var record: AnsweredPush
    }

    private(set) var sequence: UInt64 = 0
    private var recent: Ring
    private var notable: Ring

    init(capacity: Int) {
        recent = Ring(capacity: capacity)
        notable = Ring(capacity: capacity)
    }

    mutating func append(_ record: AnsweredPush) {
        sequence += 1
        let entry = Entry(sequence: sequence, record: record)
        if Self.isNotable(record) { notable.append(entry) }
        recent.append(entry)
    }

    /// Entries newer than `sequence`, oldest first: notable and recent, each at most a ring's worth.
    func entries(after sequence: UInt64) -> (recent: [Entry], notable: [Entry]) {
        (recent.entries(after: sequence), notable.entries(after: sequence))
    }

    /// A push is notable when APNs refused it, any reached activity did not render it, or it
    /// was a second start on one push-to-start token (a phone with two activities for one story).
    static func isNotable(_ record: AnsweredPush) -> Bool {
        record.status != 200 || record.deliveries.contains { $0.outcome != .rendered || $0.duplicateOf != nil }
    }

    /// A fixed-size ring, oldest overwritten first.
    private struct Ring {
        let capacity: Int
        var storage: [Entry] = []
        var next = 0

        init(capacity: Int) {
            self.capacity = max(1, capacity)
            storage.reserveCapacity(self.capacity)
        }

        mutating func append(_ entry: Entry) {
            if storage.count < capacity {
                storage.append(entry)
            } else {
                storage[next] = entry
            }
            next = (next + 1) % capacity
        }

        func entries(after sequence: UInt64) -> [Entry] {
            let ordered = storage.count < capacity ? storage : Array(storage[next...] + storage[..<next])
            guard let first = ordered.firstIndex(where: { $0.sequence > sequence }) else { return [] }
            return Array(ordered[first...])
        }
    }
}
